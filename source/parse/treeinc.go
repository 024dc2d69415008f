package parse

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// What a tree's include directives say, read from the text before any file is parsed:
//   - a source file another source file includes (`#include "kernel.cu"`, Rodinia's habit) is
//     no translation unit of its own: parsed alone it lacks what its includer defines before
//     the include. It is analysed inside its includer's parse instead (includedScans).
//   - a file with no compile command that includes a header its directory lacks, which the
//     tree holds elsewhere (cuda-samples' Common/helper_cuda.h, a benchmark's common/common.h),
//     is parsed with that directory as -I, as its Makefile would (guessIncludes).

var includeLine = regexp.MustCompile(`(?m)^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]`)

// headerExts are what the index knows besides the translation units.
var headerExts = map[string]bool{".h": true, ".hh": true, ".hpp": true, ".hxx": true, ".cuh": true, ".inl": true,
	".inc": true, ".tcc": true, ".ipp": true}

type include struct {
	name   string
	quoted bool
}

// treeIndex is a tree's sources and headers by name, and each file's include directives.
type TreeIndex struct {
	root   string
	limits Limits              // files are read as the parse reads them: regular ones, up to the size limit
	byBase map[string][]string // base name → absolute paths
	incs   map[string][]include
	copies map[string]bool   // the file's text may write a copy (maycopy.go), set with incs
	texts  map[string][]byte // the translation units' text, read once
	sizes  map[string]int64  // SourceBytes' file sizes, each stat once
}

// indexTree lists the headers under root (walking past what the survey walks past) beside the
// given translation units, and reads every include directive of both.
func IndexTree(root string, units []string, l Limits) *TreeIndex {
	t := &TreeIndex{root: root, limits: l, byBase: map[string][]string{}, incs: map[string][]include{}, copies: map[string]bool{},
		texts: map[string][]byte{}, sizes: map[string]int64{}}
	add := func(p string) { t.byBase[filepath.Base(p)] = append(t.byBase[filepath.Base(p)], p) }
	for _, u := range units {
		add(u)
		if b, err := ReadSource(u, l); err == nil {
			t.texts[u] = b
		}
	}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // what cannot be read is the walk's to report, not the index's
		}
		if d.IsDir() {
			if p != root && SkippedDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && headerExts[strings.ToLower(filepath.Ext(p))] {
			add(p)
		}
		return nil
	})
	return t
}

// includes are a file's include directives, read the first time they are asked for (with
// whether its text may write a copy).
func (t *TreeIndex) includes(file string) []include {
	if inc, ok := t.incs[file]; ok {
		return inc
	}
	b, ok := t.texts[file]
	var err error
	if !ok {
		b, err = ReadSource(file, t.limits)
	}
	out := includesIn(b)
	t.incs[file], t.copies[file] = out, err != nil || writesCopy(b)
	return out
}

// besides resolves an include against the including file's directory, as a quoted include
// is first (and as clang recovers an angled one that names a file there): "" when it is not
// there.
func besides(from string, inc include) string {
	p := filepath.Join(filepath.Dir(from), filepath.FromSlash(inc.name))
	if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
		return p
	}
	return ""
}

// inDirs resolves an include against include directories, in their order: "" when none
// has it.
func inDirs(dirs []string, inc include) string {
	for _, d := range dirs {
		if p := besides(filepath.Join(d, "x"), inc); p != "" {
			return p
		}
	}
	return ""
}

// inTree finds the tree's file an include names by path suffix, the one nearest the including
// file; "" for none.
func (t *TreeIndex) inTree(from string, inc include) string {
	name := filepath.FromSlash(inc.name)
	var best string
	bestShared := -1
	for _, p := range t.byBase[filepath.Base(name)] {
		if p != from && (p == name || strings.HasSuffix(p, string(filepath.Separator)+name)) {
			if s := sharedPrefix(p, from); s > bestShared {
				best, bestShared = p, s
			}
		}
	}
	return best
}

func sharedPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// includedScans maps each translation unit some other translation unit includes to the first
// includer (in the given order) that is a translation unit of its own, directly or through
// headers; units no unit includes are not in the map. A cycle of units that only include
// each other leaves the first of them a unit of its own.
func (t *TreeIndex) IncludedScans(units []string) map[string]string {
	isUnit := map[string]bool{}
	for _, u := range units {
		isUnit[u] = true
	}
	// direct: unit → the units it reaches through its includes (headers followed).
	reach := map[string][]string{}
	includedBy := map[string]bool{}
	for _, u := range units {
		t.reach(u, false, nil, func(p string) {
			if isUnit[p] {
				reach[u] = append(reach[u], p)
				includedBy[p] = true
			}
		})
	}
	out := map[string]string{}
	assigned := map[string]bool{}
	var assign func(owner, u string)
	assign = func(owner, u string) {
		for _, v := range reach[u] {
			if v == owner || assigned[v] {
				continue
			}
			assigned[v] = true
			out[v] = owner
			assign(owner, v)
		}
	}
	for _, u := range units {
		if !includedBy[u] {
			assign(u, u)
		}
	}
	for _, u := range units { // cycles no unit outside them includes
		if includedBy[u] && !assigned[u] {
			assigned[u] = true
			assign(u, u)
		}
	}
	return out
}

// SourceBytes is what a parse of unit reads of the tree: its own bytes and those of the tree's
// files it includes, through their includes (each found beside its includer, else by name in
// the tree, as a survey's -I finds it), each file once. Each translation unit parses its
// headers anew, so this is what a survey estimates a parse's cost by (issue 40): over
// HeCBench's chunks of 32 files, its order matched their parse times' far better than their
// own bytes' did (rank correlation 0.81 against 0.11; bm3d's main.cu includes CImg.h, 2.4 MB).
// Not safe for concurrent use.
func (t *TreeIndex) SourceBytes(unit string) int64 {
	n := t.size(unit)
	t.reach(unit, true, nil, func(p string) { n += t.size(p) })
	return n
}

// reach calls visit for each file of the tree that unit reaches through its includes, each
// once, to a depth of 8: found beside its includer, else in dirs, and with byName, where it is
// in neither, by name in the tree.
func (t *TreeIndex) reach(unit string, byName bool, dirs []string, visit func(file string)) {
	seen := map[string]bool{unit: true}
	var walk func(f string, depth int)
	walk = func(f string, depth int) {
		if depth > 8 {
			return
		}
		for _, inc := range t.includes(f) {
			p := besides(f, inc)
			if p == "" {
				p = inDirs(dirs, inc)
			}
			if p == "" && byName {
				p = t.inTree(f, inc)
			}
			if p == "" {
				continue
			}
			if p = filepath.Clean(p); seen[p] {
				continue
			}
			seen[p] = true
			visit(p)
			walk(p, depth+1)
		}
	}
	walk(unit, 0)
}

func (t *TreeIndex) size(file string) int64 {
	n, ok := t.sizes[file]
	if !ok {
		if st, err := os.Stat(file); err == nil {
			n = st.Size()
		}
		t.sizes[file] = n
	}
	return n
}

// findHeader is the directory that holds the tree's file for a header name a file includes
// (by path suffix, the nearest to the file where the tree has several), "" when the tree has
// none: what a survey adds as -I when clang finds the header nowhere else.
func (t *TreeIndex) FindHeader(file, name string) string {
	p := t.inTree(file, include{name: name})
	if p == "" {
		return ""
	}
	return strings.TrimSuffix(p, string(filepath.Separator)+filepath.FromSlash(name))
}

// cudaUse is what marks a C or C++ file as a CUDA file: a runtime or driver API name, a
// launch, or a CUDA header. A .c/.cpp file without any is not parsed (it cannot hold the
// pattern): a survey of a CUDA tree is mostly its .cu files and the host code around them.
var cudaUse = regexp.MustCompile(`\bcuda[A-Z]\w*|\bcu[A-Z][a-z]\w*\s*\(|<<<|#\s*include\s*[<"]cuda`)

// usesCUDA reports whether a translation unit's text has anything CUDA in it.
func (t *TreeIndex) UsesCUDA(file string) bool {
	b, ok := t.texts[file]
	if !ok {
		return true
	}
	return cudaUse.Match(b)
}

// grepCopy and grepAlloc are a grep's idea of the pattern (the paper's §2.4 survey counts
// syntactic co-occurrence): a file that calls cudaMalloc and cudaMemcpy. Equivalent to
//
//	grep -lE 'cudaMalloc(Async)?[[:space:]]*\(' FILE | xargs grep -lE 'cudaMemcpy(Async)?[[:space:]]*\('
var (
	grepAlloc = regexp.MustCompile(`cudaMalloc(Async)?\s*\(`)
	grepCopy  = regexp.MustCompile(`cudaMemcpy(Async)?\s*\(`)
)

// grepMatch reports whether the file's own text matches the grep.
func (t *TreeIndex) GrepMatch(file string) bool {
	b, ok := t.texts[file]
	if !ok {
		return false
	}
	return grepAlloc.Match(b) && grepCopy.Match(b)
}
