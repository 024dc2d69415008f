package scan

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/source/parse"
	"github.com/echo-uma/echo/source/rules"
)

// The survey's per-file detail and its prevalence counts, the paper's §2.4 table as the
// survey can fill it: how many files (and directories: a benchmark suite's programs, a
// samples collection's samples) have the pattern by a grep and by the analysis, with the
// difference explained file by file.

// FileReport is what the survey says about a file beyond its proofs.
type FileReport struct {
	abs string
	// IncludedBy is the translation unit that #includes this source file; the file is
	// analysed in that unit's parse, not on its own (treeinc.go).
	IncludedBy string
	// NoCUDA: a C or C++ file with nothing of CUDA in it (and including none that has): not
	// parsed, it cannot hold the pattern.
	NoCUDA bool
	// NoCopy: a CUDA file in which no copy can be found, not parsed: neither it nor a file of
	// the tree it includes writes cudaMemcpy (parse.TreeIndex.MayCopy), so it cannot hold the
	// pattern. ScanOptions.ParseAll parses it anyway.
	NoCopy bool
	// Grep: the file's own text calls cudaMalloc and cudaMemcpy (grepMatch).
	Grep bool
	// Guessed are the -I flags given to a file without a compile command for headers its
	// directory lacks and the tree has (relative to the scanned directory).
	Guessed []string
	// Stubbed are the headers the parse stood in for with empty ones (TU.Stubbed).
	Stubbed []string
	// Errors is how many errors clang recovered from in the file's translation unit, the
	// first of them in FirstError.
	Errors     int
	FirstError string
	// Copies counts the linear copies (cudaMemcpy, cudaMemcpyAsync) written in the file.
	Copies int
	// Unpaired are the copies that link no pair, each with why; kept only for a file without
	// a pair, where they are why the grep and the analysis disagree.
	Unpaired []rules.Unpaired
	// ParseDeclined counts the pairs undecidable because clang recovered from an error in
	// their function or one it calls (broken.go).
	ParseDeclined int
}

// Parsed reports whether the file's AST was read, its own or its includer's.
func (f *FileScan) Parsed() bool {
	return !f.NoCUDA && !f.NoCopy && f.Unparsable == "" && f.Skipped == ""
}

// Refused counts the file's refused pairs by the condition that refuses them.
func (f *FileScan) Refused() map[string]int {
	out := map[string]int{}
	for _, p := range f.Proofs {
		if v, ok := rules.Declined(p); ok && v.Status == plan.ConditionRefused {
			out[v.Cond]++
		}
	}
	return out
}

// Undecidable counts the file's undecidable pairs by the construct that made them so
// (Proof.Construct: "parse error" where clang recovered from an error in the pair's function,
// "struct field", "parameter", …), else by the condition left undecided.
func (f *FileScan) Undecidable() map[string]int {
	out := map[string]int{}
	for _, p := range f.Proofs {
		v, ok := rules.Declined(p)
		if !ok || v.Status != plan.ConditionUndecidable {
			continue
		}
		if c := p.Construct(); c != "" {
			out[string(c)]++
			continue
		}
		out[v.Cond]++
	}
	return out
}

// Explain is one line on why the grep and the analysis disagree about the file, "" when they
// agree.
func (f *FileScan) Explain() string {
	switch {
	case !f.Grep && f.Pattern():
		return "the pattern through names a grep does not see (a macro, a helper, another allocator)"
	case !f.Grep || f.Pattern():
		return ""
	case f.NoCUDA || f.NoCopy:
		return ""
	case f.Unparsable != "":
		return "clang cannot parse it: " + f.Unparsable
	case f.Skipped != "":
		return "skipped: " + f.Skipped
	case f.Copies == 0:
		return "no cudaMemcpy in the parsed code: the grep matched a comment, a string, a macro's body or an #if branch not taken"
	}
	whys := map[string]int{}
	var order []string
	for _, u := range f.Unpaired {
		if whys[u.Why] == 0 {
			order = append(order, u.Why)
		}
		whys[u.Why]++
	}
	var parts []string
	for _, w := range order {
		if whys[w] > 1 {
			parts = append(parts, w+" ("+strconv.Itoa(whys[w])+" copies)")
		} else {
			parts = append(parts, w)
		}
	}
	return "no copy links a pair: " + strings.Join(parts, "; ")
}

// describe fills the report from the parse the file was analysed in.
func (f *FileScan) describe(tu *parse.TU, root string) {
	rel := func(s string) string { return strings.ReplaceAll(s, root+string(filepath.Separator), "") }
	f.Stubbed = tu.Stubbed
	for _, d := range tu.Found {
		f.Guessed = append(f.Guessed, "-I"+rel(d))
	}
	f.Errors = len(tu.Errors)
	if f.Errors > 0 {
		f.FirstError = rel(tu.Errors[0].String())
	}
	var unpaired []rules.Unpaired
	f.Copies, unpaired = rules.CopySites(tu, f.abs, f.Proofs)
	if !f.Pattern() {
		f.Unpaired = unpaired
	}
	for _, p := range f.Proofs {
		if p.Construct() == rules.ConstructParseError {
			f.ParseDeclined++
		}
	}
}

// scanPlan is what the survey decides before it parses: which files are translation units,
// which are analysed inside the unit that includes them, and which are not CUDA at all.
type scanPlan struct {
	root     string
	idx      *parse.TreeIndex
	index    map[string]int      // file → its place in the walk
	owner    map[string]string   // included file → its unit
	includes map[string][]string // unit → the files it is parsed for too
	units    []int               // the walk's places of the files parsed
	noCUDA   map[string]bool
}

func planScan(root string, files []string, l parse.Limits) *scanPlan {
	p := &scanPlan{root: root, idx: parse.IndexTree(root, files, l), index: map[string]int{}, includes: map[string][]string{},
		noCUDA: map[string]bool{}}
	for i, f := range files {
		p.index[f] = i
	}
	p.owner = p.idx.IncludedScans(files)
	for _, f := range files { // in the walk's order
		if o, ok := p.owner[f]; ok {
			p.includes[o] = append(p.includes[o], f)
		}
	}
	for i, f := range files {
		if _, ok := p.owner[f]; ok {
			continue
		}
		cuda := LangOfCUDA(f) || p.idx.UsesCUDA(f)
		for _, inc := range p.includes[f] {
			cuda = cuda || LangOfCUDA(inc) || p.idx.UsesCUDA(inc)
		}
		if !cuda {
			p.noCUDA[f] = true
			for _, inc := range p.includes[f] {
				p.noCUDA[inc] = true
			}
			continue
		}
		p.units = append(p.units, i)
	}
	return p
}

// LangOfCUDA reports whether a file is CUDA by its extension.
func LangOfCUDA(file string) bool {
	l, err := parse.LangOf(file)
	return err == nil && l == parse.LangCUDA
}

func (p *scanPlan) fileScan(f string) FileScan {
	rel, err := filepath.Rel(p.root, f)
	if err != nil {
		rel = f
	}
	out := FileScan{Path: rel, Defaults: true}
	out.abs = f
	out.Grep = p.idx.GrepMatch(f)
	if o := p.owner[f]; o != "" {
		out.IncludedBy, _ = filepath.Rel(p.root, o)
	}
	return out
}

// unparsed is the FileScan of a file the survey does not parse: not CUDA, or included by a
// unit that is not.
func (p *scanPlan) unparsed(f string) FileScan {
	out := p.fileScan(f)
	out.NoCUDA = true
	return out
}

// withIncludes is a unit's report followed by those of the source files parsed in it, which
// share its flags and how it was parsed.
func (p *scanPlan) withIncludes(out FileScan) []FileScan {
	outs := []FileScan{out}
	for _, inc := range p.includes[out.abs] {
		f := p.fileScan(inc)
		f.Defaults, f.Flags, f.Unparsable, f.Skipped, f.NoCopy = out.Defaults, out.Flags, out.Unparsable, out.Skipped, out.NoCopy
		outs = append(outs, f)
	}
	return outs
}

// ownDirs are the directories of the files a unit is parsed for besides itself.
func (p *scanPlan) ownDirs(unit string) []string {
	var out []string
	for _, f := range p.includes[unit] {
		out = append(out, filepath.Dir(f))
	}
	return out
}

// Prevalence is a survey's counts the way the paper's §2.4 table gives them, per file and per
// directory holding CUDA files (in a suite, a program), by a grep and by the analysis.
type Prevalence struct {
	Files     int // every C, C++ and CUDA file walked
	CUDAFiles int // those with anything of CUDA (Files less NoCUDA)
	// NoCopy are CUDA files not parsed because they cannot hold a copy (FileReport.NoCopy).
	NoCopy int
	Parsed int // CUDA files whose AST was read (on their own or in their includer's parse)
	// WithErrors are parsed files whose parse recovered from errors.
	WithErrors int
	Unparsable int
	Skipped    int // past a limit (Limits)
	Grep, Scan int // CUDA files with the pattern by the grep and by the analysis
	// GrepOnly: the grep matches and the analysis finds no pair (each explained, Explain).
	GrepOnly, ScanOnly     int
	Dirs, DirsGrep, DirsSc int // directories holding CUDA files; with the pattern by each
	Copies, Pairs, Proved  int
	Refused, Undecidable   int
	RefusedBy              map[string]int
	UndecidableBy          map[string]int
}

// Prevalence counts the survey.
func (s *Survey) Prevalence() Prevalence {
	p := Prevalence{Files: len(s.Files), RefusedBy: map[string]int{}, UndecidableBy: map[string]int{}}
	type dirState struct{ grep, scan bool }
	dirs := map[string]*dirState{}
	for i := range s.Files {
		f := &s.Files[i]
		if f.NoCUDA {
			continue
		}
		p.CUDAFiles++
		d := dirs[filepath.Dir(f.Path)]
		if d == nil {
			d = &dirState{}
			dirs[filepath.Dir(f.Path)] = d
		}
		switch {
		case f.NoCopy:
			p.NoCopy++
		case f.Parsed():
			p.Parsed++
			if f.Errors > 0 {
				p.WithErrors++
			}
		case f.Skipped != "":
			p.Skipped++
		default:
			p.Unparsable++
		}
		if f.Grep {
			p.Grep++
			d.grep = true
		}
		if f.Pattern() {
			p.Scan++
			d.scan = true
		}
		if f.Grep && !f.Pattern() {
			p.GrepOnly++
		}
		if !f.Grep && f.Pattern() {
			p.ScanOnly++
		}
		p.Copies += f.Copies
		p.Pairs += len(f.Proofs)
		p.Proved += f.Proven()
		for k, v := range f.Refused() {
			p.Refused += v
			p.RefusedBy[k] += v
		}
		for k, v := range f.Undecidable() {
			p.Undecidable += v
			p.UndecidableBy[k] += v
		}
	}
	for _, d := range dirs {
		p.Dirs++
		if d.grep {
			p.DirsGrep++
		}
		if d.scan {
			p.DirsSc++
		}
	}
	return p
}
