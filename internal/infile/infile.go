// Package infile opens a command's input files (traces, plans, calibration records) so that
// a name that is no file cannot hang the command: a FIFO, a terminal or a device is refused
// with an error instead of blocking in open(2) for a writer that never comes, where no
// signal echoctl handles could reach it.
package infile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"

	"golang.org/x/sys/unix"
)

// ErrNotRegular is the error of an input that is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// Open opens path for reading if it is a regular file. It opens without blocking and checks
// what it opened (a check before the open would race a swap of the file); a regular file
// ignores the non-blocking flag, so what is returned reads as os.Open's would.
func Open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path,
			Err: fmt.Errorf("%w (a %s): give the file itself, echoctl reads its inputs whole", ErrNotRegular, Kind(st.Mode()))}
	}
	return f, nil
}

// ReadFile is os.ReadFile through Open.
func ReadFile(path string) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(f, math.MaxInt64)
}

// ReadAll reads r to its end or to limit bytes, as io.ReadAll of an io.LimitReader does, but
// into one allocation where r is a regular file: io.ReadAll grows its buffer from 512 bytes,
// copying a file of megabytes a dozen times, which `echoctl run` pays before the program
// starts (a 1.6 MB plan).
func ReadAll(r io.Reader, limit int64) ([]byte, error) {
	var size int64
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			size = min(st.Size(), limit)
		}
	}
	var buf bytes.Buffer
	buf.Grow(int(size) + bytes.MinRead)
	_, err := buf.ReadFrom(io.LimitReader(r, limit))
	return buf.Bytes(), err
}

// Kind names what a file that is not a regular one is: "FIFO", "character device", …
func Kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "block device"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m.IsDir():
		return "directory"
	}
	return m.Type().String()
}
