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

// failed is the error of the write that failed, without the file name (/dev/stdout) a
// PathError carries: the user knows standard output by that name.
func (s *stdout) failed() error {
	err := s.err
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		err = pe.Err
	}
	return fmt.Errorf("writing standard output: %w", err)
}

// programOut is where a program echoctl starts writes its standard output: the file itself
// behind echoctl's stdout, so that the program inherits the descriptor (a terminal stays a
// terminal) rather than a pipe echoctl copies from.
func programOut(w io.Writer) io.Writer {
	if s, ok := w.(*stdout); ok {
		return s.f
	}
	return w
}
