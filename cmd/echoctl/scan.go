package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/echo-uma/echo/internal/interrupt"
	"github.com/echo-uma/echo/source/scan"
	"github.com/echo-uma/echo/sourcereport"
)

// scanOptions are the flags of `echoctl scan`.
type scanOptions struct {
	global *globalOptions
	clang  clangFlags
	jobs   int
	// parseAll parses the files that cannot hold a copy too (scan.ScanOptions.ParseAll).
	parseAll bool
	// cpuProfile is where a Go CPU profile of echoctl goes (hidden): the scan's own share of
	// its CPU, beside clang's (issue 40).
	cpuProfile string
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
C++ file with nothing of CUDA in it is not parsed, nor is a CUDA file that cannot hold a
copy: neither it nor a header of the tree it includes writes cudaMemcpy (--parse-all
parses it, to check that the whole tree parses). Each file is also matched the way a grep
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
	f.BoolVar(&opts.parseAll, "parse-all", false, "parse every CUDA file, also those in which no cudaMemcpy is written (slower)")
	f.StringVar(&opts.cpuProfile, "cpuprofile", "", "write a Go CPU profile of echoctl itself to this file")
	_ = f.MarkHidden("cpuprofile")
	return cmd
}

func runScan(cmd *cobra.Command, out io.Writer, dir string, extra []string, opts *scanOptions) error {
	if opts.cpuProfile != "" {
		stop, err := startCPUProfile(opts.cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	so := scan.ScanOptions{CompileCommands: opts.clang.compileCommands, Args: extra, Jobs: opts.jobs,
		ParseAll: opts.parseAll, Options: opts.clang.options()}
	stderr := cmd.ErrOrStderr()
	progress := sourcereport.NewProgress(stderr, isTerminal(stderr))
	so.Progress = progress.Update
	ctx := cmd.Context()
	s, err := scan.Scan(ctx, dir, so)
	progress.Finish()
	if s == nil {
		return err
	}
	// Interrupted, the files already done are reported all the same: minutes of clang runs
	// are not thrown away.
	for _, n := range s.Notices {
		fmt.Fprintf(stderr, "scan: %s\n", n)
	}
	if opts.global.json {
		if perr := printJSON(out, sourcereport.ScanDocOf(s)); perr != nil {
			return perr
		}
	} else {
		fmt.Fprint(out, sourcereport.ScanText(s))
	}
	if intr, ok := interrupt.Of(ctx, fmt.Sprintf("%d of %d files scanned, the rest not; scan writes nothing", len(s.Files), s.Total)); ok {
		return intr
	}
	return err
}
