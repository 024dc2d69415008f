package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/echo-uma/echo/source"
	"github.com/spf13/cobra"
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
past. Progress goes to standard error.`,
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
	so.Progress = func(done, total int, file string) {
		fmt.Fprintf(stderr, "scan: file %d of %d: %s\n", done, total, source.QuotePath(file))
	}
	ctx := cmd.Context()
	s, err := source.Scan(ctx, dir, so)
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

// scanTables is the text report: one row per file, one per declined pair, and the totals.
func scanTables(s *source.Survey) string {
	var b strings.Builder
	// FLAGS says where the file's flags came from: "defaults" is no compile command.
	files := columns{headers: []string{"FILE", "FLAGS", "PAIRS", "PROVEN", "DECLINED", "NOTE"}, right: []int{2, 3, 4}, rule: true}
	var declined [][]string
	assumed := map[string][]string{} // the defines the proofs assumed: files by define set
	for _, f := range s.Files {
		flags := "compile command"
		if f.Defaults {
			flags = "defaults"
		}
		path := source.QuotePath(f.Path)
		if f.Unparsable != "" || f.Skipped != "" {
			note := "unparsable: " + oneLine(f.Unparsable)
			if f.Skipped != "" {
				note = "skipped: " + oneLine(f.Skipped)
			}
			files.rows = append(files.rows, []string{path, flags, "-", "-", "-", note})
			continue
		}
		note := ""
		if !f.Pattern() {
			note = "no pattern"
		}
		proven := f.Proven()
		files.rows = append(files.rows, []string{path, flags, fmt.Sprint(len(f.Proofs)), fmt.Sprint(proven), fmt.Sprint(len(f.Proofs) - proven), note})
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
	if len(files.rows) == 0 {
		fmt.Fprintf(&b, "no .c, .cpp, .cc, .cxx or .cu files under %s\n", s.Dir)
	} else {
		b.WriteString(files.render())
	}
	if len(declined) > 0 {
		b.WriteString("\n")
		b.WriteString(columns{headers: []string{"DECLINED AT", "FUNCTION", "PAIR", "CONDITION", "WHY"}, rows: declined, rule: true}.render())
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
	return b.String()
}
