package plan

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
	// BeforeMS is the measured median of one iteration as written; AfterMS the same served, as
	// calibration's paired rounds measured it (BeforeMS over their median speed-up).
	BeforeMS float64 `json:"before_ms_per_iteration"`
	AfterMS  float64 `json:"after_ms_per_iteration"`
	// Finding is the wall time of each step that found the plan.
	Finding Finding `json:"finding"`
	// SetupMS is what every served run pays at its start (page-locking, mapping), and
	// RunIterations the iterations of a run as calibration ran it: a run repays its set-up
	// from its own iterations' saving, and only what is left over repays Finding.
	SetupMS       float64 `json:"setup_ms_per_run,omitempty"`
	RunIterations int     `json:"run_iterations,omitempty"`
	// BreakEvenIterations is how many iterations of served runs like calibration's repay
	// Finding and each run's set-up (BreakEven; 0 when they never do: an iteration saves
	// nothing, or a run's set-up eats its saving); BreakEvenS is how long they take as
	// written. It is the plan's one break-even figure.
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

// RunCost is what one served run pays once and how long it is: the set-up at its start and
// its iterations.
type RunCost struct {
	SetupMS    float64
	Iterations int
}

// NewSavings is the savings of serving p's enabled pairs with strategy, measured at beforeMS
// and afterMS per iteration in runs that each cost run, found at the cost f.
func NewSavings(p *Plan, strategy Strategy, beforeMS, afterMS float64, run RunCost, f Finding) *Savings {
	s := &Savings{Strategy: strategy, BeforeMS: beforeMS, AfterMS: afterMS, Finding: f, SetupMS: run.SetupMS,
		RunIterations: run.Iterations}
	if strategy != StrategyPinned {
		for _, pair := range p.Pairs {
			if pair.Status != StatusEnabled {
				continue
			}
			s.BytesSkipped += pair.BytesPerIteration
			s.CapacitySaved += pair.Bytes
		}
	}
	s.BreakEvenIterations, s.BreakEvenS = BreakEven(f.TotalMS(), beforeMS, afterMS, run)
	return s
}

// BreakEven is the plan's one break-even: how many iterations, and seconds of the program as
// written, of served runs like run repay a one-time cost of costMS (finding the plan), when
// each iteration takes beforeMS as written and afterMS served and every run also pays its
// set-up from its own iterations. 0, 0 when they never repay it: an iteration saves nothing,
// or a run's set-up takes all its iterations save (Repaid says whether one run repays its
// own set-up, which is calibration's rule).
func BreakEven(costMS, beforeMS, afterMS float64, run RunCost) (iterations, seconds float64) {
	net := beforeMS - afterMS // saved per iteration, less each iteration's share of its run's set-up
	if run.Iterations > 0 {
		net -= run.SetupMS / float64(run.Iterations)
	}
	if net <= 0 || costMS <= 0 {
		return 0, 0
	}
	iterations = costMS / net
	return iterations, iterations * beforeMS / 1000
}

// Repaid says whether a run of iterations, each saving gainMS, repays the setupMS it pays at
// its start: the rule calibration enables a strategy by where the complete runs alone do not
// tell (calibrate's repays).
func Repaid(setupMS, gainMS float64, iterations int) bool {
	return gainMS > 0 && float64(iterations)*gainMS >= setupMS
}
