package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/echo-uma/echo/internal/texttable"
	"github.com/echo-uma/echo/source"
)

// scanOptions are the flags of `echoctl scan`.
type scanOptions struct {
	global *globalOptions
	clang  clangFlags
	jobs   int
}

func newScanCmd(global *globalOptions) *cobra.Command {
	opts := &scanOptions{global: global}
	cmd := &cobra.Command{
		Use:   "scan [--json] DIR [-- CLANG FLAGS]",
		Short: "Survey a source tree for host/device buffer pairs and which the source proves safe",
		Long: `scan walks a source tree, parses every C, C++ and CUDA file (.c .cpp .cc .cxx .cu)
with clang, and reports, per file, the candidate pairs (a host buffer and a device buffer
linked by a copy), the pairs proved safe (S1 values, S2 ordering, S3 pointer
observability, S4 lifetime: what echoctl rewrite would merge), and for each declined pair
the condition that declines it, its line and why; then a totals line. It edits nothing.

Flags come from a compile_commands.json in DIR, DIR/build or a parent of DIR, or
--compile-commands, plus any after --; a file no compile command names is parsed with
those alone and marked "defaults". A file clang cannot parse is counted unparsable with
clang's first error. Hidden directories (.git), build trees (build, _build, CMakeFiles,
cmake-build-*) and vendored code (third_party, 3rdparty, vendor, node_modules) are walked
past. Progress goes to standard error: a bar on a terminal, a line every few seconds
otherwise.

A .cu file is parsed with a prelude standing in for the CUDA toolkit's headers unless
--cuda-path names an installation; a header no include directory has is looked for in the
tree (as its build's -I would name it) and else parsed as an empty file, and errors clang
recovers from make the pairs of the functions they are in undecidable, the rest of the file
analysed. A source file another one #includes is analysed in its includer's parse; a C or
C++ file with nothing of CUDA in it is not parsed. Each file is also matched the way a grep
would (cudaMalloc and cudaMemcpy in its text), and where the grep finds the pattern and the
analysis no pair, the file's note says why. The last line counts the pattern the way the
paper's survey does: directories and files with it, by grep and by scan.`,
		Example: `  echoctl scan ~/src/rodinia/cuda
  echoctl scan --json --compile-commands build/compile_commands.json . > survey.json
  echoctl scan src -- -DUSE_GPU -Iinclude`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dirs, extra := args, []string(nil)
			if at := cmd.ArgsLenAtDash(); at >= 0 {
				dirs, extra = args[:at], args[at:]
			}
			if len(dirs) != 1 {
				return fmt.Errorf("scan takes one directory, got %d: give the root of the source tree (and clang flags after --)", len(dirs))
			}
			return runScan(cmd, cmd.OutOrStdout(), dirs[0], extra, opts)
		},
	}
	f := cmd.Flags()
	opts.clang.add(f, "one in DIR, DIR/build or a parent")
	f.IntVarP(&opts.jobs, "jobs", "j", 0, "files parsed at once (default: one per CPU)")
	return cmd
}

func runScan(cmd *cobra.Command, out io.Writer, dir string, extra []string, opts *scanOptions) error {
	so := source.ScanOptions{CompileCommands: opts.clang.compileCommands, Args: extra, Jobs: opts.jobs,
		Options: opts.clang.options()}
	stderr := cmd.ErrOrStderr()
	progress := newScanProgress(stderr)
	so.Progress = progress.update
	ctx := cmd.Context()
	s, err := source.Scan(ctx, dir, so)
	progress.finish()
	if s == nil {
		return err
	}
	// Interrupted, the files already done are reported all the same: minutes of clang runs
	// are not thrown away.
	for _, n := range s.Notices {
		fmt.Fprintf(stderr, "scan: %s\n", n)
	}
	if opts.global.json {
		if perr := printJSON(out, scanDoc(s)); perr != nil {
			return perr
		}
	} else {
		fmt.Fprint(out, scanTables(s))
	}
	if intr, ok := interruption(ctx, fmt.Sprintf("%d of %d files scanned, the rest not; scan writes nothing", len(s.Files), s.Total)); ok {
		return intr
	}
	return err
}

// scanTables is the text report: one row per file, one per declined pair, the totals and
// the prevalence line.
func scanTables(s *source.Survey) string {
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
		path := source.QuotePath(f.Path)
		grep := "-"
		if f.Grep {
			grep = "match"
		}
		if f.NoCUDA {
			files.Rows = append(files.Rows, []string{path, flags, "not CUDA", grep, "-", "-", "-", "-", "-", "no CUDA in it: not parsed"})
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
			if v, ok := source.Declined(p); ok {
				declined = append(declined, []string{fmt.Sprintf("%s:%d", path, v.At.Line), p.Function, p.Host + "/" + p.Device, v.Cond + " " + string(v.Status), v.Reason})
			}
		}
		if f.Pattern() {
			flags := strings.Join(source.BuildFlags{Flags: f.Flags}.Defines(), " ")
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
	b.WriteString(prevalenceLine(source.QuotePath(s.Dir), s.Prevalence()))
	return b.String()
}

// parseCell says how the file was parsed: on its own, in the unit that includes it, with
// errors clang recovered from.
func parseCell(f source.FileScan) string {
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
func fileNote(f source.FileScan) string {
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
// how much of the tree was parsed.
func prevalenceLine(dir string, p source.Prevalence) string {
	return fmt.Sprintf("%s: the pattern in %d of %d directories with CUDA files and %d of %d CUDA files by grep; in %d directories and %d files by scan "+
		"(%d files the grep matches have no pair, each explained above); %d of %d CUDA files parsed (%s, %d with errors clang recovered from), %d copies, %d pairs, %d proven, %d refused, %d undecidable\n",
		dir, p.DirsGrep, p.Dirs, p.Grep, p.CUDAFiles, p.DirsSc, p.Scan, p.GrepOnly, p.Parsed, p.CUDAFiles, percent(p.Parsed, p.CUDAFiles), p.WithErrors,
		p.Copies, p.Pairs, p.Proved, p.Refused, p.Undecidable)
}

func percent(n, of int) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(n)/float64(of))
}
