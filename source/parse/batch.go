package parse

import (
	"context"
	"errors"
	"io"
	"os/exec"
	"sort"
	"strings"
)

// Parsed is one file's result of ParseAll: what Parse gives for it.
type Parsed struct {
	TU  *TU
	Err error
}

// ParseAll parses cmds, giving for each what Parse gives, with one clang process for the
// files whose clang command lines differ only in the file (cc1.go says why that is cheaper).
// What a batch does not show whole is parsed by Parse: a file whose name needs a stand-in, one
// whose run stopped at a fatal error (a header the text does not show is missing: clang
// reports nothing more after it, the next files' errors included, so they go in another
// batch), and the files of a batch that ended short (a limit, a crash). When ctx ends, the
// files a batch gave whole are given and the rest have ctx's error: clang holds the end of the
// last file it finished in its output buffer until the next one's dump, so an interrupt loses
// at most that one finished file of a batch.
func (s *Session) ParseAll(ctx context.Context, cmds []Command) []Parsed {
	out := make([]Parsed, len(cmds))
	groups := map[string][]*batchFile{}
	var keys []string
	for i, c := range cmds {
		f, ok := s.batchable(ctx, i, c)
		if !ok {
			out[i] = s.parseOne(ctx, c)
			continue
		}
		if groups[f.key] == nil {
			keys = append(keys, f.key)
		}
		groups[f.key] = append(groups[f.key], f)
	}
	for _, k := range keys {
		s.parseGroup(ctx, groups[k], out)
		for _, f := range groups[k] {
			f.p.remove()
		}
	}
	return out
}

// batchFile is one file of a batch: where its result goes, and its prepared parse.
type batchFile struct {
	i    int
	c    Command // as given: Parse's, when the batch does not give the file whole
	p    *prepared
	key  string   // its clang command line without the file: a batch's files share it
	args []string // the whole command line, for the driver's -###
}

// batchable prepares c for a batch; false for a file Parse is to parse alone.
func (s *Session) batchable(ctx context.Context, i int, c Command) (*batchFile, bool) {
	p, err := s.prepare(ctx, c)
	if err != nil {
		return nil, false // Parse gives the same error
	}
	if p.odd.dir != "" {
		p.remove()
		return nil, false
	}
	env := p.env
	if len(p.stubs.names) > 0 {
		// The stand-ins of a batch's files are one directory of the same names: which
		// headers exist does not depend on the other files.
		if env.stubs = s.sharedStubs(p.stubs.names); env.stubs == "" {
			p.remove()
			return nil, false
		}
	}
	args := clangArgs(p.c, p.lang, s.o, env)
	key := p.c.Dir + "\x00" + strings.Join(args[:len(args)-1], "\x00")
	return &batchFile{i: i, c: c, p: p, key: key, args: args}, true
}

// sharedStubs is a directory of stand-ins for names, the same for every file that needs
// these and no others; "" when it cannot be made.
func (s *Session) sharedStubs(names []string) string {
	sorted := append([]string{}, names...)
	sort.Strings(sorted)
	key := strings.Join(sorted, "\x00")
	s.mu.Lock()
	defer s.mu.Unlock()
	if d, ok := s.stubSets[key]; ok {
		return d
	}
	if s.stubSets == nil {
		s.stubSets = map[string]string{}
	}
	st := &stubDir{}
	for _, n := range sorted {
		if ok, err := st.add(s.dir, n); err != nil || !ok {
			st.remove()
			s.stubSets[key] = ""
			return ""
		}
	}
	s.stubSets[key] = st.dir
	return st.dir
}

func (s *Session) parseOne(ctx context.Context, c Command) Parsed {
	tu, err := s.Parse(ctx, c)
	return Parsed{TU: tu, Err: err}
}

// parseGroup parses files that share one command line: in batches, each from the first file
// the last one did not give whole, which Parse parses alone.
func (s *Session) parseGroup(ctx context.Context, files []*batchFile, out []Parsed) {
	for len(files) > 0 {
		if ctx.Err() != nil {
			out[files[0].i] = Parsed{Err: ctx.Err()}
			files = files[1:]
			continue
		}
		var job []string
		if len(files) > 1 {
			job = s.cc1Job(ctx, files[0].p.c.Dir, files[0].args)
		}
		n := 0
		if job != nil {
			n = s.runBatch(ctx, job, files, out)
		}
		if n == 0 {
			// No batch, or one that gave nothing: each alone, as Parse would.
			for _, f := range files {
				out[f.i] = s.parseOne(ctx, f.c)
			}
			return
		}
		if n < len(files) {
			out[files[n].i] = s.parseOne(ctx, files[n].c)
			n++
		}
		files = files[n:]
	}
}

// runBatch runs clang's compiler job on files and gives the results of the files it gave
// whole, the first n: each read in full, with its diagnostics (from its marker to the next
// file's) and without a fatal error among them.
func (s *Session) runBatch(ctx context.Context, job []string, files []*batchFile, out []Parsed) int {
	args := append([]string{}, job[1:]...)
	for _, f := range files {
		args = append(args, f.p.c.File)
	}
	run := newClangRun(ctx, files[0].p.c.File, s.o.Limits)
	cmd := exec.CommandContext(run.timed, job[0], args...)
	run.prepare(cmd)
	cmd.Dir = files[0].p.c.Dir
	errs := &fileDiags{isMarker: s.isMarker, max: 1 << 20}
	cmd.Stderr = errs
	stdout, err := cmd.StdoutPipe()
	if err != nil || cmd.Start() != nil {
		run.cancel()
		return 0
	}
	dump := newScanner(run.start(cmd, stdout))
	var roots []*Node
	for _, f := range files {
		keep := keepOwn(f.p.c, s.notOwn())
		root, err := readTU(dump, keep, s.o.Limits.nodes())
		if err != nil {
			break
		}
		roots = append(roots, root)
	}
	if len(roots) < len(files) {
		run.dump.kill() // what is left is not read: clang need not go on
	}
	io.Copy(io.Discard, run.dump)
	waitErr := cmd.Wait()
	run.cancel()
	var exit *exec.ExitError
	exited := waitErr == nil || (errors.As(waitErr, &exit) && exit.ExitCode() == 1)
	chunks := errs.files(exited && len(roots) == len(files))
	n := 0
	// A file read whole whose diagnostics ended is given even when ctx ended the batch: it
	// was done before the interrupt.
	for n < len(roots) && n < len(chunks) {
		diags := parseDiags(chunks[n].text)
		if chunks[n].cut || firstFatal(diags) != nil {
			break
		}
		f := files[n]
		tu, err := f.p.finish(clangResult{root: roots[n], stderr: chunks[n].text}, diags, nil)
		out[f.i] = Parsed{TU: tu, Err: err}
		s.batched.Add(1)
		n++
	}
	return n
}
