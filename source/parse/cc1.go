package parse

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// A batch (batch.go) runs clang's compiler job, `clang -cc1`, itself: the driver runs the job
// inside its own process only when there is one, and starts a process for each when there are
// more, so `clang a.cu b.cu` pays clang's start (its libraries' relocation, about 0.15 s of
// CPU) once a file; `clang -cc1 … a.cu b.cu` parses the files one after another in one process.
// The job's command line is the one the driver would run for the batch's first file: the
// driver prints it (-###) and the file is taken off its end.

// cc1Job is the compiler job's command line for a batch of files the driver would run with
// args (clangArgs with the file last): the program and its flags, files to be appended; nil
// when the driver does not run exactly one job whose last argument is the file.
func (s *Session) cc1Job(ctx context.Context, dir string, args []string) []string {
	key := dir + "\x00" + strings.Join(args[:len(args)-1], "\x00")
	s.mu.Lock()
	if s.cc1s == nil {
		s.cc1s = map[string][]string{}
	}
	job, ok := s.cc1s[key]
	s.mu.Unlock()
	if ok {
		return job
	}
	cmd := exec.CommandContext(ctx, s.driver, append([]string{"-###"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err == nil {
		job = jobLine(out, args[len(args)-1])
	}
	if job != nil {
		job = s.withMarker(job)
	}
	s.mu.Lock()
	s.cc1s[key] = job
	s.mu.Unlock()
	return job
}

// jobLine is the one job the driver printed for -###, without its last argument (file); nil
// for none, several, or one that does not end with file.
func jobLine(out []byte, file string) []string {
	var job []string
	for _, line := range strings.Split(string(out), "\n") {
		if !strings.HasPrefix(line, ` "`) {
			continue // the driver's version, target and installation lines
		}
		if job != nil {
			return nil
		}
		job = splitQuoted(line)
	}
	if len(job) < 3 || job[1] != "-cc1" || job[len(job)-1] != file {
		return nil
	}
	job = job[:len(job)-1]
	// -disable-free leaves each file's AST allocated at its end, for a process about to exit:
	// in a batch they would add up. Freeing it changes nothing the dump says.
	kept := job[:0]
	for _, a := range job {
		if a != "-disable-free" {
			kept = append(kept, a)
		}
	}
	return kept
}

// splitQuoted splits a job line as the driver prints it: each argument in double quotes, with
// `"`, `\` and `$` escaped by a backslash (llvm::sys::printArg).
func splitQuoted(line string) []string {
	var out []string
	var cur strings.Builder
	in, esc := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case esc:
			cur.WriteByte(c)
			esc = false
		case in && c == '\\':
			esc = true
		case c == '"':
			if in {
				out = append(out, cur.String())
				cur.Reset()
			}
			in = !in
		case in:
			cur.WriteByte(c)
		}
	}
	if in {
		return nil
	}
	return out
}

// markerHeader is included first into every file of a batch: its one diagnostic, a warning
// the file's own flags leave off (-Wno-everything) and that the header turns on for its own
// line only, starts the file's diagnostics on clang's standard error, so that each file's
// errors are told from the next one's. It declares nothing: the file's AST is unchanged.
const markerHeader = `#pragma clang diagnostic push
#pragma clang diagnostic warning "-W#pragma-messages"
#pragma message "` + markerText + `"
#pragma clang diagnostic pop
`

const markerText = "echo: next file"

// withMarker puts the marker header before the file's own forced includes (after the
// precompiled prelude, which clang loads first wherever it is named).
func (s *Session) withMarker(job []string) []string {
	s.markerOnce.Do(func() {
		path := filepath.Join(s.dir, "echo_next_file.h")
		if os.WriteFile(path, []byte(markerHeader), 0o644) == nil {
			s.marker = path
		}
	})
	if s.marker == "" {
		return nil
	}
	at := len(job)
	for i, a := range job {
		if a == "-include" {
			at = i
			break
		}
	}
	out := append(append(append([]string{}, job[:at]...), "-include", s.marker), job[at:]...)
	return out
}

// isMarker reports whether a line of clang's standard error is the marker's diagnostic.
func (s *Session) isMarker(line []byte) bool {
	return bytes.HasPrefix(line, []byte(s.marker+":")) && bytes.HasSuffix(bytes.TrimSpace(line), []byte(fmt.Sprintf("warning: %s [-W#pragma-messages]", markerText)))
}
