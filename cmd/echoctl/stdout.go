package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// stdout is standard output as echoctl prints to it: it keeps the first write that failed,
// so that a command whose output was lost (a full disk, /dev/full) ends with an error
// instead of status 0, whichever printer dropped the error on the way (cobra's help among
// them).
type stdout struct {
	f   *os.File
	err error
}

func (s *stdout) Write(p []byte) (int, error) {
	n, err := s.f.Write(p)
	if err != nil && s.err == nil {
		s.err = err
	}
	return n, err
}

// Fd, Read and Close make stdout a terminal's file to those who ask (lipgloss's colour
// detection, attach's live view): they look for the descriptor to tell a terminal from a pipe.
// Close leaves standard output open for what is still to be printed.
func (s *stdout) Fd() uintptr                { return s.f.Fd() }
func (s *stdout) Read(p []byte) (int, error) { return s.f.Read(p) }
func (s *stdout) Close() error               { return nil }

// failed is the error of the write that failed, without the file name (/dev/stdout) a
// PathError carries: the user knows standard output by that name.
func (s *stdout) failed() error {
	err := s.err
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		err = pe.Err
	}
	return fmt.Errorf("writing standard output: %w", err)
}

// stdoutFile is the file behind echoctl's stdout, for what handles its own write errors: a
// program echoctl starts inherits the descriptor itself (a terminal stays a terminal, not
// a pipe echoctl copies from), and the tracer stops recording on a full disk or a closed
// pipe and lets the program finish.
func stdoutFile(w io.Writer) io.Writer {
	if s, ok := w.(*stdout); ok {
		return s.f
	}
	return w
}
