package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/echo-uma/echo/internal/infile"
	"github.com/echo-uma/echo/internal/outfile"
	"github.com/echo-uma/echo/pipeline"
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/planner"
	"github.com/echo-uma/echo/planview"
	"github.com/echo-uma/echo/sourcejoin"
)

// planOptions are the flags of `echoctl plan`.
type planOptions struct {
	global        *globalOptions
	output        string // plan file; "": the trace's path + ".plan"
	minIterations int
	minBytes      byteSize
	sources       []string // --source: say whether the source path proves each pair
}

func newPlanCmd(global *globalOptions) *cobra.Command {
	defaults := planner.DefaultOptions()
	opts := &planOptions{global: global, minIterations: defaults.MinIterations, minBytes: byteSize(defaults.MinBytes)}
	cmd := &cobra.Command{
		Use:   "plan TRACE | PLAN",
		Short: "Find the host/device buffer pairs a trace shows can be merged, and write the plan",
		Long: `plan reads a trace written by 'echoctl trace' and finds the host and device buffers
linked by whole-buffer copies that recur every iteration of the program's loop. For each
pair it estimates the share of an iteration spent in its copies (f_copy) and the speed-up
removing them would bound (1/(1-f_copy)), and says why every other pair and copy site was
refused. The plan is written to TRACE.plan (or -o) for 'echoctl validate'; the plan file
format is described in plan/PLAN.md.

A candidate pair is not yet known to be safe to merge: what the trace cannot see (host
accesses between the copies, kernels writing an input in place) is checked by validate.

Given a plan file instead of a trace, plan shows it as it stands (after validate or
calibrate too: each refusal with its instruction and when it happened) and writes nothing.

With --source FILE (the program's source, of a build with debug information), plan also says
for each pair whether the source path proves it: the pair's copies are matched by file and
line to the source's linking copies, and the source pair's S1-S4 verdict is shown beside it
(echoctl rewrite then merges the proved ones in the source). With --json it prints those
verdicts as echo.plansource/1 (docs/json.md) instead of the plan, which it writes to its file.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runPlan(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), args[0], opts, hasCommand(cmd.Root()))
		},
	}
	cmd.Flags().StringVarP(&opts.output, "output", "o", "", `plan file to write (default TRACE.plan; "-": standard output)`)
	cmd.Flags().IntVar(&opts.minIterations, "min-iterations", opts.minIterations,
		"a pair must recur in at least this many iterations")
	cmd.Flags().Var(&opts.minBytes, "min-bytes", "refuse linking copies smaller than this (like 64K or 1M)")
	cmd.Flags().StringSliceVar(&opts.sources, "source", nil, "the program's source files: say whether the source path proves each pair")
	return cmd
}

// hasCommand tells whether root has a subcommand of that name: the plan's next step is
// named only when this echoctl can run it.
func hasCommand(root *cobra.Command) func(name string) bool {
	return func(name string) bool {
		c, _, err := root.Find([]string{name})
		return err == nil && c != root
	}
}

func runPlan(ctx context.Context, out, stderr io.Writer, tracePath string, opts *planOptions, available func(name string) bool) error {
	if opts.minIterations < 1 {
		return fmt.Errorf("--min-iterations %d: give 1 or more", opts.minIterations)
	}
	if len(opts.sources) > 0 && opts.global.json && opts.output == outfile.Stdout {
		return fmt.Errorf("--source --json prints the source path's verdicts, and -o - the plan: both want standard output; give the plan a file")
	}
	if isPlanFile(tracePath) {
		return showPlan(ctx, out, tracePath, opts, available)
	}
	planPath, p, err := pipeline.PlanFromTrace(tracePath, opts.output, opts.sources, planner.Options{
		MinIterations: opts.minIterations, MinBytes: uint64(opts.minBytes)}, "echoctl "+version)
	if err != nil {
		return err
	}
	// The source path's verdicts come before the plan is written: an interrupt while clang
	// runs leaves nothing written, and no compile database a proof read is written over.
	var proofs *sourcejoin.Findings
	if len(opts.sources) > 0 {
		if proofs, err = sourceVerdicts(ctx, p, opts.sources); err != nil {
			return err
		}
		for _, bf := range proofs.Flags {
			if err := outfile.NotAnInput(planPath, "the compile database "+bf.CompileDB, bf.CompileDB); err != nil {
				return err
			}
		}
	}
	if planPath == outfile.Stdout {
		// The plan is the output: the table a person reads goes to stderr.
		if err := p.Write(out); err != nil || opts.global.json {
			return err
		}
		if err := planview.Render(stderr, p, planPath, available); err != nil || proofs == nil {
			return err
		}
		return renderSourceProofs(stderr, proofs)
	}
	if err := plan.WriteFile(planPath, p); err != nil {
		return err
	}
	if opts.global.json && proofs != nil {
		return sourcejoin.WriteJSON(out, proofs, planPath)
	}
	if opts.global.json {
		return p.Write(out)
	}
	if err := planview.Render(out, p, planPath, available); err != nil {
		return err
	}
	if proofs != nil {
		if err := renderSourceProofs(out, proofs); err != nil {
			return err
		}
	}
	_, err = fmt.Fprintf(out, "wrote %s\n", planPath)
	return err
}

// isPlanFile tells a plan (JSON) from a trace (binary, with its magic) by the first byte.
func isPlanFile(path string) bool {
	f, err := infile.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [1]byte
	n, _ := f.Read(b[:])
	return n == 1 && b[0] == '{'
}

// showPlan prints a plan file as it stands.
func showPlan(ctx context.Context, out io.Writer, path string, opts *planOptions, available func(name string) bool) error {
	if opts.output != "" {
		return fmt.Errorf("%s is a plan: plan writes a plan from a trace, so -o has nothing to write", path)
	}
	p, err := plan.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	var proofs *sourcejoin.Findings
	if len(opts.sources) > 0 {
		if proofs, err = sourceVerdicts(ctx, p, opts.sources); err != nil {
			return err
		}
	}
	if opts.global.json && proofs != nil {
		return sourcejoin.WriteJSON(out, proofs, path)
	}
	if opts.global.json {
		return p.Write(out)
	}
	if err := planview.Render(out, p, path, available); err != nil || proofs == nil {
		return err
	}
	return renderSourceProofs(out, proofs)
}
