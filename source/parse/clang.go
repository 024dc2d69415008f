package parse

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// TU is one parsed translation unit: the main file's top-level declarations (and its own
// headers'), each in full detail.
type TU struct {
	File string // the main file, absolute
	Root *Node  // the TranslationUnitDecl
	// Errors are the errors clang reported and recovered from: the AST is whole, but what a
	// function with an error in it (or calling one) does is not what its source says, so its
	// pairs are undecidable (broken.go); the rest of the file is analysed.
	Errors []Diag
	// ErrorsCut: clang reported more errors than were kept; every pair is undecidable.
	ErrorsCut bool
	// Stubbed are the headers the file includes that no include directory has, each parsed as
	// an empty file so the rest of the file still parses (stubs.go).
	Stubbed []string
	// Found are the directories of the tree added as -I for headers the file includes and
	// its flags did not find (a file with no compile command, Command.Guess).
	Found []string
}

// ParseError is what a file clang cannot parse yields: the analysis marks every pair in the
// file undecidable with Reason, clang's first error line.
type ParseError struct {
	File   string
	Reason string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("clang cannot parse %s: %s", e.File, e.Reason)
}

// ErrNoClang is returned when the clang driver cannot be run at all.
var ErrNoClang = errors.New("clang not found: install it (apt-get install clang) or name it with Options.Clang")

// Parse runs clang on one file and reads its AST as it is written. Declarations from the main
// file, from files beside it or below its directory, and from the -I and -iquote directories
// the command names are kept (the project's own headers); the rest (system headers, the
// prelude, the runtime headers) is read past. A header no directory has is parsed as an empty
// one (TU.Stubbed), and errors clang recovers from are kept (TU.Errors); a file whose parse
// still stops short (a fatal error, a crash) is a *ParseError.
func Parse(ctx context.Context, c Command, o Options) (*TU, error) {
	s, err := NewSession(o)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	return s.Parse(ctx, c)
}

// clangResult is what one run of clang gave: the AST as far as it was read, the diagnostics,
// and how the process and the reader ended.
type clangResult struct {
	root            *Node
	stderr          []byte
	stderrCut       bool
	waitErr, readEr error
}

// runClang runs clang once with args, under the limits (limits.go), and reads the dump as it is
// written. Files under notOwn (the session's prelude and stubs) are never the project's own,
// wherever the file is. A run past a limit is a *LimitError.
func runClang(ctx context.Context, driver string, c Command, args []string, notOwn []string, o Options) (clangResult, error) {
	l := o.Limits
	run := newClangRun(ctx, c.File, 1, o)
	stderr := &headBuffer{max: 1 << 20}
	cmd, dump, err := run.startClang(driver, args, c.Dir, stderr)
	if err != nil {
		return clangResult{}, fmt.Errorf("parsing %s: %w", c.File, err)
	}
	root, readErr := readAST(dump, keepOwn(c, notOwn), l.nodes(), l.output())
	run.stopIfOver(readErr)
	io.Copy(io.Discard, dump) // clang blocks on a full pipe if the reader stopped early
	waitErr := cmd.Wait()
	over := run.exceeded(waitErr, readErr, stderr.Bytes())
	if ctx.Err() != nil {
		return clangResult{}, fmt.Errorf("parsing %s: %w", c.File, ctx.Err())
	}
	if over != nil {
		return clangResult{}, over
	}
	return clangResult{root: root, stderr: stderr.Bytes(), stderrCut: stderr.cut, waitErr: waitErr, readEr: readErr}, nil
}

// keepOwn is what the reader keeps of c's dump: its own files (ownFiles), never those under
// notOwn.
func keepOwn(c Command, notOwn []string) func(string) bool {
	own := ownFiles(c)
	return func(f string) bool {
		for _, d := range notOwn {
			if strings.HasPrefix(f, d) {
				return false
			}
		}
		return own(f)
	}
}

// ownFiles accepts the main file, the files in or below its directory, and the files in or
// below the directories the build's -I and -iquote flags name.
func ownFiles(c Command) func(string) bool {
	dirs := append([]string{filepath.Dir(c.File)}, c.Own...)
	flags := CompileFlags(c.Args, c.Dir)
	for i, f := range flags {
		switch {
		case f == "-iquote" && i+1 < len(flags):
			dirs = append(dirs, flags[i+1])
		case strings.HasPrefix(f, "-I"):
			dirs = append(dirs, f[2:])
		}
	}
	for i := range dirs {
		dirs[i] = filepath.Clean(dirs[i]) + string(filepath.Separator)
	}
	return func(file string) bool {
		if file == c.File {
			return true
		}
		for _, d := range dirs {
			if strings.HasPrefix(file, d) {
				return true
			}
		}
		return false
	}
}

// headBuffer keeps the first max bytes written to it: clang's first error is at the start, and
// a file with thousands of errors must not fill memory.
type headBuffer struct {
	bytes.Buffer
	max int
	cut bool // more was written than kept
}

func (h *headBuffer) Write(p []byte) (int, error) {
	room := h.max - h.Len()
	if room > 0 {
		h.Buffer.Write(p[:min(room, len(p))])
	}
	if len(p) > room {
		h.cut = true
	}
	return len(p), nil
}
