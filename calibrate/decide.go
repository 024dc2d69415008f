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

// decide picks the fastest strategy that computes what the baseline computes, is faster than
// it by MinGain or more in the paired rounds, Confidence sure (paired.go), saves no more than
// the calibrated pairs' copies can explain even at the low bound of its speed-up, and whose
// complete run pays for its set-up (repays). Every variant gets its verdict, the reason where
// it is refused. left is how many more rounds the budget allows; decide reports whether
// running them could change what is enabled: a variant is undecided, could yet be shown
// faster in that many rounds, and could then beat the strategy chosen now.
func (r *Result) decide(left int) (more bool) {
	r.Baseline.summarize()
	r.Chosen = ""
	best := -1
	base := &r.Baseline
	repaid := map[int]bool{}
	for i := range r.Variants {
		v := &r.Variants[i]
		v.summarize()
		v.Paired, v.RunPaired = nil, nil
		v.Unexplained, v.Verdict, v.Enabled, v.SetupMS = "", "", false, 0
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
		}
		t := pairedTest(base.RoundMS, v.RoundMS, 1+MinGain)
		v.Paired = &t
		switch t.Outcome {
		case OutcomeSlower:
			v.Verdict = "slower: " + t.Summary()
			continue
		case OutcomeNotFaster:
			v.Verdict = "not faster: " + t.Summary()
			continue
		case OutcomeUndecided:
			v.Verdict = fmt.Sprintf("undecided after %d rounds: %s", t.Rounds, t.Summary())
			continue
		}
		// Even the least saving the rounds allow (at the low bound) is more than the copies.
		if saved, bound := base.MedianMS*(1-1/t.Low), gainSlack*r.CopyMS; saved > bound {
			v.Unexplained = fmt.Sprintf("saves %.3f ms per iteration or more, more than the %.3f ms of copies the trace accounts for can explain",
				saved, r.CopyMS)
			v.Verdict = "not believed: it " + v.Unexplained
			continue
		}
		ok, why := v.repays(base)
		v.Verdict = t.Summary() + "; " + why
		if ok {
			repaid[i] = true
		} else {
			v.Verdict = why + " (per iteration " + t.Summary() + ")"
		}
		if ok && (best < 0 || t.Speedup > r.Variants[best].Paired.Speedup) {
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
	for _, v := range r.Variants {
		if v.Paired == nil || v.Paired.Outcome != OutcomeUndecided || !v.Paired.couldWin(left) {
			continue
		}
		if best < 0 || v.Paired.High == 0 || v.Paired.High > r.Variants[best].Paired.Speedup {
			more = true
		}
	}
	return more
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
// machine widens the range of the rounds as much as its slowdown, but not this. (The
// verdict goes by the rounds paired, not by these: they are what the table and the report's
// chart show of each column.)
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
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
