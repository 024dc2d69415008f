package parse

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// A file whose path is not UTF-8 (any byte string is a Unix file name) cannot be followed
// through clang's JSON dump: clang writes JSON strings as UTF-8 and replaces the other bytes,
// so no location names the file and the file looked as if it had no code ("no pattern"). Such
// a file is parsed through links with UTF-8 names in a directory of its own, and the dump's
// names are turned back into the real ones.

// alias is a file's stand-in names for one clang run; the zero value stands in for nothing.
type alias struct {
	dir  string            // the temporary directory holding the links; "" for none
	real map[string]string // stand-in path or directory prefix -> real one
}

// aliasOdd points c at UTF-8 stand-ins when its file's path is not UTF-8: the file through a
// link (with its extension, which picks the language), its directory through another, put on
// the quote include path so that `#include "x.h"` beside it is still found.
func aliasOdd(c *Command) (alias, error) {
	if utf8.ValidString(c.File) {
		return alias{}, nil
	}
	tmp, err := os.MkdirTemp("", "echo-source-")
	if err != nil {
		return alias{}, fmt.Errorf("parsing %s: %w", c.File, err)
	}
	a := alias{dir: tmp, real: map[string]string{}}
	dir, base := filepath.Split(c.File)
	dir = filepath.Clean(dir)
	dirLink := filepath.Join(tmp, "dir")
	fileLink := filepath.Join(dirLink, base)
	if !utf8.ValidString(base) {
		fileLink = filepath.Join(tmp, "file"+filepath.Ext(strings.ToValidUTF8(base, "")))
	}
	for link, target := range map[string]string{dirLink: dir, fileLink: c.File} {
		if link == filepath.Join(dirLink, base) && target == c.File {
			continue // reached through the directory's link
		}
		if err := os.Symlink(target, link); err != nil {
			a.remove()
			return alias{}, fmt.Errorf("parsing %s: %w", c.File, err)
		}
	}
	a.real[fileLink] = c.File
	a.real[dirLink+string(filepath.Separator)] = dir + string(filepath.Separator)
	c.File = fileLink
	c.Args = append(c.Args, "-iquote", dirLink)
	return a, nil
}

func (a alias) remove() {
	if a.dir != "" {
		os.RemoveAll(a.dir)
	}
}

// name is the real name of a file the dump names, as is where it is no stand-in.
func (a alias) name(file string) string {
	if r, ok := a.real[file]; ok {
		return r
	}
	for from, to := range a.real {
		if strings.HasSuffix(from, string(filepath.Separator)) && strings.HasPrefix(file, from) {
			return to + file[len(from):]
		}
	}
	return file
}

// restore gives every location in the tree its real file name, and a message naming a
// stand-in the real name.
func (a alias) restore(root *Node, msg string) string {
	if a.dir == "" {
		return msg
	}
	names := map[string]string{}
	var loc func(l *Loc)
	loc = func(l *Loc) {
		if l.File != "" {
			n, ok := names[l.File]
			if !ok {
				n = a.name(l.File)
				names[l.File] = n
			}
			l.File = n
		}
		if l.Spelling != nil {
			loc(l.Spelling)
		}
	}
	var walk func(n *Node)
	walk = func(n *Node) {
		loc(&n.Loc)
		loc(&n.Range.Begin)
		loc(&n.Range.End)
		for _, c := range n.Inner {
			walk(c)
		}
	}
	if root != nil {
		walk(root)
	}
	for from, to := range a.real {
		msg = strings.ReplaceAll(msg, from, to)
	}
	return msg
}
