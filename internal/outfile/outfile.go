// Package outfile writes a command's output file the way a careful Unix tool does: "-" is
// standard output; a symbolic link is followed and its target written; a device, FIFO or
// socket is written in place (as root, -o /dev/null must stay /dev/null); a regular file is
// written to a temporary file beside it and renamed over it only once complete, keeping the
// old file's permissions, so that a failed or interrupted command leaves what was there.
package outfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/echo-uma/echo/internal/scratch"
)

// Stdout is the path that names standard output.
const Stdout = "-"

// File is an output being written. Write to it, then Commit or Abort (Abort after Commit
// does nothing, so `defer f.Abort()` is safe).
type File struct {
	w      io.Writer
	f      *os.File // the file written: the temporary one, or the target in place; nil for stdout
	path   string   // the target, symlinks resolved
	tmp    string   // the temporary file, renamed over path on Commit; "" when written in place
	mode   fs.FileMode
	owner  *syscall.Stat_t // the replaced file's owner, kept when root replaces it
	closed bool
	// edit: the replaced file's owner must be kept, and check must pass just before the
	// rename (Edit).
	edit  bool
	check func() error
}

// Create starts writing the output at path; stdout is where "-" goes.
func Create(path string, stdout io.Writer) (*File, error) {
	if path == Stdout {
		return &File{w: stdout, path: path}, nil
	}
	// What is not a regular file is opened by the name given, through the kernel's own link
	// walk: /dev/stdout names fd 1 by a /proc link whose text ("pipe:[…]") is not a path.
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, failed(path, err)
		}
		return &File{w: f, f: f, path: path}, nil
	}
	target, err := resolve(path)
	if err != nil {
		return nil, failed(path, err)
	}
	return beside(path, target)
}

// beside starts writing target (path, links resolved) through a temporary file beside it.
func beside(path, target string) (*File, error) {
	st, err := os.Stat(target)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, failed(path, err)
	}
	// .NAME.PID-RANDOM.tmp, locked while this process writes it: one that a SIGKILL left
	// behind goes at the next write of NAME.
	tmp, err := scratch.File(filepath.Dir(target), "."+filepath.Base(target)+".", ".tmp")
	if err != nil {
		return nil, failed(path, err)
	}
	out := &File{w: tmp, f: tmp, path: target, tmp: tmp.Name(), mode: 0o644}
	if st != nil {
		out.mode = st.Mode().Perm()
		out.owner, _ = st.Sys().(*syscall.Stat_t)
	}
	return out, nil
}

// resolve follows symbolic links to the file they name, even one that does not exist yet
// (a dangling link is written through, as a shell's redirection would).
func resolve(path string) (string, error) {
	for range 40 {
		st, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) || err == nil && st.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		if err != nil {
			return "", err
		}
		link, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(path), link)
		}
		path = link
	}
	return "", errors.New("too many levels of symbolic links")
}

func (o *File) Write(p []byte) (int, error) { return o.w.Write(p) }

// Name is the file being written: the temporary file until Commit, or the target written
// in place; "-" for stdout. A command that reads back what it wrote before deciding to keep
// it (optimize plans from its trace) opens this.
func (o *File) Name() string {
	if o.tmp != "" {
		return o.tmp
	}
	return o.path
}

// OS is the open file, for what only a file can do (Truncate, Sync); nil for stdout.
func (o *File) OS() *os.File { return o.f }

// Commit makes the output final: a regular file is synced and renamed over the target.
func (o *File) Commit() error {
	if o.closed {
		return failed(o.path, errors.New("already closed"))
	}
	o.closed = true
	if o.f == nil {
		return nil
	}
	if o.tmp == "" {
		return o.f.Close()
	}
	err := o.f.Chmod(o.mode) // CreateTemp makes 0600
	if o.owner != nil && (os.Geteuid() == 0 || o.edit) {
		cerr := o.f.Chown(int(o.owner.Uid), int(o.owner.Gid))
		if o.edit && err == nil {
			err = keptOwner(o.f, o.owner, cerr)
		}
	}
	if err == nil {
		err = o.f.Sync()
	}
	if cerr := o.f.Close(); err == nil {
		err = cerr
	}
	if err == nil && o.check != nil {
		err = o.check()
	}
	if err == nil {
		err = os.Rename(o.tmp, o.path)
	}
	if err != nil {
		os.Remove(o.tmp)
		return failed(o.path, err)
	}
	return nil
}

// Abort gives the output up: a temporary file is removed and the target left as it was.
func (o *File) Abort() {
	if o.closed {
		return
	}
	o.closed = true
	if o.f != nil {
		o.f.Close()
	}
	if o.tmp != "" {
		os.Remove(o.tmp)
	}
}

// WriteFile writes data to path as a whole (Create, Write, Commit).
func WriteFile(path string, data []byte, stdout io.Writer) error {
	o, err := Create(path, stdout)
	if err != nil {
		return err
	}
	if _, err := o.Write(data); err != nil {
		o.Abort()
		return failed(path, err)
	}
	return o.Commit()
}

// NotAnInput fails when the output path names an input of the command (what: "the trace",
// "the program"), through any link: writing there would destroy what the command works from.
func NotAnInput(output, what, input string) error {
	if output == Stdout || input == "" {
		return nil
	}
	out, err := os.Stat(output)
	if err != nil {
		return nil // not there yet: no input either
	}
	if in, err := os.Stat(input); err == nil && os.SameFile(out, in) {
		return fmt.Errorf("-o %s is %s itself: give another output file", output, what)
	}
	return nil
}

// failed is an error of writing path, without the temporary file's name a PathError carries.
func failed(path string, err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		err = pe.Err
	}
	return fmt.Errorf("writing %s: %w", path, err)
}
