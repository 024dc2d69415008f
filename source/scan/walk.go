package scan

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"

	"github.com/echo-uma/echo/internal/infile"
	"github.com/echo-uma/echo/source/parse"
)

// The survey's walk of a tree from anywhere. It follows links whose target lies in the tree
// (a file reached by two names is scanned once, under its own name; a link to a directory
// already walked, its ancestors included, is a loop or a second name and is not walked again),
// names the links that lead out of the tree or nowhere instead of following them, and goes on
// past what it cannot read: a directory it may not enter, a path longer than the system takes
// (PATH_MAX), a translation unit that is a FIFO or a device. Each of those is one
// Survey.Unwalked entry, so a scan of a tree with one bad corner still reports the rest.

// Unwalked is a part of the tree the walk could not go into, and why.
type Unwalked struct {
	Path string // relative to the scanned directory
	Why  string
}

type fileID struct{ dev, ino uint64 }

func idOf(st fs.FileInfo) (fileID, bool) {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{uint64(sys.Dev), sys.Ino}, true
}

type walker struct {
	root  string
	s     *Survey
	dirs  map[fileID]bool
	seen  map[fileID]bool
	links []string // links inside the tree, followed once the real names are all walked
	files []string
}

// walkSources lists the translation units under root (absolute, links resolved) in lexical
// order, recording the directories it walked past by name in s.Skipped and what it could not
// walk in s.Unwalked.
func walkSources(root string, s *Survey) []string {
	w := &walker{root: root, s: s, dirs: map[fileID]bool{}, seen: map[fileID]bool{}}
	if st, err := os.Stat(root); err == nil {
		if id, ok := idOf(st); ok {
			w.dirs[id] = true
		}
	}
	w.dir(root)
	// Links last, so that a file or directory reachable by its own name is listed by it.
	for len(w.links) > 0 {
		link := w.links[0]
		w.links = w.links[1:]
		w.link(link)
	}
	sort.Strings(w.files)
	return w.files
}

func (w *walker) rel(path string) string {
	if r, err := filepath.Rel(w.root, path); err == nil {
		return r
	}
	return path
}

func (w *walker) unwalked(path, why string) {
	w.s.Unwalked = append(w.s.Unwalked, Unwalked{Path: w.rel(path), Why: why})
}

// dir walks one directory (not through a link: that is link's).
func (w *walker) dir(path string) {
	entries, err := os.ReadDir(path)
	if err != nil && len(entries) == 0 {
		w.unwalked(path, walkError(err))
		return
	}
	for _, e := range entries {
		p := filepath.Join(path, e.Name())
		switch t := e.Type(); {
		case t&fs.ModeSymlink != 0:
			w.links = append(w.links, p)
		case t.IsDir():
			w.subdir(p, e.Name())
		default:
			w.file(p, e.Name())
		}
	}
}

// subdir walks a directory found at path (its own name, or a link's) unless its name is
// walked past or it was walked already.
func (w *walker) subdir(path, name string) {
	if parse.SkippedDir(name) {
		w.s.Skipped = append(w.s.Skipped, w.rel(path))
		return
	}
	st, err := os.Stat(path)
	if err != nil {
		w.unwalked(path, walkError(err))
		return
	}
	if id, ok := idOf(st); ok {
		if w.dirs[id] {
			return // walked under another name
		}
		w.dirs[id] = true
	}
	w.dir(path)
}

// file lists a translation unit found at path.
func (w *walker) file(path, name string) {
	if !scanExt(name) {
		return
	}
	st, err := os.Stat(path)
	switch {
	case err != nil:
		w.unwalked(path, walkError(err))
		return
	case !st.Mode().IsRegular():
		w.unwalked(path, "not a regular file (a "+infile.Kind(st.Mode())+"): not parsed")
		return
	}
	if id, ok := idOf(st); ok {
		if w.seen[id] {
			return
		}
		w.seen[id] = true
	}
	w.files = append(w.files, path)
}

// link follows a link whose target lies in the tree.
func (w *walker) link(path string) {
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		if _, serr := os.Stat(path); serr != nil {
			err = serr // the system's error (ELOOP, ENOENT); EvalSymlinks words its own
		}
		if scanExt(path) || errors.Is(err, syscall.ELOOP) {
			w.unwalked(path, "a link: "+walkError(err))
		}
		return
	}
	if st, err := os.Stat(target); err == nil && !st.IsDir() && !scanExt(path) {
		return // not a translation unit by its name: nothing to say
	}
	if !parse.Within(target, w.root) {
		w.unwalked(path, "a link out of the tree ("+parse.QuotePath(target)+"): not followed")
		return
	}
	st, err := os.Stat(target)
	if err != nil {
		w.unwalked(path, walkError(err))
		return
	}
	if st.IsDir() {
		if id, ok := idOf(st); ok && w.dirs[id] && parse.Within(path, target) {
			w.unwalked(path, "a link loop (to "+parse.QuotePath(w.rel(target))+"): not followed")
			return
		}
		w.subdir(path, filepath.Base(path))
		return
	}
	w.file(path, filepath.Base(path))
}

// walkError says why a path could not be walked, in words a table can hold.
func walkError(err error) string {
	switch {
	case errors.Is(err, fs.ErrPermission):
		return "permission denied: not walked"
	case errors.Is(err, syscall.ENAMETOOLONG):
		return "path too long for the system (PATH_MAX): not walked"
	case errors.Is(err, syscall.ELOOP):
		return "a link loop: not followed"
	case errors.Is(err, fs.ErrNotExist):
		return "leads nowhere: not followed"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error() + ": not walked"
	}
	return err.Error()
}
