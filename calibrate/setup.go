package calibrate

import (
	"fmt"

	"github.com/echo-uma/echo/plan"
)

// repays decides whether v, faster per iteration than base, also gives the user a faster
// complete run: a strategy pays for its set-up (page-locking costs milliseconds per buffer,
// a pool grows, managed memory is touched first) before its iterations save anything, and
// on streamcluster the deployed plan ran 0.83× though every marked iteration was faster.
// The complete runs are paired round by round as the iterations are (paired.go), against
// no threshold: enabled where they show the variant's run faster, Confidence sure; refused
// where they show it slower; in between, enabled where the run's iterations save more than
// the set-up costs. The set-up is what the shim timed of its own (page-locking, mapping)
// where it did: inferring it from complete runs that differ by less than their noise is
// inferring it from the noise (FCN on the H200: 2738 ms "shown" against 30 iterations saving
// 77 ms each, where hand-pinning ran the whole program 1.3× faster). Without the shim's
// figure it is what the complete run costs beyond its iterations' saving, the median over the
// rounds. It says which rule held, with the numbers, and no break-even: the plan's one
// break-even figure is its savings' (plan.BreakEven), which weighs this set-up too.
func (v *Variant) repays(base *Variant) (ok bool, why string) {
	n := float64(v.Iterations)
	gain := v.GainMS(base)
	runs := pairedTest(base.RunMS, v.RunMS, 1)
	v.RunPaired = &runs
	source := "from the complete runs"
	v.SetupMS = max(0, v.runCostMS(base)+n*gain)
	if len(v.ShimSetupMS) > 0 && runs.Outcome != OutcomeSlower {
		v.SetupMS, source = median(v.ShimSetupMS), "page-locking and mapping, timed by the shim"
	}
	run := fmt.Sprintf("%.1f ms against %.1f ms as written", v.RunMedianMS, base.RunMedianMS)
	switch {
	case runs.Outcome == OutcomeFaster:
		return true, fmt.Sprintf("complete run faster: %s, faster in %d of %d paired rounds, %s sure", run,
			runs.Faster, runs.Rounds, percent(runs.Confidence))
	case runs.Outcome != OutcomeSlower && plan.Repaid(v.SetupMS, gain, v.Iterations):
		return true, fmt.Sprintf("set-up repaid: %.1f ms of set-up (%s) against %.1f ms its %d iterations save "+
			"(%.3f ms each; complete run %s, not shown faster or slower)", v.SetupMS, source, n*gain, v.Iterations, gain, run)
	case runs.Outcome == OutcomeSlower:
		return false, fmt.Sprintf("set-up not repaid: complete run slower: %s, slower in %d of %d paired rounds, %s sure",
			run, runs.Slower, runs.Rounds, percent(runs.Confidence))
	}
	return false, fmt.Sprintf("set-up not repaid: %.1f ms of set-up (%s) against %.1f ms its %d iterations save "+
		"(%.3f ms each; complete run %s)", v.SetupMS, source, n*gain, v.Iterations, gain, run)
}

// GainMS is what the variant saves per iteration: the baseline's median iteration less the
// same over the variant's paired median speed-up (its medians' difference where the rounds
// were not paired).
func (v *Variant) GainMS(base *Variant) float64 {
	if v.Paired != nil && v.Paired.Speedup > 0 {
		return base.MedianMS * (1 - 1/v.Paired.Speedup)
	}
	return base.MedianMS - v.MedianMS
}

// runCostMS is what the variant's complete run takes beyond the baseline's, the median over
// the rounds of each round's difference.
func (v *Variant) runCostMS(base *Variant) float64 {
	var d []float64
	for i := range min(len(base.RunMS), len(v.RunMS)) {
		d = append(d, v.RunMS[i]-base.RunMS[i])
	}
	return median(d)
}
