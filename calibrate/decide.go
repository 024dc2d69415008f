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
// more than the baseline's own spread (and more than its own), saves no more than the
// calibrated pairs' copies can explain, and whose complete run pays for its set-up (repays).
// Every variant gets its verdict, the reason where it is refused. It reports whether a
// strategy was passed over only for being unexplained, when more rounds could settle it.
func (r *Result) decide() (unexplained bool) {
	r.Baseline.summarize()
	r.Chosen = ""
	best := -1
	base := &r.Baseline
	repaid := map[int]bool{}
	for i := range r.Variants {
		v := &r.Variants[i]
		v.summarize()
		v.Unexplained, v.Verdict, v.Enabled, v.SetupMS, v.BreakEven = "", "", false, 0, 0
		margin := max(base.SpreadMS, v.SpreadMS)
		switch {
		case base.OutputDiff != "":
			v.Verdict = uncheckedVerdict + base.OutputDiff + ": no merge can be checked against it; give --ignore for the lines that vary"
			continue
		case v.OutputDiff != "":
			v.Verdict = "output differs: the program " + v.OutputDiff
			continue
		case v.Untouched != "":
			v.Verdict = "ran untouched: " + v.Untouched
			continue
		case v.Served == 0:
			v.Verdict = "nothing served: no pair was merged or pinned in its runs"
			continue
		case v.MedianMS > base.MedianMS+margin:
			v.Verdict = fmt.Sprintf("slower: %.3f ms per iteration against %.3f as written, more than the spread (%.3f ms)",
				v.MedianMS, base.MedianMS, margin)
			continue
		case v.MedianMS >= base.MedianMS-margin:
			v.Verdict = fmt.Sprintf("not faster: %.3f ms per iteration against %.3f as written, within the spread (%.3f ms)",
				v.MedianMS, base.MedianMS, margin)
			continue
		}
		if saved, bound := base.MedianMS-v.MedianMS, gainSlack*r.CopyMS+margin; saved > bound {
			v.Unexplained = fmt.Sprintf("saves %.3f ms per iteration, more than the %.3f ms of copies the trace accounts for can explain",
				saved, r.CopyMS)
			v.Verdict = "not believed: it " + v.Unexplained
			unexplained = true
			continue
		}
		ok, why := v.repays(base)
		v.Verdict = why
		if ok {
			repaid[i] = true
		}
		if ok && (best < 0 || v.MedianMS < r.Variants[best].MedianMS) {
			best = i
		}
	}
	if best >= 0 {
		r.Chosen = r.Variants[best].Strategy
		r.Variants[best].Enabled = true
		for i := range repaid {
			if v := &r.Variants[i]; i != best {
				v.Verdict = fmt.Sprintf("passed over: %s is faster per iteration (%s)", r.Chosen, v.Verdict)
			}
		}
	}
	return unexplained && r.Chosen == ""
}

// uncheckedVerdict opens the verdict of every variant when the program as written printed other
// things in other runs (more than numbers: lines, words, its status), which leaves nothing to
// compare a merged run's output with.
const uncheckedVerdict = "not checked: the program as written printed other things in other runs: it "

// Refusal is why the variant was not enabled ("" when it was): its verdict, or, in a record
// written before verdicts were, the first problem the record names.
func (v Variant) Refusal() string {
	if v.Enabled {
		return ""
	}
	if v.Verdict != "" {
		return v.Verdict
	}
	for _, why := range []string{v.OutputDiff, v.Untouched, v.Unexplained} {
		if why != "" {
			return why
		}
	}
	return ""
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
	v.RunMedianMS, v.RunSpreadMS = 0, 0
	if len(v.RunMS) > 0 {
		v.RunMedianMS = median(v.RunMS)
		dev := make([]float64, len(v.RunMS))
		for i, ms := range v.RunMS {
			dev[i] = math.Abs(ms - v.RunMedianMS)
		}
		v.RunSpreadMS = 2 * median(dev)
	}
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
