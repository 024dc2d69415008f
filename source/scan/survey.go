package scan

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/echo-uma/echo/source/parse"
	"github.com/echo-uma/echo/source/rules"
)

// The survey (`echoctl scan DIR`): the paper's prevalence study (§2.4: the pattern in 19 of
// 34 Jetson repositories) as a command. It walks a source tree, parses every translation
// unit with the flags its build uses, runs the proofs, and counts what it found. It reports;
// it edits nothing.

// ScanExts are the extensions of the translation units the survey parses. Headers (.h,
// .cuh, .hpp) are not parsed on their own: they are read through the files that include
// them, with those files' flags.
var ScanExts = []string{".cu", ".c", ".cpp", ".cc", ".cxx"}

// ScanOptions say how the survey parses.
type ScanOptions struct {
	parse.Options
	// CompileCommands is a compile_commands.json; "" looks in DIR, DIR/build (where CMake
	// writes it) and DIR's parents.
	CompileCommands string
	// Args are clang flags from the command line, added to every file's.
	Args []string
	// ParseAll parses every CUDA file, those that cannot hold a copy too (FileReport.NoCopy).
	ParseAll bool
	// Jobs is how many files are parsed at once; 0 is GOMAXPROCS.
	Jobs int
	// Progress, when set, is called as each file is done (done counts from 1), from one
	// goroutine at a time.
	Progress func(done, total int, file string)
}

// FileScan is what the survey found in one file.
type FileScan struct {
	Path string // relative to the scanned directory
	// Defaults: no compile command names the file, so it was parsed with no flags but the
	// command line's ("no compile command: defaults").
	Defaults bool
	// Unparsable is clang's first error when clang could not parse the file; then Proofs
	// is empty and the file counts as unparsable.
	Unparsable string
	// Skipped says which limit the file went past (Limits: its size, clang's time, memory
	// or output); then Proofs is empty.
	Skipped string
	// Flags are the build flags the file's proofs assumed.
	Flags  []string
	Proofs []rules.Proof
	// FileReport is the rest of what the survey says about the file (filereport.go).
	FileReport
}

// Pattern reports whether the file has the pattern: a host buffer and a device buffer,
// each allocated in one function, linked by a copy between them (at least one candidate
// pair). Whether the copy moves the whole buffer is S1's to decide.
func (f *FileScan) Pattern() bool { return len(f.Proofs) > 0 }

// Proven counts the pairs every condition holds for.
func (f *FileScan) Proven() int {
	n := 0
	for i := range f.Proofs {
		if f.Proofs[i].Safe() {
			n++
		}
	}
	return n
}

// Survey is one scan of a tree.
type Survey struct {
	Dir       string // as given
	CompileDB string // the compile_commands.json used; "" for none
	Skipped   []string
	// Unwalked are the parts of the tree the walk could not go into (walk.go).
	Unwalked []Unwalked
	// Notices say what was ignored: a compile database not trusted, flags dropped (trust.go).
	Notices []string
	Files   []FileScan
	// Interrupted: the scan was stopped; Files are the ones done, of Total.
	Interrupted bool
	Total       int
}

// Totals are a survey's counts.
type Totals struct {
	Files, WithPattern, Unparsable, Defaults, Skipped int
	Pairs, Proven, Declined                           int
	// ByCondition counts declined pairs by the condition that declined them ("S1"…"S4").
	ByCondition map[string]int
}

// Totals sums the survey.
func (s *Survey) Totals() Totals {
	t := Totals{Files: len(s.Files), ByCondition: map[string]int{"S1": 0, "S2": 0, "S3": 0, "S4": 0}}
	for i := range s.Files {
		f := &s.Files[i]
		if f.Unparsable != "" {
			t.Unparsable++
		}
		if f.Skipped != "" {
			t.Skipped++
		}
		if f.Defaults {
			t.Defaults++
		}
		if f.Pattern() {
			t.WithPattern++
		}
		for _, p := range f.Proofs {
			t.Pairs++
			if v, ok := rules.Declined(p); ok {
				t.Declined++
				t.ByCondition[v.Cond]++
			} else {
				t.Proven++
			}
		}
	}
	return t
}

// Scan surveys the tree under dir. A file clang cannot parse is counted unparsable with
// clang's first error, and one past a limit skipped saying which; only a compile database
// that cannot be read or clang missing altogether end the scan with an error. When ctx ends
// (an interrupt), Scan returns the survey of the files done so far with the error.
func Scan(ctx context.Context, dir string, o ScanOptions) (*Survey, error) {
	root, err := scanRoot(dir)
	if err != nil {
		return nil, err
	}
	s := &Survey{Dir: dir}
	files := walkSources(root, s)
	db, named, err := s.compileDB(root, o.CompileCommands)
	if err != nil {
		return nil, fmt.Errorf("scanning %s: %w", dir, err)
	}
	s.Files, s.Total = make([]FileScan, len(files)), len(files)
	sess, err := parse.NewSession(o.Options)
	if err != nil {
		return nil, fmt.Errorf("scanning %s: %w", dir, err)
	}
	defer sess.Close()
	plan := planScan(root, files, o.Limits)
	sess.FindHeader = plan.idx.FindHeader
	r := &scanRun{s: s, o: o, sess: sess, plan: plan, files: files, db: db, named: named,
		finished: make([]bool, len(files))}
	r.skipUnparsed()
	if !o.ParseAll {
		r.skipNoCopy()
	}
	if err := r.run(ctx); err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		var kept []FileScan
		for i, f := range s.Files {
			if r.finished[i] {
				kept = append(kept, f)
			}
		}
		s.Files, s.Interrupted = kept, true
		return s, fmt.Errorf("scanning %s: %w", dir, context.Cause(ctx))
	}
	return s, nil
}

// scanRoot is the tree dir names, absolute and with links resolved (a root that is a link is
// the tree it names); an error says what to give instead.
func scanRoot(dir string) (string, error) {
	st, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("scanning %s: no such directory: give the root of a source tree", dir)
		}
		return "", fmt.Errorf("scanning %s: %w", dir, err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("scanning %s: not a directory: give the root of a source tree (echoctl rewrite takes single files)", dir)
	}
	root, err := filepath.EvalSymlinks(dir)
	if err == nil {
		root, err = filepath.Abs(root)
	}
	if err != nil {
		return "", fmt.Errorf("scanning %s: %w", dir, err)
	}
	return root, nil
}

// compileDB loads the survey's compile database: the one given (named; failing to load it is
// an error), or the tree's own when trusted (a notice says why one is ignored).
func (s *Survey) compileDB(root, given string) (db *parse.CompileDB, named bool, err error) {
	named = given != ""
	s.CompileDB = given
	if !named {
		if s.CompileDB = findTreeCompileDB(root); s.CompileDB != "" {
			if why := parse.UntrustedDB(s.CompileDB, root); why != "" {
				s.Notices, s.CompileDB = append(s.Notices, parse.IgnoredDB(s.CompileDB, why)), ""
			}
		}
	}
	if s.CompileDB != "" {
		if db, err = parse.LoadCompileDB(s.CompileDB); err != nil && named {
			return nil, named, err
		} else if err != nil {
			s.Notices, s.CompileDB = append(s.Notices, parse.IgnoredDB(s.CompileDB, err.Error())), ""
		}
	}
	return db, named, nil
}

// scanRun is one survey's parse of its files by a pool of workers.
type scanRun struct {
	s     *Survey
	o     ScanOptions
	sess  *parse.Session
	plan  *scanPlan
	files []string
	db    *parse.CompileDB
	named bool

	mu       sync.Mutex
	finished []bool // s.Files[i] is done
	done     int
	fatal    error
}

// skipUnparsed reports the files with no CUDA in them, which are not parsed.
func (r *scanRun) skipUnparsed() {
	for i, f := range r.files {
		if r.plan.noCUDA[f] {
			r.s.Files[i], r.finished[i] = r.plan.unparsed(f), true
			r.done++
			if r.o.Progress != nil {
				r.o.Progress(r.done, len(r.files), r.s.Files[i].Path)
			}
		}
	}
}

// skipNoCopy reports the translation units that cannot hold a copy, and the files parsed in
// them, which are not parsed, and leaves the others to parse.
func (r *scanRun) skipNoCopy() {
	var units []int
	for _, i := range r.plan.units {
		out, cmd, notices := fileCommand(r.plan, r.files[i], r.db, r.s.CompileDB, r.named, r.o)
		if r.plan.idx.MayCopy(cmd) {
			units = append(units, i)
			continue
		}
		out.NoCopy = true
		r.record(context.Background(), r.plan.withIncludes(out), notices, nil)
	}
	r.plan.units = units
}

// batchSize is how many translation units a worker hands clang's parse at once: files with
// the same flags are parsed in one clang process (parse.Session.ParseAll), which saves clang's
// start, about a third of a small file's parse (issue 40).
const batchSize = 32

// run parses the plan's translation units with o.Jobs workers until they are done, one fails
// or ctx ends; the error is the first failure's.
func (r *scanRun) run(ctx context.Context) error {
	jobs := r.o.Jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	cs := chunks(r.orderByBatch(ctx, jobs), batchSize)
	largestFirst(cs, r.unitBytes())
	var wg sync.WaitGroup
	next := make(chan []int)
	for w := 0; w < min(jobs, max(len(r.plan.units), 1)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for units := range next {
				r.scanBatch(ctx, units)
			}
		}()
	}
	for _, c := range cs {
		r.mu.Lock()
		stop := r.fatal != nil
		r.mu.Unlock()
		if stop || ctx.Err() != nil {
			break
		}
		select {
		case next <- r.plan.units[c[0]:c[1]]:
		case <-ctx.Done():
		}
	}
	close(next)
	wg.Wait()
	return r.fatal
}

// scanBatch parses the translation units files[i] of units and records their files' reports.
func (r *scanRun) scanBatch(ctx context.Context, units []int) {
	outs := make([]FileScan, len(units))
	cmds := make([]parse.Command, len(units))
	notices := make([][]string, len(units))
	for k, i := range units {
		outs[k], cmds[k], notices[k] = fileCommand(r.plan, r.files[i], r.db, r.s.CompileDB, r.named, r.o)
	}
	parsed := r.sess.ParseAll(ctx, cmds)
	for k := range units {
		fscs, err := proveFile(ctx, r.plan, outs[k], parsed[k].TU, parsed[k].Err)
		r.record(ctx, fscs, notices[k], err)
	}
}

// record records one translation unit's files' reports.
func (r *scanRun) record(ctx context.Context, fscs []FileScan, notices []string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case err == nil:
		for _, fsc := range fscs {
			j := r.plan.index[fsc.abs]
			r.s.Files[j], r.finished[j] = fsc, true
			r.done++
			if r.o.Progress != nil {
				r.o.Progress(r.done, len(r.files), fsc.Path)
			}
		}
		for _, n := range notices {
			r.s.Notices = parse.AppendOnce(r.s.Notices, n)
		}
	case ctx.Err() == nil && r.fatal == nil:
		r.fatal = err
	}
}

// fileCommand is the report to fill for one translation unit, the command to parse it with,
// and what was dropped from its flags.
func fileCommand(plan *scanPlan, file string, db *parse.CompileDB, dbPath string, named bool, o ScanOptions) (FileScan, parse.Command, []string) {
	out := plan.fileScan(file)
	entry, found := parse.Command{File: file}, false
	if db != nil {
		if c, ok := db.Lookup(file); ok {
			entry, found, out.Defaults = c, true, false
		}
	}
	cmd, bf := parse.Assume(entry, found, dbPath, named, []string{plan.root}, o.Args)
	out.Flags = bf.Flags
	cmd.Guess = out.Defaults
	cmd.Own = plan.ownDirs(file)
	return out, cmd, bf.Notices
}

// proveFile proves one parsed translation unit, and the source files it includes (scanPlan):
// the unit's FileScan first. Its error is only for what ends the whole scan.
func proveFile(ctx context.Context, plan *scanPlan, out FileScan, tu *parse.TU, err error) ([]FileScan, error) {
	root := plan.root
	var pe *parse.ParseError
	var le *parse.LimitError
	switch {
	case errors.As(err, &pe):
		// clang names the file by the absolute path it was given; the survey's are relative.
		out.Unparsable = strings.ReplaceAll(pe.Reason, root+string(filepath.Separator), "")
	case errors.As(err, &le):
		out.Skipped = le.Why
	case err != nil && (errors.Is(err, parse.ErrNoClang) || ctx.Err() != nil):
		// A unit parsed before an interrupt is still proved: a batch gives the units it
		// finished with the interrupt's error for the rest.
		return []FileScan{out}, err
	case err != nil:
		// The dump could not be read (clang crashed mid-way, say), or the file could not
		// be opened: this file's fault, not the scan's.
		out.Unparsable = strings.ReplaceAll(err.Error(), root+string(filepath.Separator), "")
	}
	outs := plan.withIncludes(out)
	if tu == nil {
		return outs, nil
	}
	for i := range outs {
		f := &outs[i]
		view := *tu
		view.File = f.abs
		f.Proofs = rules.Prove(&view)
		f.describe(&view, root)
	}
	return outs, nil
}

func scanExt(path string) bool {
	ext := filepath.Ext(path)
	for _, e := range ScanExts {
		if ext == e {
			return true
		}
	}
	return false
}

// findTreeCompileDB is the compile_commands.json of the tree at root: in root, in root/build
// (CMake's usual build directory, which the walk itself skips), or in root's nearest parent
// that has one; "" when there is none.
func findTreeCompileDB(root string) string {
	for _, p := range []string{filepath.Join(root, "compile_commands.json"), filepath.Join(root, "build", "compile_commands.json")} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return parse.FindCompileDB(filepath.Join(filepath.Dir(root), "x"))
}
