package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/echo-uma/echo/planner"
	"github.com/echo-uma/echo/source"
	"github.com/echo-uma/echo/symbols"
	"github.com/echo-uma/echo/trace"
)

// rewriteOptions are the flags of `echoctl rewrite`.
type rewriteOptions struct {
	global   *globalOptions
	write    bool
	strategy string
	clang    clangFlags
	trace    string
}

func newRewriteCmd(global *globalOptions) *cobra.Command {
	opts := &rewriteOptions{global: global}
	cmd := &cobra.Command{
		Use:   "rewrite [-w] [--json] FILE... [-- CLANG FLAGS]",
		Short: "Merge the host/device buffer pairs the source proves safe, as a patch",
		Long: `rewrite parses each C, C++ or CUDA file with clang, proves each host/device pair
linked by a full-buffer copy safe or not (S1 values, S2 ordering, S3 pointer observability,
S4 lifetime), and merges every safe pair into one buffer: allocated mapped (discrete GPUs)
or managed (integrated GPUs, Grace Hopper), both pointers naming it, each linking copy
turned into the wait it implied or removed, one free after both frees. Every edit carries a
comment naming the pair and the proof; pairs refused or undecidable are left as written.

It prints a unified diff (git apply, patch -p1), or with -w edits the files in place; with
--json, per pair the four verdicts with their lines and what was changed. Flags come from
a compile_commands.json in the file's directory or a parent, or --compile-commands, plus
any after --.

With --trace, a trace of the program (echoctl trace, of a build with debug information)
ranks the pairs by the time their copies took in that run, matched by source file and line,
and leaves as written a pair proved safe whose copies the run never made: profile and proof
together.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			files, extra := args, []string(nil)
			if at := cmd.ArgsLenAtDash(); at >= 0 {
				files, extra = args[:at], args[at:]
			}
			if len(files) == 0 {
				return fmt.Errorf("no file to rewrite: give one or more .c, .cpp or .cu files before --")
			}
			return runRewrite(cmd, cmd.OutOrStdout(), files, extra, opts)
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&opts.write, "write", "w", false, "edit the files in place instead of printing a diff")
	f.StringVar(&opts.strategy, "strategy", string(source.Mapped), "the shared buffer: mapped (discrete GPUs) or managed (integrated GPUs, Grace Hopper)")
	opts.clang.add(f, "one in the file's directory or a parent")
	f.StringVar(&opts.trace, "trace", "", "a trace of the program: rank pairs by their copies' measured time, and leave pairs the run never exercised")
	return cmd
}

func runRewrite(cmd *cobra.Command, out io.Writer, files, extra []string, opts *rewriteOptions) error {
	strategy, err := source.ParseStrategy(opts.strategy)
	if err != nil {
		return err
	}
	ro := source.RewriteOptions{Strategy: strategy, CompileCommands: opts.clang.compileCommands, Args: extra,
		Options: opts.clang.options()}
	if opts.trace != "" {
		if ro.Profile, err = loadProfile(opts.trace); err != nil {
			return err
		}
	}
	ctx, stop := hangupEnds(cmd.Context())
	defer stop()
	stderr := cmd.ErrOrStderr()
	var done []*source.FileRewrite
	for _, f := range files {
		fr, err := source.RewriteFile(ctx, f, ro)
		if err != nil {
			if intr, ok := interruption(ctx, ""); ok {
				return intr
			}
			if fr != nil {
				printAssumed(stderr, fr.Path, fr.BuildFlags)
			}
			return err
		}
		done = append(done, fr)
	}
	var written *source.Written
	if opts.write {
		written = source.WriteFiles(ctx, done, opts.trace)
	}
	if opts.global.json {
		if err := printJSON(out, rewriteDoc(done, strategy, written)); err != nil {
			return err
		}
		return writtenError(ctx, stderr, written)
	}
	for _, fr := range done {
		if !opts.write {
			fmt.Fprint(out, source.UnifiedDiff(fr.Path, fr.Before, fr.After))
		}
		for _, c := range fr.Changes {
			measured := ""
			if m := c.Measured; m != nil {
				measured = fmt.Sprintf(" [%d copies, %.3f ms in the trace]", m.Count, float64(m.NS)/1e6)
			}
			fmt.Fprintf(stderr, "%s: %s %s/%s: %s%s\n", source.QuotePath(fr.Path), c.Function, c.Host, c.Device, c.Reason, measured)
		}
		if len(fr.Changes) > 0 || len(fr.Notices) > 0 {
			printAssumed(stderr, fr.Path, fr.BuildFlags)
		}
	}
	return writtenError(ctx, stderr, written)
}

// loadProfile is the copy time by source line of the trace at path (rewrite --trace): its
// copy sites named by file and line from the traced binary's debug information.
func loadProfile(path string) (*source.Profile, error) {
	tf, err := trace.Open(path)
	if err != nil {
		return nil, err
	}
	defer tf.Close()
	st, err := trace.SummarizeEstimating(tf.Reader, planner.NewTransferTimer(tf.Header()))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	nameCopySites(symbols.NewResolver(), st.TopSites)
	return source.NewProfile(st.TopSites), nil
}
