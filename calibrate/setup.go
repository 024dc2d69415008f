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
// either, or, within that noise, where the run's iterations save more than the set-up costs
// (the set-up is what the complete run costs beyond its iterations' saving; the break-even
// is the iterations that repay it). It says which, with the numbers.
func (v *Variant) repays(base *Variant) (ok bool, why string) {
	gain := base.MedianMS - v.MedianMS // per iteration, > 0 here
	slower := v.RunMedianMS - base.RunMedianMS
	n := v.Iterations
	v.SetupMS = max(0, slower+float64(n)*gain)
	v.BreakEven = int(math.Ceil(v.SetupMS / gain))
	run := fmt.Sprintf("%.1f ms against %.1f ms as written", v.RunMedianMS, base.RunMedianMS)
	if margin := max(base.RunSpreadMS, v.RunSpreadMS); -slower > margin {
		return true, fmt.Sprintf("complete run faster: %s, more than the spread (%.1f ms)", run, margin)
	}
	if float64(n)*gain >= v.SetupMS {
		return true, fmt.Sprintf("set-up repaid: %.1f ms of set-up, repaid after %d iterations at %.3f ms saved each; "+
			"the run has %d (complete run %s)", v.SetupMS, v.BreakEven, gain, n, run)
	}
	return false, fmt.Sprintf("set-up not repaid: %.1f ms of set-up (page-locking, pools) against %.3f ms saved per "+
		"iteration: repaid after %d iterations, the run has %d (complete run %s)", v.SetupMS, gain, v.BreakEven, n, run)
}
