package calibrate

import (
	"fmt"
	"math"
)

// repays decides whether v, faster per iteration than base, also gives the user a faster
// complete run: a strategy pays for its set-up (page-locking costs milliseconds per buffer,
// a pool grows, managed memory is touched first) before its iterations save anything, and
// on streamcluster the deployed plan ran 0.83× though every marked iteration was faster.
// Enabled where the median complete run beats the baseline's by more than the spread of
// either; refused where it is slower by more than that; within that noise, enabled where
// the run's iterations save more than the set-up costs. The set-up is what the shim timed of
// its own (page-locking, mapping) where it did: inferring it from complete runs that differ
// by less than their noise is inferring it from the noise (FCN on the H200: 2738 ms
// "shown" against 30 iterations saving 77 ms each, where hand-pinning ran the whole program
// 1.3× faster). Without the shim's figure it is what the complete run costs beyond its
// iterations' saving. The break-even is the iterations that repay it. It says which rule
// held, with the numbers.
func (v *Variant) repays(base *Variant) (ok bool, why string) {
	gain := base.MedianMS - v.MedianMS // per iteration, > 0 here
	slower := v.RunMedianMS - base.RunMedianMS
	n := v.Iterations
	margin := max(base.RunSpreadMS, v.RunSpreadMS)
	v.SetupMS = max(0, slower+float64(n)*gain)
	source := "from the complete runs"
	if len(v.ShimSetupMS) > 0 && slower <= margin {
		v.SetupMS, source = median(v.ShimSetupMS), "page-locking and mapping, timed by the shim"
	}
	v.BreakEven = int(math.Ceil(v.SetupMS / gain))
	run := fmt.Sprintf("%.1f ms against %.1f ms as written", v.RunMedianMS, base.RunMedianMS)
	switch {
	case -slower > margin:
		return true, fmt.Sprintf("complete run faster: %s, more than the spread (%.1f ms)", run, margin)
	case slower <= margin && float64(n)*gain >= v.SetupMS:
		return true, fmt.Sprintf("set-up repaid: %.1f ms of set-up (%s), repaid after %d iterations at %.3f ms saved "+
			"each; the run has %d (complete run %s, within the spread (%.1f ms))", v.SetupMS, source, v.BreakEven, gain, n,
			run, margin)
	}
	return false, fmt.Sprintf("set-up not repaid: %.1f ms of set-up (%s) against %.3f ms saved per iteration: repaid "+
		"after %d iterations, the run has %d (complete run %s)", v.SetupMS, source, gain, v.BreakEven, n, run)
}
