package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"time"

	"github.com/echo-uma/echo/calibrate"
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/planner"
	"github.com/echo-uma/echo/runner"
	"github.com/echo-uma/echo/trace"
	"github.com/echo-uma/echo/tracer"
	"github.com/echo-uma/echo/validate"
)

// Optimize is one run of the whole binary path on a program.
type Optimize struct {
	Argv   []string       // the program and its arguments
	Rounds int            // calibration's runs of each variant, at least
	Budget time.Duration  // how long calibration may add rounds while undecided (calibrate.Options)
	Ignore *regexp.Regexp // output lines left out of calibration's comparison
	Trace  tracer.Config  // what the trace probes
	// Record traces the program into the trace file with opts (the caller owns the file and
	// how its tracer is launched); TraceFile is that file, TracePath what the plan records as
	// the trace's path (where the file will be kept).
	Record    func(ctx context.Context, opts tracer.Options) (tracer.Result, error)
	TraceFile string
	TracePath string
	Tool      string // the plan's writer ("echoctl VERSION")
	// Progress hears each step as it starts and what it found, step 1 to Steps.
	Progress func(step int, format string, args ...any)
}

// Steps is how many steps Optimize reports progress for.
const Steps = 4

// Outcome is what Optimize leaves: the plan (always, once planned), calibration's result
// where it ran, and, where the pipeline stopped early, why nothing is deployed.
type Outcome struct {
	Plan        *plan.Plan
	Calibration *calibrate.Result
	Why         string
}

// Run traces, plans, validates and calibrates. The program's own output is discarded and
// its stderr kept to explain a failure: a plan made from a failing run would optimize the
// failure, so a program that fails (or an interrupt) stops the pipeline with an error.
func (o Optimize) Run(ctx context.Context) (Outcome, error) {
	step := o.Progress
	if step == nil {
		step = func(int, string, ...any) {}
	}
	tail := runner.NewTail(4 << 10)
	quiet := runner.IO{Stdout: io.Discard, Stderr: tail}
	var found plan.Finding // the one-time cost of finding the plan, step by step

	began := time.Now()
	traced, err := o.trace(ctx, step, tail)
	if err != nil {
		return Outcome{}, err
	}
	found.TraceMS = msSince(began)

	step(2, "planning")
	p, err := PlanTrace(o.TraceFile, o.TracePath, o.Tool)
	if err != nil {
		return Outcome{}, err
	}
	if traced.Lost > 0 {
		step(2, "WARNING: the trace lost %d events (the ring buffer was full): the plan may miss pairs, and says so", traced.Lost)
	}
	candidates := validate.Candidates(p)
	// No prediction yet: validation times the copies alone and calibration finds the device,
	// and the one prediction optimize prints is made from what they found (planner.ForecastFor).
	step(2, "%d pairs, %d candidates", len(p.Pairs), len(candidates))
	if len(candidates) == 0 {
		return Outcome{Plan: p, Why: "no pair can be merged: the program stays as written"}, nil
	}

	runs := "one run"
	if validate.Resolves(p) {
		runs = "a run that finds their allocations and times their copies, then one that watches them"
	}
	step(3, "validating %d candidate pairs: %s", len(candidates), runs)
	began = time.Now()
	res, err := validate.Run(ctx, p, o.Argv, quiet)
	found.ValidateMS = msSince(began)
	if err := runner.Interrupted(ctx, res.ExitCode); err != nil {
		return Outcome{}, err
	}
	if err != nil && res.ExitCode != 0 {
		return Outcome{}, failed(o.Argv[0], "during validation", res.ExitCode, tail)
	}
	if err != nil {
		return Outcome{}, err
	}
	validate.Apply(p, res.Report)
	for _, pair := range p.RefusedAt(plan.StageValidate) {
		step(3, "%s refused: %s", pair.ID, pair.Reason)
	}
	validated := p.PairsIn(plan.StatusValidated)
	if len(validated) == 0 {
		return Outcome{Plan: p, Why: "validation refused every candidate: the program stays as written"}, nil
	}

	step(4, "calibrating %d validated pairs over %d rounds or more", len(validated), o.Rounds)
	cal, err := Calibrate(ctx, p, validated, o.Argv, calibrate.Options{
		Rounds: o.Rounds, Budget: o.Budget, Ignore: o.Ignore,
		Progress: func(format string, args ...any) { step(4, format, args...) },
	}, found)
	if err != nil {
		return Outcome{}, err
	}
	return Outcome{Plan: p, Calibration: cal}, nil
}

// trace is Run's first step: trace the program into o.TraceFile. A program that fails, an
// interrupt or a trace cut short stops the pipeline: a plan of part of a run, or of a
// failing one, would optimize the wrong thing.
func (o Optimize) trace(ctx context.Context, step func(int, string, ...any), tail *runner.Tail) (tracer.Result, error) {
	exe, err := exec.LookPath(o.Argv[0])
	if err != nil {
		return tracer.Result{}, fmt.Errorf("finding %s: %w", o.Argv[0], err)
	}
	step(1, "tracing %s", exe)
	traced, err := o.Record(ctx, tracer.Options{Config: o.Trace, Command: o.Argv, Stdout: io.Discard, Stderr: tail,
		Progress: func(format string, args ...any) { step(1, format, args...) }}) // the libraries probed, as found
	if err := runner.Interrupted(ctx, traced.ExitCode); err != nil {
		return tracer.Result{}, err // Ctrl-C ended the trace early: a plan from it would be a plan of a part
	}
	if err != nil && !errors.Is(err, tracer.ErrNoCUDA) {
		return tracer.Result{}, err
	}
	if traced.ExitCode != 0 {
		return tracer.Result{}, failed(o.Argv[0], "while being traced", traced.ExitCode, tail)
	}
	if traced.Truncated != "" {
		return tracer.Result{}, fmt.Errorf("the trace was cut short (%s): no plan was made from a part of the run; free space and run again", traced.Truncated)
	}
	return traced, nil
}

// failed is the error that stops the pipeline when the program itself fails.
func failed(program, when string, status int, stderr *runner.Tail) error {
	return stderr.Explain(fmt.Sprintf("%s exited with status %d %s: no plan was written; fix the run first", program, status, when))
}

// PlanTrace plans from the trace in file, which the plan records as path (where it will
// be); tool names the plan's writer.
func PlanTrace(file, path, tool string) (*plan.Plan, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	defer f.Close()
	r, err := trace.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return planner.Analyze(r, path, planner.DefaultOptions(), tool)
}

// msSince is the wall time since t, in milliseconds.
func msSince(t time.Time) float64 { return float64(time.Since(t).Nanoseconds()) / 1e6 }
