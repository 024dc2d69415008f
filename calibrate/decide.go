package calibrate

import (
	"fmt"
	"math"
	"slices"
)

// gainSlack is how many times the traced copy time a merge may save before the saving is
// taken for noise. More than once: the trace estimates the copies that also waited for a
// kernel, times them under the tracer, and a merge also saves what copies cost around
// them (the emulator's 64 MiB stream saves 1.2× its traced copy time). Much more is
// something else: particlefilter on the H200 measured 9 ms saved per iteration where the
// trace saw 0.45 ms of copies, and the deployed plan was slower than the program.
const gainSlack = 2.0

// decide picks the fastest strategy that computes what the baseline computes, beats it by
// more than the baseline's own spread (and more than its own), and saves no more than the
// calibrated pairs' copies can explain. It reports whether a strategy was passed over only
// for that last reason, when more rounds could settle it.
func (r *Result) decide() (unexplained bool) {
	r.Baseline.summarize()
	r.Chosen = ""
	best := r.Baseline.MedianMS
	for i := range r.Variants {
		v := &r.Variants[i]
		v.summarize()
		v.Unexplained = ""
		margin := max(r.Baseline.SpreadMS, v.SpreadMS)
		if v.OutputDiff != "" || v.Untouched != "" || v.Merged == 0 || v.MedianMS >= r.Baseline.MedianMS-margin {
			continue
		}
		if saved, bound := r.Baseline.MedianMS-v.MedianMS, gainSlack*r.CopyMS+margin; saved > bound {
			v.Unexplained = fmt.Sprintf("saves %.3f ms per iteration, more than the %.3f ms of copies the trace accounts for can explain",
				saved, r.CopyMS)
			unexplained = true
			continue
		}
		if v.MedianMS < best {
			best, r.Chosen = v.MedianMS, v.Strategy
		}
	}
	return unexplained && r.Chosen == ""
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

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
