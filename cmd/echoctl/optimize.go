package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/echo-uma/echo/calibrate"
	"github.com/echo-uma/echo/internal/outfile"
	"github.com/echo-uma/echo/planner"
	"github.com/echo-uma/echo/runner"
	"github.com/echo-uma/echo/trace"
	"github.com/echo-uma/echo/tracer"
	"github.com/echo-uma/echo/validate"
)

type optimizeOptions struct {
	*globalOptions
	output     string
	rounds     int
	ignore     string
	hostAllocs bool
	launches   bool
}

func newOptimizeCmd(g *globalOptions) *cobra.Command {
	o := &optimizeOptions{globalOptions: g, rounds: 5}
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
	f.IntVar(&o.rounds, "rounds", o.rounds, "calibration runs of each variant")
	f.StringVar(&o.ignore, "ignore", "", "regular expression: output lines matching it are not compared")
	f.BoolVar(&o.hostAllocs, "host-allocs", false, "also trace malloc & co. (slow on interpreters; validation finds host buffers' allocations without it)")
	f.BoolVar(&o.launches, "launches", false, "also trace kernel launches (a plan needs none; they cost most in launch-bound loops)")
	return cmd
}

func runOptimize(cmd *cobra.Command, o *optimizeOptions, argv []string) error {
	var ignore *regexp.Regexp
	if o.ignore != "" {
		var err error
		if ignore, err = regexp.Compile(o.ignore); err != nil {
			return fmt.Errorf("--ignore: %w", err)
		}
	}
	exe, err := exec.LookPath(argv[0])
	if err != nil {
		return fmt.Errorf("finding %s: %w", argv[0], err)
	}
	if err := runner.Preloadable(exe); err != nil {
		return err
	}
	if err := tracer.CheckPrivileges(); err != nil {
		return err
	}
	if o.output == outfile.Stdout && o.json {
		return errors.New("-o - and --json both want standard output: give the plan a file")
	}
	planPath := o.output
	if planPath == "" {
		planPath = filepath.Base(exe) + ".plan"
	}
	if err := outfile.NotAnInput(planPath, "the program", exe); err != nil {
		return err
	}
	stderr := cmd.ErrOrStderr()
	step := func(n int, format string, args ...any) {
		fmt.Fprintf(stderr, "optimize: [%d/4] "+format+"\n", append([]any{n}, args...)...)
	}
	// The program's own output is not shown, but its stderr is kept to explain a failure.
	tail := runner.NewTail(4 << 10)
	quiet := runner.IO{Stdout: io.Discard, Stderr: tail}
	ctx := cmd.Context()

	step(1, "tracing %s", exe)
	var found planner.Finding // the one-time cost of finding the plan, step by step
	began := time.Now()
	tracePath := planner.SideFile(planPath, planner.SideTrace)
	if planPath == outfile.Stdout {
		// No file to keep the trace beside: it is only a step here.
		dir, err := os.MkdirTemp("", "echoctl-optimize-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		tracePath = filepath.Join(dir, "trace.bin")
	}
	// The new trace replaces PLAN.trace only with the plan it belongs to (finishOptimize): an
	// interrupted or failing optimize leaves the old plan and its trace as they were.
	traceOut, err := createTrace(cmd, tracePath, argv)
	if err != nil {
		return err
	}
	defer traceOut.Abort()
	traced, err := recordInto(cmd, traceOut, tracer.Options{
		Config:  tracer.Config{MinHostBytes: 64 << 10, HostAllocs: o.hostAllocs, Launches: o.launches, RingBytes: 16 << 20},
		Command: argv, Stdout: io.Discard, Stderr: tail,
	})
	if err := stopped(ctx); err != nil {
		return err // Ctrl-C ended the trace early: a plan from it would be a plan of a part
	}
	if err != nil && !errors.Is(err, tracer.ErrNoCUDA) {
		return err
	}
	if traced.ExitCode != 0 {
		return failed(argv[0], "while being traced", traced.ExitCode, tail)
	}
	if traced.Truncated != "" {
		return fmt.Errorf("the trace was cut short (%s): no plan was made from a part of the run; free space and run again", traced.Truncated)
	}

	found.TraceMS = msSince(began)
	step(2, "planning")
	p, err := planFile(traceOut.Name(), tracePath)
	if err != nil {
		return err
	}
	if traced.Lost > 0 {
		step(2, "WARNING: the trace lost %d events (the ring buffer was full): the plan may miss pairs, and says so", traced.Lost)
	}
	candidates := validate.Candidates(p)
	step(2, "%d pairs, %d candidates, %s", len(p.Pairs), len(candidates), predictionLine(p))
	if len(candidates) == 0 {
		return finishOptimize(cmd, p, planPath, traceOut, nil, "no pair can be merged: the program stays as written", o.json)
	}

	runs := "one run"
	for _, pair := range candidates {
		if pair.Host.Unresolved || pair.Device.Unresolved {
			runs = "a run that finds their allocations, then one that watches them"
			break
		}
	}
	step(3, "validating %d candidate pairs: %s", len(candidates), runs)
	began = time.Now()
	res, err := validate.Run(ctx, p, argv, quiet)
	found.ValidateMS = msSince(began)
	if err := stopped(ctx); err != nil {
		return err
	}
	if err != nil && res.ExitCode != 0 {
		return failed(argv[0], "during validation", res.ExitCode, tail)
	}
	if err != nil {
		return err
	}
	validate.Apply(p, res.Report)
	var validated []planner.Pair
	for _, pair := range p.Pairs {
		if pair.Status == planner.StatusValidated {
			validated = append(validated, pair)
		} else if pair.Status == planner.StatusRefused && strings.HasPrefix(pair.Reason, "validation:") {
			step(3, "%s refused: %s", pair.ID, pair.Reason)
		}
	}
	if len(validated) == 0 {
		return finishOptimize(cmd, p, planPath, traceOut, nil, "validation refused every candidate: the program stays as written", o.json)
	}

	step(4, "calibrating %d validated pairs over %d rounds", len(validated), o.rounds)
	began = time.Now()
	cal, err := calibrate.Calibrate(ctx, p, validated, argv, calibrate.Options{
		Rounds: o.rounds, Ignore: ignore,
		Progress: func(format string, args ...any) { step(4, format, args...) },
	})
	if err != nil {
		return err
	}
	found.CalibrateMS = msSince(began)
	if err := calibrate.Apply(p, validated, cal); err != nil {
		return err
	}
	p.Savings = savingsOf(p, cal, found)
	return finishOptimize(cmd, p, planPath, traceOut, cal, "", o.json)
}

// failed is the error that stops the pipeline when the program itself fails: a plan made
// from a failing run would optimize the failure.
func failed(program, when string, status int, stderr *runner.Tail) error {
	return stderr.Explain(fmt.Sprintf("%s exited with status %d %s: no plan was written; fix the run first", program, status, when))
}

// planFile plans from the trace in file, which the plan records as path (where it will be).
func planFile(file, path string) (*planner.Plan, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	defer f.Close()
	r, err := trace.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return planner.Analyze(r, path, planner.DefaultOptions(), "echoctl "+version)
}

// finishOptimize writes the plan, then puts its trace beside it, and prints the before/after
// table.
func finishOptimize(cmd *cobra.Command, p *planner.Plan, planPath string, trace *outfile.File, cal *calibrate.Result,
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
		return printJSON(out, newCalibrationDoc(schemaOptimize, planPath, p, cal, why))
	}
	if cal == nil {
		fmt.Fprintf(out, "%s\nwrote %s\n", why, planPath)
		return nil
	}
	fmt.Fprintf(out, "\n%s from the trace (f_copy %.1f%%)\n", predictionLine(p), 100*p.FCopy)
	if err := renderCalibration(out, cal, p, planPath); err != nil {
		return err
	}
	renderSavings(out, p.Savings)
	return nil
}
