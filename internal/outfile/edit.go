package outfile

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/echo-uma/echo/internal/infile"
)

// Errors of Edit that leave the file as it was; each says what to do.
var (
	// ErrChanged: the file no longer holds what the caller read and decided from.
	ErrChanged = errors.New("it changed since echoctl read it")
	// ErrHardLinks: the file has other names.
	ErrHardLinks = errors.New("it has other hard links")
	// ErrOutside: a symbolic link names a file outside the tree the caller allows.
	ErrOutside = errors.New("it is a link to a file outside the project")
	// ErrOwner: the new file could not be given the old one's owner and group.
	ErrOwner = errors.New("its owner cannot be kept")
)

// Edit replaces the contents of the existing regular file at path with data, as a careful
// editor saves a user's file:
//   - through a temporary file beside it, renamed over it only once complete, so that a
//     failure or an interrupt leaves the file as it was and no temporary file;
//   - only if the file still holds was, compared just before the rename (ErrChanged): an
//     edit made while the caller worked is never overwritten;
//   - a symbolic link is written through to the file it names when that lies within dir (with
//     links resolved), and refused otherwise (ErrOutside); "" allows anywhere;
//   - the file keeps its permissions, owner and group (as root, the new file is given them
//     before the rename); where they cannot be kept the file is left (ErrOwner);
//   - a file with more than one hard link is left (ErrHardLinks): the rename would give this
//     name the new contents and leave the other names the old ones, and writing in place
//     would leave every name half-written if interrupted.
//
// Between the last comparison and the rename an edit can still slip in: the window is one
// rename(2), where an editor's own save has the same one.
func Edit(path string, data, was []byte, dir string) error {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return failed(path, err)
	}
	if dir != "" && real != path && !inside(real, dir) {
		return fmt.Errorf("writing %s: %w (%s, outside %s): edit that file by its own name", path, ErrOutside, real, dir)
	}
	st, err := os.Lstat(real)
	if err != nil {
		return failed(path, err)
	}
	sys, _ := st.Sys().(*syscall.Stat_t)
	switch {
	case !st.Mode().IsRegular():
		return fmt.Errorf("writing %s: %w", path, infile.ErrNotRegular)
	case sys != nil && sys.Nlink > 1:
		return fmt.Errorf("writing %s: %w (%d names): apply the patch with a tool of your choice, or break the links first", path, ErrHardLinks, sys.Nlink)
	}
	o, err := beside(path, real)
	if err != nil {
		return err
	}
	defer o.Abort()
	o.edit = true
	o.check = func() error { return unchanged(real, st, was) }
	if _, err := o.Write(data); err != nil {
		return failed(path, err)
	}
	if err := o.Commit(); err != nil {
		return fmt.Errorf("writing %s: %w", path, errors.Unwrap(err))
	}
	return nil
}

// unchanged fails with ErrChanged unless the file at path is still the one read (the same
// inode) and holds was.
func unchanged(path string, read os.FileInfo, was []byte) error {
	f, err := infile.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !os.SameFile(st, read) || st.Size() != int64(len(was)) {
		return fmt.Errorf("%w: run echoctl again on the file as it is now", ErrChanged)
	}
	now, err := infile.ReadAll(f, int64(len(was))+1)
	if err != nil {
		return err
	}
	if !bytes.Equal(now, was) {
		return fmt.Errorf("%w: run echoctl again on the file as it is now", ErrChanged)
	}
	return nil
}

// keptOwner fails with ErrOwner unless the written file f has owner's user and group; chownErr
// is why giving them failed, if it did.
func keptOwner(f *os.File, owner *syscall.Stat_t, chownErr error) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if now, ok := st.Sys().(*syscall.Stat_t); ok && now.Uid == owner.Uid && now.Gid == owner.Gid {
		return nil
	}
	why := "run echoctl as that user"
	if chownErr != nil {
		why = fmt.Sprintf("%v; run echoctl as that user", errors.Unwrap(chownErr))
	}
	return fmt.Errorf("%w (user %d, group %d): %s", ErrOwner, owner.Uid, owner.Gid, why)
}

// inside reports whether path (links resolved) lies within dir (links resolved).
func inside(path, dir string) bool {
	d, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(d, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
