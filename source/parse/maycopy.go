package parse

import (
	"bytes"
	"path/filepath"
	"strings"
)

// What a survey need not parse: a translation unit that cannot hold a copy. The analysis finds
// a copy only in a call of cudaMemcpy or cudaMemcpyAsync in the project's own code (rules'
// copy sites), and a name the preprocessor writes is written in the text too, in a macro's
// body, unless ## pastes it together. So where neither "cudaMemcpy" nor "##" is in a unit's
// text, nor in that of any file of the tree it includes (through their includes), nor in its
// command's defines, its parse finds no copy and no pair: a third of HeCBench's CUDA files,
// and about a quarter of a survey's time (issue 40).
//
// What is not read: headers outside the tree (the system's, the CUDA toolkit's, a library's
// or a sibling project's through -I). A copy written there, in a macro or an inline function
// the unit uses, is one this does not see; `echoctl scan --parse-all` parses every file.

// copyWords are what a text must have to write a copy.
var copyWords = [][]byte{[]byte("cudaMemcpy"), []byte("##")}

func writesCopy(b []byte) bool {
	for _, w := range copyWords {
		if bytes.Contains(b, w) {
			return true
		}
	}
	return false
}

// MayCopy reports whether a parse of c's file could find a copy: the file, a file of the tree
// it includes (found beside its includer, in the command's include directories, or by name in
// the tree, as a survey's -I would find it), a file the command includes first (-include), or
// a define of the command writes one. A file that cannot be read may. Not safe for concurrent
// use.
func (t *TreeIndex) MayCopy(c Command) bool {
	dirs, firsts := t.includeDirs(c.Args)
	for _, a := range c.Args {
		if strings.HasPrefix(a, "-D") && writesCopy([]byte(a)) {
			return true
		}
	}
	may := false
	for _, f := range append([]string{c.File}, firsts...) {
		t.includes(f)
		may = may || t.copies[f]
		t.reach(f, true, dirs, func(p string) {
			t.includes(p)
			may = may || t.copies[p]
		})
	}
	return may
}

// includeDirs are the directories of the tree a command's flags search for headers, and the
// files its -include and -imacros flags include ahead of the file. Directories outside the
// tree are left out (the system's and libraries' headers are not read); files are kept
// wherever they are.
func (t *TreeIndex) includeDirs(args []string) (dirs, firsts []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case (a == "-include" || a == "-imacros") && i+1 < len(args):
			i++
			firsts = append(firsts, args[i])
		case (a == "-iquote" || a == "-isystem" || a == "-idirafter") && i+1 < len(args):
			i++
			dirs = t.appendInTree(dirs, args[i])
		case strings.HasPrefix(a, "-I") && len(a) > 2:
			dirs = t.appendInTree(dirs, a[2:])
		}
	}
	return dirs, firsts
}

func (t *TreeIndex) appendInTree(dirs []string, dir string) []string {
	if rel, err := filepath.Rel(t.root, dir); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return append(dirs, dir)
	}
	return dirs
}
