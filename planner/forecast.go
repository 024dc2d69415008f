package planner

import (
	"fmt"
	"math"
	"slices"

	"github.com/echo-uma/echo/plan"
)

// Forecast is every figure Echo predicts for a plan, read from the plan in one place: the
// Amdahl bound of its copies, each strategy's estimate (made by Predict alone, kept in the
// plan by Recount), the one the plan stands by, and what the model assumed. plan, optimize,
// calibrate, report, attach and their --json print a plan's prediction through it, so no two
// of them can say different things of one plan (issue 41: one optimize printed 2.11× for
// system, 1.40× for mapped and an Amdahl bound of 4.56×; the report's headline said 1.40×
// while its timeline drew about 33×).
type Forecast struct {
	// None says why there is no prediction ("" when there is): no loop, no pair left to
	// serve. Then no figure below is set, and none is printed: a refused plan's copy share
	// of 0 % was not measured.
	None string `json:"none,omitempty"`
	// Assumes is the machine the cost model priced (Machine.Name, MachineFor).
	Assumes string `json:"assumes,omitempty"`
	// IterationMS is the traced iteration every speed-up divides (loop.ms_per_iteration), and
	// CopyMS the part of it in the copies of the pairs not refused.
	IterationMS float64 `json:"iteration_ms,omitempty"`
	CopyMS      float64 `json:"copy_ms,omitempty"`
	// FCopy is CopyMS's share of the iteration, and Bound the Amdahl bound 1/(1−FCopy): what
	// removing the copies could give at most, not a prediction.
	FCopy float64 `json:"f_copy,omitempty"`
	Bound float64 `json:"amdahl_bound,omitempty"`
	// Estimates are each strategy's predicted iteration; Headline the one the plan stands by:
	// the strategy calibration chose, else the best (nil where no strategy the device runs
	// serves the pairs left, or in a plan from before version 5, which has no estimates).
	Estimates []plan.Estimate `json:"estimates"`
	Headline  *plan.Estimate  `json:"headline,omitempty"`
	// Unpredicted names the strategies a pair allows that get no estimate, and why (system
	// on a device that does not reach pageable memory).
	Unpredicted []string `json:"unpredicted,omitempty"`
}

// ForecastFor is the plan's prediction (Forecast).
func ForecastFor(p *plan.Plan) Forecast {
	f := Forecast{Estimates: []plan.Estimate{}}
	counted := slices.ContainsFunc(p.Pairs, func(pair plan.Pair) bool { return pair.Status.Counted() })
	switch {
	case len(p.Pairs) == 0:
		f.None = "no host/device pair found"
	case p.Loop.Iterations <= 0 || p.Loop.MS <= 0:
		f.None = "no loop found: nothing repeats to predict"
	case !counted:
		f.None = "every pair was refused: nothing is left to serve"
	}
	if counted && allows(p, plan.StrategySystem) && !p.Context.Pageable {
		why := "system: the device does not reach pageable memory"
		if p.Context.GPU == "" {
			why = "system: no device known yet (calibration finds out whether it reaches pageable memory)"
		}
		f.Unpredicted = append(f.Unpredicted, why)
	}
	if f.None != "" {
		return f
	}
	f.Assumes = machineName(p.Context)
	f.IterationMS, f.CopyMS = p.Loop.MS, p.Loop.CopyMS
	f.FCopy, f.Bound = p.FCopy, p.PredictedSpeedup
	f.Estimates = slices.Clone(p.Estimates)
	if e := EstimateFor(f.Estimates, p.Context.Strategy); e != nil {
		f.Headline = e
	} else {
		f.Headline = Best(f.Estimates)
	}
	return f
}

// allows says whether a pair not refused may be served with s.
func allows(p *plan.Plan, s plan.Strategy) bool {
	return slices.ContainsFunc(p.Pairs, func(pair plan.Pair) bool { return pair.Status.Counted() && pair.Allows(s) })
}

// Speedup is the estimate of strategy s, 0 where there is none.
func (f Forecast) Speedup(s plan.Strategy) float64 {
	if e := EstimateFor(f.Estimates, s); e != nil {
		return e.Speedup
	}
	return 0
}

// BeyondTheCopies is what an estimate above the Amdahl bound saves besides the copies: only
// pinned's does, saving the first touch of the fresh host buffers its pool replaces.
const BeyondTheCopies = "the pool also saves the first touch of fresh host buffers"

// AboveBound says whether the headline promises more than the Amdahl bound, as both print.
func (f Forecast) AboveBound() bool {
	return f.Headline != nil && math.Round(100*f.Headline.Speedup) > math.Round(100*f.Bound)
}

// Line says the forecast in one line: "predicted 3.80× (pinned), Amdahl bound 11.54× (f_copy
// 91.3%)", an estimate above the bound saying why rather than stand beside a "bound" it
// beats; or "no prediction: …".
func (f Forecast) Line() string {
	if f.None != "" {
		return "no prediction: " + f.None
	}
	line := fmt.Sprintf("Amdahl bound %.2f× (f_copy %.1f%%)", f.Bound, 100*f.FCopy)
	if f.Headline != nil {
		line = fmt.Sprintf("predicted %.2f× (%s), %s", f.Headline.Speedup, f.Headline.Strategy, line)
	}
	if f.AboveBound() {
		line += " (the copies alone; " + BeyondTheCopies + ")"
	}
	return line
}
