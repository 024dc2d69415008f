// Package calibrate decides a plan by measurement (paper §3.3.2): the program as written
// (baseline, the shim only timing its loop) and merged with each applicable strategy run
// in turn for several rounds; a strategy is enabled only if its median iteration beats the
// baseline's by more than the baseline's own spread, and only if the program printed and
// returned exactly what the baseline did.
package calibrate

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"

	"github.com/echo-uma/echo/planner"
	"github.com/echo-uma/echo/runner"
)

// Options tunes a calibration.
type Options struct {
	Rounds     int            // runs of every variant (default 5)
	Ignore     *regexp.Regexp // output lines that differ between runs by nature (timings)
	Strategies []string       // to try; default mapped, managed, and system where the device allows
	Stderr     io.Writer      // where the program's stderr goes (its stdout is captured)
	Progress   func(format string, args ...any)
}

// Variant is one way of running the program and what the runs showed.
type Variant struct {
	Strategy    string    `json:"strategy"` // "" for the baseline
	RoundMS     []float64 `json:"round_ms"` // median iteration of each round
	MedianMS    float64   `json:"median_ms"`
	SpreadMS    float64   `json:"spread_ms"` // 2 × the median absolute deviation of RoundMS
	OutputDiff  string    `json:"output_diff,omitempty"`
	Untouched   string    `json:"untouched,omitempty"` // the shim ran the program untouched: why
	Merged      int       `json:"merged"`
	lastReport  runner.Report
	firstOutput []byte
	exitCode    int
}

// Result is the calibration's outcome.
type Result struct {
	Baseline Variant   `json:"baseline"`
	Variants []Variant `json:"variants"`
	Chosen   string    `json:"chosen,omitempty"` // the winning strategy, if any
	Device   runner.Report
}

// Calibrate runs the comparison for the plan's pairs that are not refused.
func Calibrate(p *planner.Plan, pairs []planner.Pair, argv []string, o Options) (*Result, error) {
	if o.Rounds < 1 {
		o.Rounds = 5
	}
	if o.Progress == nil {
		o.Progress = func(string, ...any) {}
	}
	base, err := planner.Compact(p, nil, "mapped", planner.ModeMeasure)
	if err != nil {
		return nil, err
	}
	res := &Result{Baseline: Variant{}}
	strategies := o.Strategies
	composed := map[string]string{}
	for r := 0; r < o.Rounds; r++ {
		if err := res.Baseline.run(argv, base, o, r); err != nil {
			return nil, fmt.Errorf("baseline run %d: %w", r+1, err)
		}
		if r == 0 {
			res.Device = res.Baseline.lastReport
			if strategies == nil {
				strategies = applicable(res.Device)
			}
			for _, s := range strategies {
				c, err := planner.Compact(p, pairs, s, planner.ModeCalibrate)
				if err != nil {
					return nil, err
				}
				composed[s] = c
				res.Variants = append(res.Variants, Variant{Strategy: s})
			}
		}
		for i := range res.Variants {
			v := &res.Variants[i]
			if err := v.run(argv, composed[v.Strategy], o, r); err != nil {
				return nil, fmt.Errorf("%s run %d: %w", v.Strategy, r+1, err)
			}
			v.compare(&res.Baseline, o.Ignore)
		}
		o.Progress("round %d/%d: %s", r+1, o.Rounds, res.roundLine(r))
	}
	res.decide()
	return res, nil
}

// applicable strategies: system only where the device reaches pageable memory.
func applicable(device runner.Report) []string {
	s := []string{"mapped", "managed"}
	if device.Pageable {
		s = append(s, "system")
	}
	return s
}

func (v *Variant) run(argv []string, compact string, o Options, round int) error {
	res, err := runner.Run(argv, compact, runner.IO{Stderr: o.Stderr})
	if err != nil {
		return err
	}
	if len(res.Report.IterationNS) == 0 {
		return fmt.Errorf("the run timed no iteration: the plan's loop marker was never reached")
	}
	ms := make([]float64, len(res.Report.IterationNS))
	for i, ns := range res.Report.IterationNS {
		ms[i] = float64(ns) / 1e6
	}
	v.RoundMS = append(v.RoundMS, median(ms))
	v.lastReport = res.Report
	v.Merged = res.Report.Merged
	if !res.Report.Active && v.Strategy != "" && v.Untouched == "" {
		v.Untouched = res.Report.Reason
	}
	if round == 0 {
		v.firstOutput, v.exitCode = res.Stdout, res.ExitCode
	} else if v.Strategy == "" && v.OutputDiff == "" {
		// The baseline must be deterministic itself, or no comparison means anything.
		v.OutputDiff = diff(v.firstOutput, v.exitCode, res.Stdout, res.ExitCode, o.Ignore)
	}
	return nil
}

// compare checks the latest run's output against the baseline's.
func (v *Variant) compare(base *Variant, ignore *regexp.Regexp) {
	if v.OutputDiff == "" {
		v.OutputDiff = diff(base.firstOutput, base.exitCode, v.firstOutput, v.exitCode, ignore)
	}
}

// diff describes the first difference between two runs' outputs and statuses, or "".
func diff(a []byte, codeA int, b []byte, codeB int, ignore *regexp.Regexp) string {
	if codeA != codeB {
		return fmt.Sprintf("exit status %d instead of %d", codeB, codeA)
	}
	la, lb := lines(a, ignore), lines(b, ignore)
	for i := 0; i < max(len(la), len(lb)); i++ {
		switch {
		case i >= len(la):
			return fmt.Sprintf("printed an extra line %q", lb[i])
		case i >= len(lb):
			return fmt.Sprintf("did not print %q", la[i])
		case !bytes.Equal(la[i], lb[i]):
			return fmt.Sprintf("printed %q where the baseline printed %q", lb[i], la[i])
		}
	}
	return ""
}

func lines(out []byte, ignore *regexp.Regexp) [][]byte {
	var keep [][]byte
	for _, l := range bytes.Split(out, []byte("\n")) {
		if ignore == nil || !ignore.Match(l) {
			keep = append(keep, l)
		}
	}
	return keep
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// summarize sets the median and the spread of the rounds. The spread is twice the median
// distance of the rounds from their median: one round slowed by something else on the
// machine widens the range of the rounds as much as its slowdown, but not this.
func (v *Variant) summarize() {
	v.MedianMS = median(v.RoundMS)
	dev := make([]float64, len(v.RoundMS))
	for i, ms := range v.RoundMS {
		dev[i] = math.Abs(ms - v.MedianMS)
	}
	v.SpreadMS = 2 * median(dev)
}

// decide picks the fastest strategy that computes what the baseline computes and beats
// it by more than the baseline's own spread (and more than its own).
func (r *Result) decide() {
	r.Baseline.summarize()
	best := r.Baseline.MedianMS
	for i := range r.Variants {
		v := &r.Variants[i]
		v.summarize()
		margin := max(r.Baseline.SpreadMS, v.SpreadMS)
		if v.OutputDiff == "" && v.Untouched == "" && v.Merged > 0 && v.MedianMS < r.Baseline.MedianMS-margin &&
			v.MedianMS < best {
			best, r.Chosen = v.MedianMS, v.Strategy
		}
	}
}

func (r *Result) roundLine(round int) string {
	line := fmt.Sprintf("baseline %.3f ms", r.Baseline.RoundMS[round])
	for _, v := range r.Variants {
		line += fmt.Sprintf(", %s %.3f ms", v.Strategy, v.RoundMS[round])
	}
	return line
}
