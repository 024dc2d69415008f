package main

import "github.com/echo-uma/echo/source"

// The echo.scan/1 document (docs/json.md).
type scanJSON struct {
	Schema    string         `json:"schema"`
	Dir       string         `json:"dir"`
	CompileDB string         `json:"compile_commands,omitempty"`
	Skipped   []string       `json:"skipped_dirs"`
	Unwalked  []unwalkedJSON `json:"not_walked"`
	Notices   []string       `json:"notices,omitempty"`
	Files     []scanFileJSON `json:"files"`
	Totals    scanTotalsJSON `json:"totals"`
	// Interrupted: a signal stopped the scan; files are those done, of total_files.
	Interrupted bool `json:"interrupted,omitempty"`
	TotalFiles  int  `json:"total_files,omitempty"`
}

type unwalkedJSON struct {
	Path      string `json:"path"`
	PathBytes []byte `json:"path_bytes,omitempty"`
	Why       string `json:"why"`
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

func scanDoc(s *source.Survey) scanJSON {
	t := s.Totals()
	doc := scanJSON{Schema: schemaScan, Dir: s.Dir, CompileDB: s.CompileDB, Skipped: append([]string{}, s.Skipped...),
		Unwalked: []unwalkedJSON{}, Notices: s.Notices, Files: []scanFileJSON{},
		Totals: scanTotalsJSON{Files: t.Files, WithPattern: t.WithPattern, Unparsable: t.Unparsable, Defaults: t.Defaults,
			Skipped: t.Skipped, Pairs: t.Pairs, Proven: t.Proven, Declined: t.Declined, ByCondition: t.ByCondition}}
	if s.Interrupted {
		doc.Interrupted, doc.TotalFiles = true, s.Total
	}
	for _, u := range s.Unwalked {
		doc.Unwalked = append(doc.Unwalked, unwalkedJSON{Path: u.Path, PathBytes: pathBytes(u.Path), Why: u.Why})
	}
	for _, f := range s.Files {
		fj := scanFileJSON{Path: f.Path, PathBytes: pathBytes(f.Path), Flags: "compile command", Assumed: nonNil(f.Flags),
			Unparsable: f.Unparsable, Skipped: f.Skipped, Pattern: f.Pattern(), Pairs: []scanPairJSON{}}
		if f.Defaults {
			fj.Flags = "defaults"
		}
		for _, p := range f.Proofs {
			pj := scanPairJSON{Function: p.Function, Host: p.Host, Device: p.Device, Proven: p.Safe(), Verdicts: map[string]verdictJSON{}}
			for _, v := range p.Verdicts {
				pj.Verdicts[v.Cond] = verdictJSON{Holds: v.Status == source.Holds || v.Status == source.KeepWait,
					Status: string(v.Status), Line: v.At.Line, Why: v.Reason}
			}
			if v, ok := source.Declined(p); ok {
				pj.Declined = &scanDeclinedJSON{Condition: v.Cond, Status: string(v.Status), Line: v.At.Line, Why: v.Reason}
			}
			fj.Pairs = append(fj.Pairs, pj)
		}
		doc.Files = append(doc.Files, fj)
	}
	return doc
}
