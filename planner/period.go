package planner

import (
	"cmp"
	"slices"
)

// repeat is a stretch of a call sequence where one unit of calls repeats back to back.
type repeat struct {
	start, end int // the calls the stretch covers, [start, end): repeats whole units and a partial one
	period     int // calls in the unit
	repeats    int // whole units from start
	score      float64
}

const (
	// maxPeriod bounds the calls in one iteration (copies and syncs, not launches): no loop
	// body copies or synchronizes 65 536 times.
	maxPeriod = 1 << 16
	// periodCandidates is how many periods are tried, the most frequent distances between
	// equal calls first; each costs one pass over the sequence.
	periodCandidates = 24
	// lookBack is how many earlier occurrences of a call give distances: a unit in which every
	// call recurs k times (A A B B) has its period only as the distance to the k-th one back.
	lookBack = 4
	// keptRepeats is how many of the best stretches the search returns.
	keptRepeats = 16
)

// findRepeats finds the stretches of toks (call tokens below ntok, with their entry times ns)
// where a unit repeats back to back, best first. A stretch scores the time from its first to
// its last unit's start times its repeats: a program's main loop is where its time goes and
// what recurs most, so a model's set-up, uploading its repeated blocks' parameters in a few
// milliseconds, does not outscore its loop, and of two periods that explain the same stretch
// the smaller scores higher (twice the repeats). Periods come from the distances between
// equal calls (autocorrelation over the sequence): O(periodCandidates × len(toks)).
func findRepeats(toks []uint32, ns func(i int) uint64, ntok int) []repeat {
	n := len(toks)
	if n < 2 {
		return nil
	}
	hist := make([]int32, min(n, maxPeriod)+1)
	prev := make([][lookBack]int32, ntok)
	for i := range prev {
		prev[i] = [lookBack]int32{-1, -1, -1, -1}
	}
	for i, t := range toks {
		pv := &prev[t]
		for _, q := range pv {
			if d := i - int(q); q >= 0 && d < len(hist) {
				hist[d]++
			}
		}
		copy(pv[1:], pv[:lookBack-1])
		pv[0] = int32(i)
	}
	// A unit of p calls repeated twice has p matches at distance p; fewer cannot be a loop.
	var periods []int
	for p := 1; p < len(hist); p++ {
		if int(hist[p]) >= p {
			periods = append(periods, p)
		}
	}
	slices.SortFunc(periods, func(x, y int) int { return cmp.Or(cmp.Compare(hist[y], hist[x]), cmp.Compare(x, y)) })
	periods = periods[:min(len(periods), periodCandidates)]

	var kept []repeat
	consider := func(start, end, p int) {
		r := (end - start) / p
		if r < 2 {
			return
		}
		rep := repeat{start: start, end: end, period: p, repeats: r,
			score: float64(ns(start+(r-1)*p)-ns(start)+1) * float64(r)}
		kept = append(kept, rep)
		if len(kept) >= 4*keptRepeats {
			kept = bestRepeats(kept)
		}
	}
	for _, p := range periods {
		start := 0
		for i := 0; i+p < n; i++ {
			if toks[i] != toks[i+p] {
				consider(start, i+p, p)
				start = i + 1
			}
		}
		consider(start, n, p)
	}
	return bestRepeats(kept)
}

// bestRepeats keeps the keptRepeats best stretches, best first: the higher score, then the
// more calls covered, then the smaller period.
func bestRepeats(rs []repeat) []repeat {
	slices.SortFunc(rs, func(x, y repeat) int {
		return cmp.Or(cmp.Compare(y.score, x.score), cmp.Compare(y.repeats*y.period, x.repeats*x.period),
			cmp.Compare(x.period, y.period), cmp.Compare(x.start, y.start))
	})
	return rs[:min(len(rs), keptRepeats)]
}
