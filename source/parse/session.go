package parse

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/echo-uma/echo/internal/scratch"
)

// A session is what the parses of one command share: the prelude written once, and the
// prelude precompiled once per set of flags (a survey's files mostly share one). Loading the
// precompiled prelude instead of parsing it, with the C and C++ headers it includes, is most
// of a file's parse; and clang does not dump declarations it read from a precompiled header,
// so the dump the reader goes through is the file's own, a tenth of the size.
type Session struct {
	o      Options
	driver string
	dir    string // temporary: the prelude, the precompiled preludes, the stub directories
	remove func()
	// prelude is where the prelude is written; "" with a CUDA installation.
	prelude string
	// pchDir holds the precompiled preludes: the user's cache (preludecache.go), kept between
	// runs, or dir.
	pchDir string

	mu   sync.Mutex
	pchs map[string]*pchBuild

	// findHeader, where set (a survey sets it), is the directory of the tree that holds a
	// header a file includes and no include directory has, for a file parsed without a
	// compile command: that directory goes on the file's -I list, as its build would put it.
	FindHeader func(file, name string) string

	sysOnce sync.Once
	sysDirs []string

	// cc1s are the compiler jobs of batches by their flags (cc1.go); nil where the driver's
	// could not be used. marker is the header that starts each file's diagnostics.
	cc1s       map[string][]string
	markerOnce sync.Once
	marker     string
	// stubSets are the stand-in directories batches share, by the names they stand in for;
	// stubUnions the names noted for each batch command line (batchstubs.go).
	stubSets   map[string]string
	stubUnions map[string]map[string]bool
	// includes are the include directives preresolve read, by file.
	includes includeCache
	// kept are the parses BatchKey prepared, by command (commandKey), for ParseAll to take:
	// a survey's every file would be prepared twice, its include directives matched and its
	// headers looked for again (issue 40).
	kept map[string]*prepared
	// batched counts the files a batch gave whole (a test's check that batches ran), alone the
	// files parsed by a clang process of their own (Parse), prepares the files batchable
	// prepared.
	batched, alone, prepares atomic.Int64
}

type pchBuild struct {
	once sync.Once
	path string // "" when it could not be built: the parse includes the header itself
}

func NewSession(o Options) (*Session, error) {
	driver := o.Clang
	if driver == "" {
		driver = "clang"
	}
	if _, err := exec.LookPath(driver); err != nil {
		return nil, ErrNoClang
	}
	dir, remove, err := scratch.Dir("echo-source-") // one a SIGKILL left goes at the next run
	if err != nil {
		return nil, fmt.Errorf("writing the CUDA prelude: %w", err)
	}
	o.Preload = loadable(context.Background(), driver, o.Preload, o.Limits)
	s := &Session{o: o, driver: driver, dir: dir, remove: remove, pchs: map[string]*pchBuild{}, pchDir: dir}
	if o.CUDAPath == "" {
		if cache := PreludeCache(driver); cache != "" {
			s.prelude, s.pchDir = filepath.Join(cache, "prelude"), cache
		} else if s.prelude, err = writePrelude(dir); err != nil {
			remove()
			return nil, err
		}
	}
	return s, nil
}

func (s *Session) Close() { s.remove() }

// maxStubRounds bounds the parses of one file: each round stubs the headers the last one found
// missing (a fatal error stops clang at the first, so a file missing three headers takes four
// rounds; a stub can uncover another include behind it).
const maxStubRounds = 32

// parse parses one file: with the precompiled prelude where there is one, and again with
// empty stand-ins for the headers clang could not find, until it parses or no missing header
// is left to stand in for.
func (s *Session) Parse(ctx context.Context, c Command) (*TU, error) {
	s.alone.Add(1)
	p, err := s.prepare(ctx, c)
	if err != nil {
		return nil, err
	}
	defer p.remove()
	for round := 0; ; round++ {
		if p.env.stubs, err = p.stubs.path(s.dir); err != nil {
			return nil, fmt.Errorf("parsing %s: %w", p.c.File, err)
		}
		run, err := runClang(ctx, s.driver, p.c, clangArgs(p.c, p.lang, s.o, p.env), s.notOwn(), s.o)
		if err != nil {
			return nil, err
		}
		diags := parseDiags(run.stderr)
		fatal := firstFatal(diags)
		if again, err := s.retry(&p.c, &p.env, p.stubs, &p.found, fatal, round); err != nil {
			return nil, err
		} else if again {
			continue
		}
		return p.finish(run, diags, fatal)
	}
}

// prepared is a file made ready for its first clang run: its command with absolute paths and
// the include directories found for it, and what the parse adds to its flags.
type prepared struct {
	c     Command
	lang  Lang
	real  string // the file's real path (c.File may be a stand-in, oddname.go)
	odd   alias
	env   parseEnv
	stubs *stubDir
	found []string
}

// prepare checks c's file and resolves, before any parse, what its includes need
// (preresolve); the caller removes what it made.
func (s *Session) prepare(ctx context.Context, c Command) (*prepared, error) {
	lang, err := LangOf(c.File)
	if err != nil {
		return nil, err
	}
	if c.Dir != "" {
		if c.Dir, err = filepath.Abs(c.Dir); err != nil {
			return nil, fmt.Errorf("parsing %s: %w", c.File, err)
		}
	}
	c.File = filepath.Clean(abs(c.File, c.Dir))
	if err := checkSource(c.File, s.o.Limits); err != nil {
		return nil, err
	}
	p := &prepared{lang: lang, real: c.File, env: parseEnv{prelude: s.prelude}, stubs: &stubDir{}}
	if p.odd, err = aliasOdd(&c); err != nil {
		return nil, err
	}
	if pchHeader(lang) != "" && s.prelude != "" {
		p.env.pch = s.pch(ctx, c, lang)
	}
	if err := s.preresolve(&c, &p.env, p.stubs, &p.found); err != nil {
		p.remove()
		return nil, fmt.Errorf("parsing %s: %w", c.File, err)
	}
	p.c = c
	return p, nil
}

func (p *prepared) remove() {
	p.stubs.remove()
	p.odd.remove()
}

// finish is the TU of a clang run that needs no other round, or why it gave none.
func (p *prepared) finish(run clangResult, diags []Diag, fatal *Diag) (*TU, error) {
	if err := parseFailure(run, diags, fatal, p.real, p.odd); err != nil {
		return nil, err
	}
	p.odd.restore(run.root, "")
	for i := range diags {
		diags[i].File = p.odd.name(diags[i].File)
		for j := range diags[i].Notes {
			diags[i].Notes[j].File = p.odd.name(diags[i].Notes[j].File)
		}
	}
	return &TU{File: p.real, Root: run.root, Errors: diags, ErrorsCut: run.stderrCut, Stubbed: p.stubs.names, Found: p.found}, nil
}

// firstFatal is the first fatal error among diags; nil for none.
func firstFatal(diags []Diag) *Diag {
	for i := range diags {
		if diags[i].Fatal {
			return &diags[i]
		}
	}
	return nil
}

// retry says whether a parse that stopped at fatal is to run again, and changes what the next
// round runs with: the prelude without its precompiled form, an include directory found in
// the project (found), the prelude's fallback headers, or a stub for a missing header.
func (s *Session) retry(c *Command, env *parseEnv, stubs *stubDir, found *[]string, fatal *Diag, round int) (bool, error) {
	if fatal != nil && env.pch != "" && badPCH(*fatal) {
		// A precompiled prelude clang will not load (a cached one another clang of the
		// same version wrote differently, say): the prelude itself, and none cached.
		s.dropPCH(env.pch)
		env.pch = ""
		return true, nil
	}
	if fatal != nil && round < maxStubRounds {
		if name := fatal.missingInclude(); name != "" {
			if dir := s.found(*c, name, *found); dir != "" {
				*found = append(*found, dir)
				c.Args = append(c.Args, "-I"+dir)
				return true, nil
			}
			if !env.fallback && s.prelude != "" {
				if _, err := os.Stat(filepath.Join(s.prelude, fallbackDir, filepath.FromSlash(name))); err == nil {
					env.fallback = true
					return true, nil
				}
			}
			if stubs.add(name) {
				return true, nil
			}
		}
	}
	return false, nil
}

// parseFailure is the error of a clang run that gave no tree to read: a ParseError with clang's
// first error line, or the reader's error; nil when the run gave one.
func parseFailure(run clangResult, diags []Diag, fatal *Diag, real string, odd alias) error {
	if fatal != nil || (run.waitErr != nil && len(diags) == 0) || run.root == nil {
		first := ""
		if fatal != nil {
			first = fatal.String()
		} else if f := firstError(run.stderr); f != "" {
			first = f
		} else if run.waitErr != nil {
			first = fmt.Sprintf("clang failed (%v) without an error line", run.waitErr)
		} else if run.readEr != nil {
			return fmt.Errorf("parsing %s: %w", real, run.readEr)
		}
		return &ParseError{File: real, Reason: odd.restore(nil, first)}
	}
	if run.readEr != nil {
		return fmt.Errorf("parsing %s: %w", real, run.readEr)
	}
	if run.readEr != nil {
		return fmt.Errorf("parsing %s: %w", real, run.readEr)
	}
	return nil
}

// found is the tree's directory for a missing header (findHeader), "" for none or one
// already tried.
func (s *Session) found(c Command, name string, tried []string) string {
	if s.FindHeader == nil || !c.Guess {
		return ""
	}
	dir := s.FindHeader(c.File, name)
	for _, t := range tried {
		if t == dir {
			return ""
		}
	}
	return dir
}

// pch is the precompiled prelude for a file's flags, built the first time a set of flags is
// met; "" when it cannot be built (the parse then includes the header itself, slower but
// the same).
func (s *Session) pch(ctx context.Context, c Command, lang Lang) string {
	env := parseEnv{prelude: s.prelude, building: true}
	flags := parseFlags(Command{Dir: c.Dir, Args: pchFlags(CompileFlags(c.Args, c.Dir))}, lang, s.o, env)
	key := strings.Join(flags, "\x00")
	s.mu.Lock()
	b := s.pchs[key]
	if b == nil {
		b = &pchBuild{}
		s.pchs[key] = b
	}
	s.mu.Unlock()
	b.once.Do(func() {
		sum := sha256.Sum256([]byte(key + "\x00" + pchHeader(lang) + "\x00" + pchInstantiate))
		out := filepath.Join(s.pchDir, "prelude-"+hex.EncodeToString(sum[:8])+".pch")
		if _, err := os.Stat(out); err == nil {
			b.path = out // made by an earlier run
			return
		}
		// Written beside its name and renamed: a run beside this one never loads half of it.
		tmp, err := os.CreateTemp(s.pchDir, ".prelude-*.pch")
		if err != nil {
			return
		}
		tmp.Close()
		args := append(append([]string{}, flags...), pchInstantiate, "-c", "-Xclang", "-emit-pch", "-o", tmp.Name(),
			filepath.Join(s.prelude, pchHeader(lang)))
		cmd := exec.CommandContext(ctx, s.driver, args...)
		cmd.Dir = c.Dir
		msg, err := cmd.CombinedOutput()
		if err == nil {
			err = os.Rename(tmp.Name(), out)
		}
		if err != nil {
			os.Remove(tmp.Name())
			if os.Getenv("ECHO_DEBUG_PCH") != "" {
				fmt.Fprintf(os.Stderr, "pch: %v: %s\n", err, msg)
			}
			return
		}
		b.path = out
	})
	return b.path
}

// pchInstantiate instantiates, once in the precompiled prelude, the templates the C++ headers
// use; without it every parse that loads the prelude instantiates them again at its end: a
// quarter of the CPU time of a small file's parse, 0.27 s against 0.20 s (issue 40). It is part of the prelude's cache key,
// so a prelude cached without it is not loaded.
const pchInstantiate = "-fpch-instantiate-templates"

// badPCH reports whether clang's fatal error is about the precompiled header it was given.
func badPCH(d Diag) bool {
	for _, w := range []string{"PCH file", "precompiled header", "AST file"} {
		if strings.Contains(d.Msg, w) {
			return true
		}
	}
	return false
}

// dropPCH forgets a precompiled prelude clang refused, and removes it so the next run builds
// it again.
func (s *Session) dropPCH(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range s.pchs {
		if b.path == path {
			b.path = ""
		}
	}
	os.Remove(path)
}

// notOwn are the directories whose files are the session's, never the project's: its
// temporary directory and the prelude's.
func (s *Session) notOwn() []string {
	out := []string{s.dir + string(filepath.Separator)}
	if s.prelude != "" {
		out = append(out, filepath.Dir(s.prelude)+string(filepath.Separator))
	}
	return out
}

// pchFlags are the build flags a precompiled prelude depends on: the macros and the language
// standard, not the include directories (the prelude includes only
// its own and the system's headers), so a tree's files share one.
func pchFlags(flags []string) []string {
	var out []string
	for i := 0; i < len(flags); i++ {
		f := flags[i]
		switch {
		case f == "-iquote" || f == "-isystem" || f == "-idirafter" || f == "-include" || f == "-imacros":
			// -include's file goes in after the prelude, never into it: a header of the
			// project's own in the precompiled prelude would not be dumped.
			i++
		case strings.HasPrefix(f, "-I"):
		default:
			out = append(out, f)
		}
	}
	return out
}
