package source

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
)

// TU is one parsed translation unit: the main file's top-level declarations (and its own
// headers'), each in full detail.
type TU struct {
	File string // the main file, absolute
	Root *Node  // the TranslationUnitDecl
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
// prelude, the runtime headers) is read past.
func Parse(ctx context.Context, c Command, o Options) (*TU, error) {
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
	var prelude string
	if lang == LangCUDA && o.CUDAPath == "" {
		if o.RuntimeHeaders == "" {
			return nil, fmt.Errorf("parsing %s: no CUDA headers: give a CUDA installation (--cuda-path) or a directory with cuda_runtime.h", c.File)
		}
		p, remove, err := writePrelude()
		if err != nil {
			return nil, err
		}
		defer remove()
		prelude = p
	}
	driver := o.Clang
	if driver == "" {
		driver = "clang"
	}
	if _, err := exec.LookPath(driver); err != nil {
		return nil, fmt.Errorf("parsing %s: %w", c.File, ErrNoClang)
	}
	if err := checkSource(c.File, o.Limits); err != nil {
		return nil, err
	}
	real := c.File
	odd, err := aliasOdd(&c)
	if err != nil {
		return nil, err
	}
	defer odd.remove()
	args := clangArgs(c, lang, o, prelude)
	run := newClangRun(ctx, real, o.Limits)
	cmd := exec.CommandContext(run.timed, driver, args...)
	run.prepare(cmd)
	cmd.Dir = c.Dir
	stderr := &headBuffer{max: 64 << 10}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %w", c.File, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("parsing %s: starting clang: %w", c.File, err)
	}
	dump := run.start(cmd, out)
	root, readErr := readAST(dump, ownFiles(c), o.Limits.nodes())
	run.stopIfOver(readErr)
	io.Copy(io.Discard, dump) // clang blocks on a full pipe if the reader stopped early
	waitErr := cmd.Wait()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("parsing %s: %w", c.File, ctx.Err())
	}
	if err := run.exceeded(waitErr, readErr, stderr.Bytes()); err != nil {
		return nil, err
	}
	if first := firstError(stderr.Bytes()); first != "" || waitErr != nil {
		if first == "" {
			first = fmt.Sprintf("clang failed (%v) without an error line", waitErr)
		}
		return nil, &ParseError{File: real, Reason: odd.restore(nil, first)}
	}
	if readErr != nil {
		return nil, fmt.Errorf("parsing %s: %w", real, readErr)
	}
	odd.restore(root, "")
	return &TU{File: real, Root: root}, nil
}

// ownFiles accepts the main file, the files in or below its directory, and the files in or
// below the directories the build's -I and -iquote flags name.
func ownFiles(c Command) func(string) bool {
	dirs := []string{filepath.Dir(c.File)}
	flags := buildFlags(c.Args, c.Dir)
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

// firstError is clang's first error line ("file:line:col: error: …", "fatal error: …", or the
// driver's "clang: error: …"), trimmed; "" when there is none.
func firstError(stderr []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(stderr))
	sc.Buffer(make([]byte, 0, 4096), len(stderr)+1)
	for sc.Scan() {
		line := sc.Text()
		if strings.Contains(line, "error: ") {
			return strings.TrimSpace(line)
		}
	}
	return ""
}

// headBuffer keeps the first max bytes written to it: clang's first error is at the start, and
// a file with thousands of errors must not fill memory.
type headBuffer struct {
	bytes.Buffer
	max int
}

func (h *headBuffer) Write(p []byte) (int, error) {
	if room := h.max - h.Len(); room > 0 {
		h.Buffer.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
