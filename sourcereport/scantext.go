// Package sourcereport is what the source path's commands report, apart from the decisions
// they report on (source/): scan's text tables and its echo.scan/1 document, rewrite's
// echo.rewrite/2 document and what -w did, and the build flags a proof assumed. It lays out
// and encodes; cmd/echoctl prints.
package sourcereport

import (
	"fmt"
	"sort"
	"strings"

	"github.com/echo-uma/echo/internal/texttable"
	"github.com/echo-uma/echo/source/parse"
	"github.com/echo-uma/echo/source/rules"
	"github.com/echo-uma/echo/source/scan"
)

// ScanText is scan's text report: one row per file, one per declined pair, the totals and
// the prevalence line.
func ScanText(s *scan.Survey) string {
	var b strings.Builder
	// FLAGS says where the file's flags came from: "defaults" is no compile command.
	files := texttable.Columns{Headers: []string{"FILE", "FLAGS", "PARSE", "GREP", "COPIES", "PAIRS", "PROVEN", "REFUSED", "UNDECIDABLE", "NOTE"},
		Right: []int{4, 5, 6}, Rule: true}
	var declined [][]string
	assumed := map[string][]string{} // the defines the proofs assumed: files by define set
	for _, f := range s.Files {
		flags := "compile command"
		if f.Defaults {
			flags = "defaults"
		}
		path := parse.QuotePath(f.Path)
		grep := "-"
		if f.Grep {
			grep = "match"
		}
		if f.NoCUDA {
			files.Rows = append(files.Rows, []string{path, flags, "not CUDA", grep, "-", "-", "-", "-", "-", "no CUDA in it: not parsed"})
			continue
		}
		if f.NoCopy {
			files.Rows = append(files.Rows, []string{path, flags, "no copy", grep, "-", "-", "-", "-", "-",
				"no cudaMemcpy written in it or the tree's headers it includes: not parsed"})
			continue
		}
		if f.Unparsable != "" {
			files.Rows = append(files.Rows, []string{path, flags, "unparsable", grep, "-", "-", "-", "-", "-", oneLine(f.Unparsable)})
			continue
		}
		if f.Skipped != "" {
			files.Rows = append(files.Rows, []string{path, flags, "skipped", grep, "-", "-", "-", "-", "-", oneLine(f.Skipped)})
			continue
		}
		files.Rows = append(files.Rows, []string{path, flags, parseCell(f), grep, fmt.Sprint(f.Copies), fmt.Sprint(len(f.Proofs)),
			fmt.Sprint(f.Proven()), countsCell(f.Refused()), countsCell(f.Undecidable()), fileNote(f)})
		for _, p := range f.Proofs {
			if v, ok := rules.Declined(p); ok {
				declined = append(declined, []string{fmt.Sprintf("%s:%d", path, v.At.Line), p.Function, p.Host + "/" + p.Device, v.Cond + " " + string(v.Status), v.Reason})
			}
		}
		if f.Pattern() {
			flags := strings.Join(parse.BuildFlags{Flags: f.Flags}.Defines(), " ")
			if flags == "" {
				flags = "none"
			}
			assumed[flags] = append(assumed[flags], path)
		}
	}
	if len(files.Rows) == 0 {
		fmt.Fprintf(&b, "no .c, .cpp, .cc, .cxx or .cu files under %s\n", s.Dir)
	} else {
		b.WriteString(files.Render())
	}
	if len(declined) > 0 {
		b.WriteString("\n")
		b.WriteString(texttable.Columns{Headers: []string{"DECLINED AT", "FUNCTION", "PAIR", "CONDITION", "WHY"}, Rows: declined, Rule: true}.Render())
	}
	b.WriteString(assumedTable(assumed))
	b.WriteString(unwalkedTable(s.Unwalked))
	t := s.Totals()
	fmt.Fprintf(&b, "\n%d files scanned, %d with the pattern, %d unparsable, %d with no compile command (defaults); %d pairs: %d proven, %d declined (S1 %d, S2 %d, S3 %d, S4 %d)\n",
		t.Files, t.WithPattern, t.Unparsable, t.Defaults, t.Pairs, t.Proven, t.Declined,
		t.ByCondition["S1"], t.ByCondition["S2"], t.ByCondition["S3"], t.ByCondition["S4"])
	if t.Skipped > 0 || len(s.Unwalked) > 0 {
		fmt.Fprintf(&b, "%d files skipped past a limit, %d paths not walked\n", t.Skipped, len(s.Unwalked))
	}
	if s.Interrupted {
		fmt.Fprintf(&b, "interrupted: %d of %d files scanned\n", len(s.Files), s.Total)
	}
	b.WriteString(prevalenceLine(parse.QuotePath(s.Dir), s.Prevalence()))
	return b.String()
}

// parseCell says how the file was parsed: on its own, in the unit that includes it, with
// errors clang recovered from.
func parseCell(f scan.FileScan) string {
	c := "ok"
	if f.IncludedBy != "" {
		c = "in " + f.IncludedBy
	}
	if f.Errors > 0 {
		c += fmt.Sprintf(", %d errors", f.Errors)
	}
	return c
}

// countsCell is "3 (S1 2, S4 1)", "-" for none.
func countsCell(m map[string]int) string {
	n := 0
	keys := make([]string, 0, len(m))
	for k, v := range m {
		n += v
		keys = append(keys, k)
	}
	if n == 0 {
		return "-"
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return fmt.Sprintf("%d (%s)", n, strings.Join(parts, ", "))
}

// fileNote is why the grep and the analysis disagree, the headers stood in for, and the
// include directories guessed.
func fileNote(f scan.FileScan) string {
	var notes []string
	if e := f.Explain(); e != "" {
		notes = append(notes, e)
	}
	if len(f.Stubbed) > 0 {
		notes = append(notes, "missing headers stood in for: "+strings.Join(f.Stubbed, " "))
	}
	if f.Errors > 0 && f.ParseDeclined > 0 {
		notes = append(notes, "first error: "+f.FirstError)
	}
	if len(f.Guessed) > 0 {
		notes = append(notes, "headers from "+strings.Join(f.Guessed, " "))
	}
	return strings.Join(notes, "; ")
}

// prevalenceLine is the paper's §2.4 count for the tree, by the grep and by the analysis, and
// how much of the tree was parsed: of the files that may hold a copy, where some cannot.
func prevalenceLine(dir string, p scan.Prevalence) string {
	parsed := fmt.Sprintf("%d of %d CUDA files parsed", p.Parsed, p.CUDAFiles)
	if p.NoCopy > 0 {
		parsed = fmt.Sprintf("%d CUDA files not parsed, no cudaMemcpy written in them or their headers; of the other %d, %d parsed",
			p.NoCopy, p.CUDAFiles-p.NoCopy, p.Parsed)
	}
	return fmt.Sprintf("%s: the pattern in %d of %d directories with CUDA files and %d of %d CUDA files by grep; in %d directories and %d files by scan "+
		"(%d files the grep matches have no pair, each explained above); %s (%s, %d with errors clang recovered from), %d copies, %d pairs, %d proven, %d refused, %d undecidable\n",
		dir, p.DirsGrep, p.Dirs, p.Grep, p.CUDAFiles, p.DirsSc, p.Scan, p.GrepOnly, parsed, percent(p.Parsed, p.CUDAFiles-p.NoCopy), p.WithErrors,
		p.Copies, p.Pairs, p.Proved, p.Refused, p.Undecidable)
}

func percent(n, of int) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(n)/float64(of))
}

// assumedTable lists the defines each file's proofs assumed, grouped: a proof holds for the
// build whose flags it parsed with (trust.go). Empty when no file has a pair.
func assumedTable(assumed map[string][]string) string {
	if len(assumed) == 0 {
		return ""
	}
	t := texttable.Columns{Headers: []string{"PROVED WITH DEFINES", "FILES"}, Rule: true}
	keys := make([]string, 0, len(assumed))
	for k := range assumed {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Rows = append(t.Rows, []string{k, strings.Join(assumed[k], ", ")})
	}
	return "\n" + t.Render()
}

// unwalkedTable lists what the walk could not go into; empty when it went everywhere.
func unwalkedTable(u []scan.Unwalked) string {
	if len(u) == 0 {
		return ""
	}
	t := texttable.Columns{Headers: []string{"NOT WALKED", "WHY"}, Rule: true}
	for _, w := range u {
		t.Rows = append(t.Rows, []string{elide(parse.QuotePath(w.Path)), oneLine(w.Why)})
	}
	return "\n" + t.Render()
}

// oneLine is a message from clang or the system as one printable line: a hostile file name in
// it cannot break the table.
func oneLine(s string) string {
	q := parse.QuotePath(s)
	if q != s {
		return q[1 : len(q)-1] // escaped, without the quotes
	}
	return s
}

// elide shortens a path too long for a table's column (one past PATH_MAX, say) to its two
// ends and its length; the JSON has it whole.
func elide(path string) string {
	const keep = 40
	if len(path) <= 3*keep {
		return path
	}
	return fmt.Sprintf("%s…%s (%d bytes)", path[:keep], path[len(path)-keep:], len(path))
}
