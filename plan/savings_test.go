package plan

import (
	"math"
	"testing"
)

func TestSavings(t *testing.T) {
	p := &Plan{Pairs: []Pair{
		{ID: "p1", Bytes: 4 << 20, BytesPerIteration: 8 << 20, Status: StatusEnabled},
		{ID: "p2", Bytes: 1 << 20, BytesPerIteration: 1 << 20, Status: StatusRefused},
	}}
	f := Finding{TraceMS: 1000, ValidateMS: 500, CalibrateMS: 2500}
	s := NewSavings(p, StrategyMapped, 10, 6, RunCost{}, f)
	// A merge skips the enabled pair's copies and keeps one buffer of the two.
	if s.BytesSkipped != 8<<20 || s.CapacitySaved != 4<<20 {
		t.Errorf("mapped: skipped %d, saved %d", s.BytesSkipped, s.CapacitySaved)
	}
	// 4000 ms found, 4 ms a iteration saved: 1000 iterations, 10 s of the run as written.
	if !near(s.BreakEvenIterations, 1000) || !near(s.BreakEvenS, 10) {
		t.Errorf("break-even %v iterations, %v s", s.BreakEvenIterations, s.BreakEvenS)
	}
	if s.Energy.Measured() {
		t.Error("energy measured without a meter")
	}
	// Pinned keeps every copy and both buffers.
	if s := NewSavings(p, StrategyPinned, 10, 8, RunCost{}, f); s.BytesSkipped != 0 || s.CapacitySaved != 0 || !near(s.BreakEvenIterations, 2000) {
		t.Errorf("pinned: %+v", s)
	}
	// A plan that saves nothing never pays back.
	if it, sec := BreakEven(4000, 10, 10.5, RunCost{}); it != 0 || sec != 0 {
		t.Errorf("break-even of a loss: %v, %v", it, sec)
	}
}

// The one break-even weighs the set-up every run pays as well as finding the plan: runs of 50
// iterations saving 4 ms each, 100 ms of set-up a run, net 2 ms an iteration: 4000 ms of
// finding repaid after 2000 iterations (40 runs). A run whose set-up eats its saving never
// repays, though each iteration is faster; Repaid is the same rule for one run.
func TestBreakEvenWeighsTheSetup(t *testing.T) {
	run := RunCost{SetupMS: 100, Iterations: 50}
	if it, sec := BreakEven(4000, 10, 6, run); !near(it, 2000) || !near(sec, 20) {
		t.Errorf("break-even %v iterations, %v s; want 2000, 20", it, sec)
	}
	if !Repaid(run.SetupMS, 4, run.Iterations) || Repaid(run.SetupMS, 1.9, run.Iterations) {
		t.Error("Repaid: 50 iterations at 4 ms repay 100 ms, at 1.9 ms they do not")
	}
	if it, _ := BreakEven(4000, 10, 8.1, run); it != 0 {
		t.Errorf("a run whose set-up eats its saving: break-even %v; want never (0)", it)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
