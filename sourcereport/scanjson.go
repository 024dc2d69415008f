package sourcereport

import (
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/source/rules"
	"github.com/echo-uma/echo/source/scan"
)

// The echo.scan/1 document (docs/json.md).
type ScanDoc struct {
	Schema    string         `json:"schema"`
	Dir       string         `json:"dir"`
	CompileDB string         `json:"compile_commands,omitempty"`
	Skipped   []string       `json:"skipped_dirs"`
	Unwalked  []unwalkedJSON `json:"not_walked"`
	Notices   []string       `json:"notices,omitempty"`
	Files     []scanFileJSON `json:"files"`
	Totals    scanTotalsJSON `json:"totals"`
	// Prevalence is the paper's §2.4 count: by a grep and by the analysis, per file and per
	// directory holding CUDA files.
	Prevalence scanPrevalenceJSON `json:"prevalence"`
	// Interrupted: a signal stopped the scan; files are those done, of total_files.
	Interrupted bool `json:"interrupted,omitempty"`
	TotalFiles  int  `json:"total_files,omitempty"`
}

type unwalkedJSON struct {
	Path      string `json:"path"`
	PathBytes []byte `json:"path_bytes,omitempty"`
	Why       string `json:"why"`
}

type scanPrevalenceJSON struct {
	CUDAFiles     int            `json:"cuda_files"`
	NotCUDA       int            `json:"not_cuda"`
	NoCopy        int            `json:"no_copy"`
	Parsed        int            `json:"parsed"`
	WithErrors    int            `json:"parsed_with_errors"`
	Unparsable    int            `json:"unparsable"`
	Skipped       int            `json:"skipped"`
	FilesGrep     int            `json:"files_grep"`
	FilesScan     int            `json:"files_scan"`
	GrepNoPair    int            `json:"grep_no_pair"`
	ScanNoGrep    int            `json:"scan_no_grep"`
	Dirs          int            `json:"dirs"`
	DirsGrep      int            `json:"dirs_grep"`
	DirsScan      int            `json:"dirs_scan"`
	Copies        int            `json:"copies"`
	Pairs         int            `json:"pairs"`
	Proven        int            `json:"proven"`
	Refused       int            `json:"refused"`
	RefusedBy     map[string]int `json:"refused_by"`
	Undecidable   int            `json:"undecidable"`
	UndecidableBy map[string]int `json:"undecidable_by"`
}

type scanFileJSON struct {
	Path       string         `json:"path"`
	PathBytes  []byte         `json:"path_bytes,omitempty"` // the name, where it is not UTF-8
	Flags      string         `json:"flags"`                // "compile command" or "defaults"
	Assumed    []string       `json:"assumed_flags"`        // the build flags the proofs hold for
	Unparsable string         `json:"unparsable,omitempty"`
	Skipped    string         `json:"skipped,omitempty"` // the limit the file went past
	Pattern    bool           `json:"pattern"`
	Pairs      []scanPairJSON `json:"pairs"`
	// The rest: how the file was parsed, what a grep says, and why the two differ.
	NotCUDA     bool               `json:"not_cuda,omitempty"`
	NoCopy      bool               `json:"no_copy,omitempty"`
	IncludedBy  string             `json:"included_by,omitempty"`
	Errors      int                `json:"errors"`
	FirstError  string             `json:"first_error,omitempty"`
	Stubbed     []string           `json:"stubbed_headers,omitempty"`
	IncludeDirs []string           `json:"include_dirs_found,omitempty"`
	Grep        bool               `json:"grep"`
	Copies      int                `json:"copies"`
	Refused     map[string]int     `json:"refused_by"`
	Undecidable map[string]int     `json:"undecidable_by"`
	Unpaired    []scanUnpairedJSON `json:"unpaired_copies,omitempty"`
	Differs     string             `json:"grep_differs,omitempty"`
}

type scanUnpairedJSON struct {
	Line     int    `json:"line"`
	Function string `json:"function"`
	Why      string `json:"why"`
}

type scanPairJSON struct {
	Function string                 `json:"function"`
	Host     string                 `json:"host"`
	Device   string                 `json:"device"`
	Proven   bool                   `json:"proven"`
	Declined *scanDeclinedJSON      `json:"declined,omitempty"`
	Verdicts map[string]verdictJSON `json:"verdicts"`
}

type scanDeclinedJSON struct {
	Condition string `json:"condition"`
	Status    string `json:"status"`
	Line      int    `json:"line"`
	Why       string `json:"why"`
}

type scanTotalsJSON struct {
	Files       int            `json:"files"`
	WithPattern int            `json:"with_pattern"`
	Unparsable  int            `json:"unparsable"`
	Defaults    int            `json:"defaults"`
	Skipped     int            `json:"skipped"`
	Pairs       int            `json:"pairs"`
	Proven      int            `json:"proven"`
	Declined    int            `json:"declined"`
	ByCondition map[string]int `json:"declined_by_condition"`
}

func ScanDocOf(s *scan.Survey) ScanDoc {
	t := s.Totals()
	doc := ScanDoc{Schema: SchemaScan, Dir: s.Dir, CompileDB: s.CompileDB, Skipped: append([]string{}, s.Skipped...),
		Unwalked: []unwalkedJSON{}, Notices: s.Notices, Files: []scanFileJSON{},
		Totals: scanTotalsJSON{Files: t.Files, WithPattern: t.WithPattern, Unparsable: t.Unparsable, Defaults: t.Defaults,
			Skipped: t.Skipped, Pairs: t.Pairs, Proven: t.Proven, Declined: t.Declined, ByCondition: t.ByCondition}}
	if s.Interrupted {
		doc.Interrupted, doc.TotalFiles = true, s.Total
	}
	for _, u := range s.Unwalked {
		doc.Unwalked = append(doc.Unwalked, unwalkedJSON{Path: u.Path, PathBytes: pathBytes(u.Path), Why: u.Why})
	}
	p := s.Prevalence()
	doc.Prevalence = scanPrevalenceJSON{CUDAFiles: p.CUDAFiles, NotCUDA: p.Files - p.CUDAFiles, NoCopy: p.NoCopy, Parsed: p.Parsed, WithErrors: p.WithErrors,
		Unparsable: p.Unparsable, Skipped: p.Skipped, FilesGrep: p.Grep, FilesScan: p.Scan, GrepNoPair: p.GrepOnly, ScanNoGrep: p.ScanOnly,
		Dirs: p.Dirs, DirsGrep: p.DirsGrep, DirsScan: p.DirsSc, Copies: p.Copies, Pairs: p.Pairs, Proven: p.Proved,
		Refused: p.Refused, RefusedBy: p.RefusedBy, Undecidable: p.Undecidable, UndecidableBy: p.UndecidableBy}
	for _, f := range s.Files {
		fj := scanFileJSON{Path: f.Path, PathBytes: pathBytes(f.Path), Flags: "compile command", Assumed: nonNil(f.Flags),
			Unparsable: f.Unparsable, Skipped: f.Skipped, Pattern: f.Pattern(), Pairs: []scanPairJSON{},
			NotCUDA: f.NoCUDA, NoCopy: f.NoCopy, IncludedBy: f.IncludedBy, Errors: f.Errors, FirstError: f.FirstError, Stubbed: f.Stubbed,
			IncludeDirs: f.Guessed, Grep: f.Grep, Copies: f.Copies, Refused: f.Refused(), Undecidable: f.Undecidable(),
			Differs: f.Explain()}
		for _, u := range f.Unpaired {
			fj.Unpaired = append(fj.Unpaired, scanUnpairedJSON{Line: u.At.Line, Function: u.Function, Why: u.Why})
		}
		if f.Defaults {
			fj.Flags = "defaults"
		}
		for _, p := range f.Proofs {
			pj := scanPairJSON{Function: p.Function, Host: p.Host, Device: p.Device, Proven: p.Safe(), Verdicts: map[string]verdictJSON{}}
			for _, v := range p.Verdicts {
				pj.Verdicts[v.Cond] = verdictJSON{Holds: v.Status == plan.ConditionHolds || v.Status == plan.ConditionKeepWait,
					Status: string(v.Status), Line: v.At.Line, Why: v.Reason}
			}
			if v, ok := rules.Declined(p); ok {
				pj.Declined = &scanDeclinedJSON{Condition: v.Cond, Status: string(v.Status), Line: v.At.Line, Why: v.Reason}
			}
			fj.Pairs = append(fj.Pairs, pj)
		}
		doc.Files = append(doc.Files, fj)
	}
	return doc
}
