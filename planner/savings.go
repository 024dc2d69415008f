package planner

// Savings is what an enabled plan saves and what finding it cost, as the paper reports them
// (§4.3–4.4): the copy payload skipped and the buffer capacity saved per iteration, the
// one-time cost of tracing, validating and calibrating, and when that cost is paid back.
type Savings struct {
	Strategy Strategy `json:"strategy"`
	// BytesSkipped is the copy payload a merge no longer moves per iteration (pinned keeps
	// every copy: 0).
	BytesSkipped uint64 `json:"bytes_skipped_per_iteration"`
	// CapacitySaved is the memory a merge frees: one buffer instead of two per pair (pinned
	// keeps both: 0).
	CapacitySaved uint64 `json:"capacity_saved_bytes"`
	// BeforeMS and AfterMS are the measured medians of one iteration, as written and served.
	BeforeMS float64 `json:"before_ms_per_iteration"`
	AfterMS  float64 `json:"after_ms_per_iteration"`
	// Finding is the wall time of each step that found the plan.
	Finding Finding `json:"finding"`
	// BreakEvenIterations is how many iterations of the served program repay Finding (0 when
	// the plan saves nothing per iteration: it never pays back); BreakEvenS is how long they
	// take as written.
	BreakEvenIterations float64 `json:"break_even_iterations,omitempty"`
	BreakEvenS          float64 `json:"break_even_s,omitempty"`
	// Energy per iteration before and after, where the machine measures it.
	Energy Energy `json:"energy"`
}

// Finding is the one-time cost of finding a plan: each step's wall time, in milliseconds (0
// for a step that was not timed, such as a trace made by a separate echoctl trace).
type Finding struct {
	TraceMS     float64 `json:"trace_ms"`
	ValidateMS  float64 `json:"validate_ms"`
	CalibrateMS float64 `json:"calibrate_ms"`
}

// TotalMS is the whole one-time cost.
func (f Finding) TotalMS() float64 { return f.TraceMS + f.ValidateMS + f.CalibrateMS }

// Energy is the energy of one iteration before and after, in millijoules, and what measured
// it (an NVML energy counter, Jetson's INA3221 rails); Source "" means not measured.
type Energy struct {
	Source   string  `json:"source,omitempty"`
	BeforeMJ float64 `json:"before_mj_per_iteration,omitempty"`
	AfterMJ  float64 `json:"after_mj_per_iteration,omitempty"`
}

// Measured reports whether the machine measured the energy.
func (e Energy) Measured() bool { return e.Source != "" }

// NewSavings is the savings of serving p's enabled pairs with strategy, measured at beforeMS
// and afterMS per iteration, found at the cost f.
func NewSavings(p *Plan, strategy Strategy, beforeMS, afterMS float64, f Finding) *Savings {
	s := &Savings{Strategy: strategy, BeforeMS: beforeMS, AfterMS: afterMS, Finding: f}
	if strategy != StrategyPinned {
		for _, pair := range p.Pairs {
			if pair.Status != StatusEnabled {
				continue
			}
			s.BytesSkipped += pair.BytesPerIteration
			s.CapacitySaved += pair.Bytes
		}
	}
	s.BreakEvenIterations, s.BreakEvenS = BreakEven(f.TotalMS(), beforeMS, afterMS)
	return s
}

// BreakEven is how many iterations, and seconds of the program's run as written, repay a
// one-time cost of costMS when each iteration takes beforeMS as written and afterMS served:
// 0, 0 when an iteration saves nothing.
func BreakEven(costMS, beforeMS, afterMS float64) (iterations, seconds float64) {
	gain := beforeMS - afterMS
	if gain <= 0 || costMS <= 0 {
		return 0, 0
	}
	iterations = costMS / gain
	return iterations, iterations * beforeMS / 1000
}
