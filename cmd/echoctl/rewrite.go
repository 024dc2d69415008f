package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/echo-uma/echo/internal/interrupt"
	"github.com/echo-uma/echo/pipeline"
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/source/parse"
	"github.com/echo-uma/echo/source/rewrite"
	"github.com/echo-uma/echo/source/rules"
	"github.com/echo-uma/echo/sourcereport"
)

// rewriteOptions are the flags of `echoctl rewrite`.
type rewriteOptions struct {
	global   *globalOptions
	write    bool
	strategy string
	device   string
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
S4 lifetime), and serves each pair with the strategy that pays on the device it is for
(--strategy auto, the default, chooses per pair): merged into one buffer both pointers
name, each linking copy turned into the wait it implied or removed, one free where the
originals were freed — mapped (page-locked host memory the GPU maps) or managed — or
pinned: the copies kept, the host side allocated page-locked so they run at DMA speed.
On a discrete GPU (--device, by default this machine's GPU, discrete when there is none)
a mapped buffer is read over the link on every kernel access, so a pair is merged only
where its kernels touch each byte once per copy, and pinned otherwise, which needs only the
host side's lifetime proved and so also serves pairs a merge must refuse; an integrated
GPU gets mapped, Grace Hopper mapped or managed (kernels that re-read it). Every edit
carries a comment naming the pair and what was done; each pair's strategy and why are
printed, and pairs nothing can serve are left as written.

It prints a unified diff (git apply, patch -p1), or with -w edits the files in place; with
--json, per pair the four verdicts with their lines and what was changed. Flags come from
a compile_commands.json in the file's directory or a parent, or --compile-commands, plus
any after --.

With --trace, a trace of the program (echoctl trace, of a build with debug information)
ranks the pairs by the time their copies took in that run, matched by source file and line,
leaves as written a pair whose copies the run never made, and on a discrete GPU prices each
pair's strategies with the copies' and kernels' measured time (a pair whose copies would
save less than page-locking its buffer costs is left as written): profile and proof
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
	f.StringVar(&opts.strategy, "strategy", string(plan.StrategyAuto), "auto (chosen per pair for the device), pinned, mapped or managed")
	f.StringVar(&opts.device, "device", "auto", "the GPU the program is for: discrete, integrated, grace-hopper, or auto (this machine's; discrete when there is none)")
	opts.clang.add(f, "one in the file's directory or a parent")
	f.StringVar(&opts.trace, "trace", "", "a trace of the program: rank pairs by their copies' measured time, and leave pairs the run never exercised")
	return cmd
}

func runRewrite(cmd *cobra.Command, out io.Writer, files, extra []string, opts *rewriteOptions) error {
	strategy, err := rules.ParseStrategy(opts.strategy)
	if err != nil {
		return err
	}
	device, how, err := pipeline.RewriteDevice(cmd.Context(), opts.device)
	if err != nil {
		return err
	}
	ro := rewrite.RewriteOptions{Target: rewrite.Target{Device: device, Strategy: strategy}, CompileCommands: opts.clang.compileCommands,
		Args: extra, Options: opts.clang.options()}
	if opts.trace != "" {
		if ro.Profile, err = pipeline.LoadProfile(opts.trace); err != nil {
			return err
		}
	}
	ctx := cmd.Context()
	stderr := cmd.ErrOrStderr()
	var done []*rewrite.FileRewrite
	for _, f := range files {
		fr, err := rewrite.RewriteFile(ctx, f, ro)
		if err != nil {
			if intr, ok := interrupt.Of(ctx, ""); ok {
				return intr
			}
			if fr != nil {
				sourcereport.PrintAssumed(stderr, fr.Path, fr.BuildFlags)
			}
			return err
		}
		done = append(done, fr)
	}
	var written *rewrite.Written
	if opts.write {
		written = rewrite.WriteFiles(ctx, done, opts.trace)
	}
	if opts.global.json {
		if err := printJSON(out, sourcereport.RewriteDocOf(done, strategy, device, how, written)); err != nil {
			return err
		}
		return writtenError(ctx, stderr, written)
	}
	fmt.Fprintf(stderr, "rewrite: device %s (%s), strategy %s\n", device, how, strategy)
	for _, fr := range done {
		if !opts.write {
			fmt.Fprint(out, rewrite.UnifiedDiff(fr.Path, fr.Before, fr.After))
		}
		if fr.Errors > 0 {
			fmt.Fprintf(stderr, "%s: clang recovered from %d errors (the first: %s); a pair in a function they touch is left as written\n",
				parse.QuotePath(fr.Path), fr.Errors, fr.FirstError)
		}
		for _, c := range fr.Changes {
			measured := ""
			if m := c.Measured; m != nil {
				measured = fmt.Sprintf(" [%d copies, %.3f ms in the trace]", m.Count, float64(m.NS)/1e6)
			}
			why := ""
			if c.Changed {
				why = " — " + c.Choice
			}
			fmt.Fprintf(stderr, "%s: %s %s/%s: %s%s%s\n", parse.QuotePath(fr.Path), c.Function, c.Host, c.Device, c.Reason, why, measured)
		}
		if len(fr.Changes) > 0 || len(fr.Notices) > 0 {
			sourcereport.PrintAssumed(stderr, fr.Path, fr.BuildFlags)
		}
	}
	return writtenError(ctx, stderr, written)
}
