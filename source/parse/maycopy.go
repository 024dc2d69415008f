package parse

import (
	"bytes"
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
	flags := CompileFlags(c.Args, c.Dir)
	quoteDirs, userDirs := includeDirs(flags)
	// The system's and libraries' headers are not read: only the tree's directories are searched.
	var dirs []string
	for _, d := range append(quoteDirs, userDirs...) {
		if below(d, t.root) {
			dirs = append(dirs, d)
		}
	}
	files := []string{c.File}
	for i, f := range flags {
		switch {
		case strings.HasPrefix(f, "-D") && writesCopy([]byte(f)):
			return true
		case (f == "-include" || f == "-imacros") && i+1 < len(flags):
			files = append(files, flags[i+1]) // wherever it is
		}
	}
	may := false
	for _, f := range files {
		may = may || t.copiesIn(f)
		t.reach(f, true, dirs, func(p string) { may = may || t.copiesIn(p) })
	}
	return may
}

// copiesIn reports whether file's text may write a copy, reading it the first time it is asked.
func (t *TreeIndex) copiesIn(file string) bool {
	t.includes(file)
	return t.copies[file]
}
