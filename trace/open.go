package trace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/echo-uma/echo/internal/infile"
)

// File is a trace file opened for reading: its Reader, past the checked header, and the
// file to close once read.
type File struct {
	*Reader
	f *os.File
}

// Open opens the trace file at path (a regular file or a pipe: infile's rules) and reads its
// header. Its errors name the path once and say which step failed, as every command that
// reads a trace words them.
func Open(path string) (*File, error) {
	f, err := infile.Open(path)
	if err != nil {
		if pe, ok := errors.AsType[*fs.PathError](err); ok {
			err = pe.Err // the path is in our message already
		}
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	r, err := NewReader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return &File{Reader: r, f: f}, nil
}

// Close closes the file.
func (t *File) Close() error { return t.f.Close() }
