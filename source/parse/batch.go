package parse

import (
	"context"
	"errors"
	"io"
	"os/exec"
	"strings"
)

// Parsed is one file's result of ParseAll: what Parse gives for it.
type Parsed struct {
	TU  *TU
	Err error
}

// ParseAll parses cmds, giving for each what Parse gives, with one clang process for the
// files whose clang command lines differ only in the file and the headers they need stand-ins
// for (cc1.go says why that is cheaper, batchstubs.go why the stand-ins can be shared).
// What a batch does not show whole is parsed by Parse: a file whose name needs a stand-in, one
// whose run stopped at a fatal error (a header the text does not show is missing: clang
// reports nothing more after it, the next files' errors included, so they go in another
// batch), and the files of a batch that ended short (a limit, a crash). When ctx ends, the
// files a batch gave whole are given and the rest have ctx's error: clang holds the end of the
// last file it finished in its output buffer until the next one's dump, so an interrupt loses
// at most that one finished file of a batch.
func (s *Session) ParseAll(ctx context.Context, cmds []Command) []Parsed {
	out := make([]Parsed, len(cmds))
	var files []*batchFile
	for i, c := range cmds {
		f, ok := s.batchable(ctx, i, c)
		if !ok {
			out[i] = s.parseOne(ctx, c)
			continue
		}
		s.noteStubs(f)
		files = append(files, f)
	}
	groups := map[string][]*batchFile{}
	var keys []string
	for _, f := range files {
		if !s.placeStubs(f) {
			f.p.remove()
			out[f.i] = s.parseOne(ctx, f.c)
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

// BatchKey is what ParseAll batches c by: the files of one ParseAll with one key share a clang
// process. "" for a file it parses alone. The stand-ins c needs are noted for the batch's
// (batchstubs.go), and c's prepared parse is kept for ParseAll, which would prepare it again.
func (s *Session) BatchKey(ctx context.Context, c Command) string {
	f, ok := s.batchable(ctx, 0, c)
	if !ok {
		return ""
	}
	s.noteStubs(f)
	s.keepPrepared(c, f.p)
	return f.flags
}

// keepPrepared keeps p, c's prepared parse, for the next batchable of c. A file a batch can
// take holds nothing to remove (no stand-ins written, no alias made: prepare, batchable), so
// one that is never taken costs nothing but its memory.
func (s *Session) keepPrepared(c Command, p *prepared) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.kept == nil {
		s.kept = map[string]*prepared{}
	}
	s.kept[commandKey(c)] = p
}

// takePrepared is the prepared parse BatchKey kept for c, taken; nil for none.
func (s *Session) takePrepared(c Command) *prepared {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := commandKey(c)
	p := s.kept[k]
	delete(s.kept, k)
	return p
}

// commandKey tells commands apart by every field prepare reads.
func commandKey(c Command) string {
	guess := "0"
	if c.Guess {
		guess = "1"
	}
	return strings.Join(append(append([]string{c.Dir, c.File, guess}, c.Args...), append([]string{"\x01"}, c.Own...)...), "\x00")
}

// batchFile is one file of a batch: where its result goes, and its prepared parse.
type batchFile struct {
	i     int
	c     Command // as given: Parse's, when the batch does not give the file whole
	p     *prepared
	flags string   // its clang command line without the file and its stand-ins' directory
	key   string   // … with the directory (placeStubs): a batch's files share it
	args  []string // the whole command line, for the driver's -###
}

// batchable prepares c for a batch, or takes what BatchKey prepared; false for a file Parse
// is to parse alone.
func (s *Session) batchable(ctx context.Context, i int, c Command) (*batchFile, bool) {
	p := s.takePrepared(c)
	if p == nil {
		var err error
		if p, err = s.prepare(ctx, c); err != nil {
			return nil, false // Parse gives the same error
		}
		s.prepares.Add(1)
	}
	if p.odd.dir != "" {
		p.remove()
		return nil, false
	}
	f := &batchFile{i: i, c: c, p: p}
	f.flags = f.line(s, stubsSlot(p.stubs))
	return f, true
}

// line is f's clang command line without the file, with stubs as its stand-ins' directory;
// it sets f.args to the whole line.
func (f *batchFile) line(s *Session, stubs string) string {
	env := f.p.env
	env.stubs = stubs
	f.args = clangArgs(f.p.c, f.p.lang, s.o, env)
	return f.p.c.Dir + "\x00" + strings.Join(f.args[:len(f.args)-1], "\x00")
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
		var end batchEnd
		if job != nil {
			end = s.runBatch(ctx, job, files, out)
		}
		if end.begun == 0 {
			// No batch, or one that began no file: each alone, as Parse would.
			for _, f := range files {
				out[f.i] = s.parseOne(ctx, f.c)
			}
			return
		}
		n := end.given
		switch {
		case n == len(files):
		case n == end.overAt && end.over != nil:
			out[files[n].i] = Parsed{Err: end.over}
			n++
		default:
			out[files[n].i] = s.parseOne(ctx, files[n].c)
			n++
		}
		files = files[n:]
	}
}

// batchEnd is how a batch ended: how many files it gave whole (the first ones), how many clang
// began, and the limit a file went past (over, the file at overAt) where that is the limit it
// goes past alone, so its LimitError is Parse's: a file's own (its nodes, its dump, which the
// reader counts from the file's start), or any but memory when the first file went past it
// and clang began no other, a run of that file alone from the process's start as Parse's
// would be. Not the memory limit: clang's compiler job alone does not keep what the driver's
// does. A file past its own limit is not run again alone: HeCBench's two files past the
// output limit were each read to it twice, in a batch and alone (issue 40).
type batchEnd struct {
	given, begun int
	over         error
	overAt       int
}

// runBatch runs clang's compiler job on files and gives the results of the files it gave
// whole, the first ones: each read in full, with its diagnostics (from its marker to the next
// file's) and without a fatal error among them.
func (s *Session) runBatch(ctx context.Context, job []string, files []*batchFile, out []Parsed) batchEnd {
	args := append([]string{}, job[1:]...)
	for _, f := range files {
		args = append(args, f.p.c.File)
	}
	run := newClangRun(ctx, files[0].p.c.File, len(files), s.o)
	errs := &fileDiags{isMarker: s.isMarker, max: 1 << 20}
	cmd, stdout, err := run.startClang(job[0], args, files[0].p.c.Dir, errs)
	if err != nil {
		return batchEnd{}
	}
	dump := newScanner(stdout)
	var roots []*Node
	var readErr error
	for _, f := range files {
		var root *Node
		if root, readErr = readTU(dump, keepOwn(f.p.c, s.notOwn()), s.o.Limits.nodes(), s.o.Limits.output()); readErr != nil {
			break
		}
		roots = append(roots, root)
	}
	run.stopIfOver(readErr)
	if len(roots) < len(files) {
		run.dump.kill() // what is left is not read: clang need not go on
	}
	io.Copy(io.Discard, run.dump)
	waitErr := cmd.Wait()
	var exit *exec.ExitError
	exited := waitErr == nil || (errors.As(waitErr, &exit) && exit.ExitCode() == 1)
	chunks := errs.files(exited && len(roots) == len(files))
	var end batchEnd
	if errs.pre == 0 { // else what came before the first file's marker leaves the batch untrusted
		end.begun = len(errs.chunks)
	}
	over := run.exceeded(waitErr, readErr, nil)
	switch k := len(roots); {
	case ctx.Err() != nil:
	case k < len(files) && run.fileOver(files[k].p.c.File, readErr) != nil:
		end.over, end.overAt = run.fileOver(files[k].p.c.File, readErr), k
	case over != nil && end.begun == 1 && k == 0:
		end.over = over
	}
	// A file read whole whose diagnostics ended is given even when ctx ended the batch: it
	// was done before the interrupt.
	for end.given < len(roots) && end.given < len(chunks) {
		diags := parseDiags(chunks[end.given].text)
		if chunks[end.given].cut || firstFatal(diags) != nil {
			break
		}
		f := files[end.given]
		tu, err := f.p.finish(clangResult{root: roots[end.given], stderr: chunks[end.given].text}, diags, nil)
		out[f.i] = Parsed{TU: tu, Err: err}
		s.batched.Add(1)
		end.given++
	}
	return end
}
