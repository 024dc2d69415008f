package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/echo-uma/echo/calibrate"
	"github.com/echo-uma/echo/internal/outfile"
	"github.com/echo-uma/echo/pipeline"
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/planview"
	"github.com/echo-uma/echo/tracer"
)

type optimizeOptions struct {
	*globalOptions
	calibrationFlags
	output     string
	hostAllocs bool
	launches   bool
}

func newOptimizeCmd(g *globalOptions) *cobra.Command {
	o := &optimizeOptions{globalOptions: g, calibrationFlags: defaultCalibrationFlags()}
	cmd := &cobra.Command{
		Use:   "optimize [-o PLAN] -- CMD [ARGS...]",
		Short: "Trace, plan, validate and calibrate a program in one go",
		Long: `optimize runs the whole pipeline on CMD: trace it (root, or CAP_BPF and CAP_PERFMON),
plan the buffer pairs its copies link, validate the candidates on one more run, and
calibrate the survivors against the program as written. It ends with the before/after
table and a plan that echoctl run deploys. The program runs several times: keep its
arguments to a representative, short run, and give --ignore for output lines that carry
timings so that the output comparison only sees results.`,
		Example: `  sudo echoctl optimize --ignore '^iter_ms=' -- ./app --size 64M
  echoctl run app.plan -- ./app --size 64M`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 || cmd.ArgsLenAtDash() != 0 {
				return errors.New("give -- and the command to optimize")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return runOptimize(cmd, o, args) },
	}
	f := cmd.Flags()
	f.StringVarP(&o.output, "output", "o", "", `plan file to write (default CMD.plan in the current directory; "-": standard output)`)
	o.calibrationFlags.add(f)
	f.BoolVar(&o.hostAllocs, "host-allocs", false, "also trace malloc & co. (slow on interpreters; validation finds host buffers' allocations without it)")
	f.BoolVar(&o.launches, "launches", false, "also trace kernel launches (a plan needs none; they cost most in launch-bound loops)")
	return cmd
}

func runOptimize(cmd *cobra.Command, o *optimizeOptions, argv []string) error {
	if err := o.calibrationFlags.check(); err != nil {
		return err
	}
	if err := oneStdout(o.output, o.json, "plan"); err != nil {
		return err
	}
	planPath, tracePath, remove, err := pipeline.OptimizePaths(argv, o.output)
	if err != nil {
		return err
	}
	defer remove()
	stderr := cmd.ErrOrStderr()
	// The new trace replaces PLAN.trace only with the plan it belongs to (finishOptimize): an
	// interrupted or failing optimize leaves the old plan and its trace as they were.
	traceOut, err := pipeline.CreateTrace(tracePath, argv, stdoutFile(cmd.OutOrStdout()))
	if err != nil {
		return err
	}
	defer traceOut.Abort()
	out, err := pipeline.Optimize{
		Argv: argv, Rounds: o.rounds, Budget: budgetOption(o.budget), Ignore: o.ignore.re,
		Trace: tracer.Config{MinHostBytes: tracer.DefaultMinHostBytes, HostAllocs: o.hostAllocs, Launches: o.launches,
			RingBytes: tracer.DefaultRingBytes},
		Record: func(ctx context.Context, opts tracer.Options) (tracer.Result, error) {
			return pipeline.RecordInto(ctx, traceOut, selfLauncher(), opts)
		},
		TraceFile: traceOut.Name(), TracePath: tracePath, Tool: "echoctl " + version,
		Progress: func(n int, format string, args ...any) {
			fmt.Fprintf(stderr, "optimize: [%d/%d] "+format+"\n", append([]any{n, pipeline.Steps}, args...)...)
		},
	}.Run(cmd.Context())
	if err != nil {
		return err
	}
	return finishOptimize(cmd, out.Plan, planPath, traceOut, out.Calibration, out.Why, o.json)
}

// finishOptimize writes the plan, then puts its trace beside it, and prints the before/after
// table.
func finishOptimize(cmd *cobra.Command, p *plan.Plan, planPath string, trace *outfile.File, cal *calibrate.Result,
	why string, asJSON bool) error {
	if err := writePlan(cmd, planPath, p); err != nil {
		return err
	}
	if planPath != outfile.Stdout {
		if err := trace.Commit(); err != nil {
			return err
		}
	}
	if cal != nil && planPath != outfile.Stdout {
		if err := calibrate.WriteRecord(planPath, p, cal); err != nil { // the rounds, for echoctl report
			return err
		}
	}
	out := cmd.OutOrStdout()
	if planPath == outfile.Stdout {
		out = cmd.ErrOrStderr() // the plan is on stdout
	} else if asJSON {
		return printJSON(out, planview.CalibrationDocOf(schemaOptimize, planPath, p, cal, why))
	}
	if cal == nil {
		fmt.Fprintf(out, "%s\nwrote %s\n", why, planPath)
		return nil
	}
	fmt.Fprintln(out)
	if err := planview.Calibration(out, cal, p, planPath); err != nil {
		return err
	}
	planview.Savings(out, p.Savings)
	return nil
}
