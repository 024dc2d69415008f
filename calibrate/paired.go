package calibrate

import (
	"fmt"
	"math"
	"slices"
)

// The paired verdict (issue 41). Calibration runs the program as written and each strategy in
// turn, round after round, so the runs of one round share what the machine was doing then; a
// round's speed-up is the baseline's iteration over the strategy's in that round. Comparing
// the medians of the two columns with the baseline's spread threw that pairing away: on a
// quiet two-core machine a program whose pinned variant was 1.09× faster (6.18 against 5.66
// ms) was enabled in one optimize and refused in the next, and on a loaded one refused though
// pinned was faster in 5 of 5 rounds.
//
// The test is a sign test over the rounds' speed-ups: how many rounds a strategy won, against
// what a strategy that is no faster than as written would win by chance (half, as a coin).
// Chosen over a bootstrap of the ratios and over a t-test on their logarithms because a
// loaded machine slows single runs by two or three times: the sign test is exact for any
// such distribution (a round slowed counts once, whatever its size), needs no random
// resampling (the same rounds always give the same verdict), and is said in words a user can
// check against the rounds printed ("faster in 10 of 11 rounds"). What it gives up is
// power: seven rounds are the fewest in which it can be 99 % sure (DefaultRounds), and a
// small gain on a noisy machine needs more, which calibration runs while the budget lasts.

// Confidence is how sure calibration must be to call a strategy faster, not faster or
// slower: 99 %, one-sided. Calibration looks again after every round it adds, and each look
// is another chance for chance to cross the line; at 99 %, with MinGain, a strategy that does
// nothing was enabled in 0.1 % of simulated calibrations of up to 40 rounds on noise of 5 %
// a round (a fifth of the rounds five times as noisy), and in 1.2 % on noise of 20 %
// (TestDecideSimulated).
const Confidence = 0.99

// MinGain is the least speed-up worth serving, as a fraction: a strategy is faster only
// where its rounds show it 2 % faster than as written, not merely faster. Below that, the
// shim's own cost and what moves between runs of one program (its memory layout, the CPU's
// clock) are as large as the gain, and a gain so small is not worth a deployment a user
// must trust; it also keeps a strategy that changes nothing from being enabled by a machine
// that happened to be quieter in its runs.
const MinGain = 0.02

// Outcome is what the rounds show of a strategy against the program as written.
type Outcome string

// Outcomes.
const (
	OutcomeFaster    Outcome = "faster"     // faster by MinGain or more, Confidence sure
	OutcomeNotFaster Outcome = "not faster" // less than MinGain faster, Confidence sure
	OutcomeSlower    Outcome = "slower"     // slower than as written, Confidence sure
	OutcomeUndecided Outcome = "undecided"  // the rounds do not tell yet
)

// Paired is the sign test of one variant's rounds against the baseline's, round by round.
type Paired struct {
	Rounds  int     `json:"rounds"`
	Speedup float64 `json:"speedup"` // the median of the rounds' speed-ups
	// Low and High bound the median speed-up, each Confidence sure (0 where the rounds are
	// too few to bound it so: fewer than seven).
	Low  float64 `json:"low,omitempty"`
	High float64 `json:"high,omitempty"`
	// Threshold is the speed-up a round must beat to count as faster (1 + MinGain, or 1 for
	// complete runs, where any gain repays); Faster counts those rounds, Slower the rounds
	// slower than as written.
	Threshold float64 `json:"threshold"`
	Faster    int     `json:"faster_rounds"`
	Slower    int     `json:"slower_rounds"`
	// Confidence is how sure the outcome is: 1 less the chance that a strategy on the other
	// side of the line would have shown rounds this one-sided (for undecided, how sure the
	// rounds are that it is faster).
	Confidence float64 `json:"confidence"`
	Outcome    Outcome `json:"outcome"`
}

// alpha is the chance the verdict may be wrong: 1 − Confidence.
const alpha = 1 - Confidence

// pairedTest compares the variant's rounds with the baseline's, round for round (the
// speed-up of round i is base[i]/variant[i]), against threshold.
func pairedTest(base, variant []float64, threshold float64) Paired {
	var q []float64
	for i := range min(len(base), len(variant)) {
		if base[i] > 0 && variant[i] > 0 {
			q = append(q, base[i]/variant[i])
		}
	}
	slices.Sort(q)
	n := len(q)
	t := Paired{Rounds: n, Threshold: threshold, Outcome: OutcomeUndecided}
	if n == 0 {
		return t
	}
	t.Speedup = median(q)
	for _, x := range q {
		if x > threshold {
			t.Faster++
		}
		if x < 1 {
			t.Slower++
		}
	}
	if k := boundRank(n); k > 0 {
		t.Low, t.High = q[k-1], q[n-k]
	}
	// Each outcome is a sign test at alpha, which is the same as a bound beyond the line.
	pFaster, pNotFaster, pSlower := signTail(n, t.Faster), signTail(n, n-t.Faster), signTail(n, t.Slower)
	switch {
	case pFaster <= alpha:
		t.Outcome, t.Confidence = OutcomeFaster, 1-pFaster
	case pSlower <= alpha:
		t.Outcome, t.Confidence = OutcomeSlower, 1-pSlower
	case pNotFaster <= alpha:
		t.Outcome, t.Confidence = OutcomeNotFaster, 1-pNotFaster
	default:
		t.Confidence = 1 - pFaster
	}
	return t
}

// signTail is the chance that a fair coin tossed n times comes up heads k times or more:
// P(Binomial(n, ½) ≥ k).
func signTail(n, k int) float64 { return binomialTail(n, k, 0.5) }

// signTails are signTail(n, k) for k from 0 to n+1, in one pass.
func signTails(n int) []float64 {
	t := make([]float64, n+2)
	for k := n; k >= 0; k-- {
		t[k] = t[k+1] + binomialTerm(n, k, 0.5)
	}
	return t
}

// boundRank is the rank k (from 1) of the sorted speed-ups that bounds their median from
// below at Confidence (the k-th smallest), and from above (the k-th largest): the largest k
// such that a median below the k-th smallest would need n−k+1 rounds or more above it, a
// chance of alpha or less. 0 where no rank does (n < 7).
func boundRank(n int) int {
	tails := signTails(n)
	k := 0
	for j := 1; j <= n && tails[n-j+1] <= alpha; j++ {
		k = j
	}
	return k
}

// winsNeeded is how many of n rounds a strategy must win to be Confidence sure it is faster;
// n+1 where n rounds cannot show it.
func winsNeeded(n int) int {
	tails := signTails(n)
	for k := 0; k <= n; k++ {
		if tails[k] <= alpha {
			return k
		}
	}
	return n + 1
}

// futility is how likely more rounds must be to show a variant faster before calibration
// runs them: below one in ten thousand, they are not run. A stop for futility only ever
// refuses, so it changes nothing of how rarely a strategy that gains nothing is enabled; it
// saves the budget where one plainly does not win (in simulation, such a calibration stops
// after 10 to 14 rounds, not 40, and one of a 1.09× gain is enabled as often as without it,
// 998 in 1000 on noise of 5 %; at 1 % it was 975).
const futility = 1e-4

// couldWin says whether up to rounds more rounds could show the variant faster: where each
// wins as often as the rounds so far did (a rule of succession, (won+1)/(rounds+2)), the
// chance that enough of them do by the last is futility or more.
func (t Paired) couldWin(rounds int) bool {
	if rounds <= 0 {
		return false
	}
	p := float64(t.Faster+1) / float64(t.Rounds+2)
	n := t.Rounds + rounds
	return binomialTail(rounds, winsNeeded(n)-t.Faster, p) >= futility
}

// binomialTail is P(Binomial(n, p) ≥ k).
func binomialTail(n, k int, p float64) float64 {
	tail := 0.0
	for i := max(k, 0); i <= n; i++ {
		tail += binomialTerm(n, i, p)
	}
	return min(tail, 1)
}

// binomialTerm is P(Binomial(n, p) = k), in logarithms so that no term overflows however
// many rounds a long budget runs.
func binomialTerm(n, k int, p float64) float64 {
	lg := lgamma(n+1) - lgamma(k+1) - lgamma(n-k+1)
	return math.Exp(lg + float64(k)*math.Log(p) + float64(n-k)*math.Log1p(-p))
}

func lgamma(n int) float64 {
	v, _ := math.Lgamma(float64(n))
	return v
}

// bounds says the median speed-up and, where the rounds bound it, its interval:
// "1.09× (1.05–1.12×, each bound 99 % sure)".
func (t Paired) bounds() string {
	if t.Low == 0 {
		return fmt.Sprintf("%.2f× (too few rounds to bound it %s sure)", t.Speedup, percent(Confidence))
	}
	return fmt.Sprintf("%.2f× (%.2f–%.2f×, each bound %s sure)", t.Speedup, t.Low, t.High, percent(Confidence))
}

// Summary says the test in a clause: the median, its bounds, and the rounds won and lost.
func (t Paired) Summary() string {
	switch t.Outcome {
	case OutcomeFaster:
		return fmt.Sprintf("%s faster by %s or more in %d of %d paired rounds, %s sure", t.bounds(),
			percent(t.Threshold-1), t.Faster, t.Rounds, percent(t.Confidence))
	case OutcomeSlower:
		return fmt.Sprintf("%s slower in %d of %d paired rounds, %s sure", t.bounds(), t.Slower, t.Rounds, percent(t.Confidence))
	case OutcomeNotFaster:
		return fmt.Sprintf("%s faster by %s or more in only %d of %d paired rounds: %s sure it is not", t.bounds(),
			percent(t.Threshold-1), t.Faster, t.Rounds, percent(t.Confidence))
	}
	need := winsNeeded(t.Rounds)
	if need > t.Rounds {
		return fmt.Sprintf("%s faster by %s or more in %d of %d paired rounds; %d rounds cannot show a gain %s sure "+
			"(7 can)", t.bounds(), percent(t.Threshold-1), t.Faster, t.Rounds, t.Rounds, percent(Confidence))
	}
	return fmt.Sprintf("%s faster by %s or more in %d of %d paired rounds, where %s sure needs %d", t.bounds(),
		percent(t.Threshold-1), t.Faster, t.Rounds, percent(Confidence), need)
}

// percent says a fraction as a percentage, as few digits as it needs: "99%", "2%", "99.2%".
func percent(f float64) string {
	p := 100 * f
	if math.Abs(p-math.Round(p)) < 0.05 {
		return fmt.Sprintf("%.0f%%", p)
	}
	return fmt.Sprintf("%.1f%%", p)
}
