package planner

import "github.com/echo-uma/echo/plan"

// loopFit is the loop found in a trace: what loop returns.
type loopFit struct {
	iterations int
	ms         float64  // per iteration
	marker     *copyAcc // the linking-copy site that marks each iteration
	span       *plan.LoopSpan
	confidence float64
}

// loop finds the program's main loop in the sequence of its calls, not in how often each copy
// recurs: in each thread's copies and syncs it takes the stretch where one unit of calls
// repeats back to back (findRepeats), so a model's set-up, whose parameter sizes recur a few
// times among many one-off uploads, a warm-up whose first iteration copies what the others do
// not, and a tail, are not the loop. The marker is the unit's linking-copy site that recurs
// least outside the stretch, once per iteration where one does; the loop has as many
// iterations as the marker ran (a first iteration that differs, still marked, counts), so a
// pair recurs with the loop when its copies ran as often, as before. An iteration lasts the
// stretch's span over its repeats, the first left out (it runs cold) when there are 3 or more.
func (a *analysis) loop() loopFit {
	var best loopFit
	bestScore := 0.0
	for _, th := range a.seq.order {
		tok, pos := th.recurring(len(a.seq.sites))
		runs := findRepeats(tok, func(i int) uint64 { return th.ns(int(pos[i])) }, len(a.seq.sites))
		for _, run := range runs {
			fit, ok := a.fit(th, tok, pos, run)
			if !ok {
				continue
			}
			if run.score > bestScore {
				fit.confidence *= 1 - runnerUp(runs, run)/run.score
				best, bestScore = fit, run.score
			}
			break // the thread's best stretch that a linking copy marks
		}
	}
	return best
}

// fit reads the loop off a stretch of th's recurring calls (tok, at pos in th): its marker,
// where its iterations start and how long they last, and how sure it is. Not ok when no
// linking copy marks the stretch's unit.
func (a *analysis) fit(th *threadSeq, tok []uint32, pos []int32, run repeat) (loopFit, bool) {
	unit := tok[run.start : run.start+run.period]
	times := map[uint32]int{}
	for _, t := range unit {
		times[t]++
	}
	// Calls near the stretch, up to one unit before and after it, belong to the loop: an
	// iteration the attach or the end cut short, or a first one that differs.
	near := map[uint32]int{}
	for _, t := range tok[max(0, run.start-run.period):min(len(tok), run.end+run.period)] {
		if times[t] > 0 {
			near[t]++
		}
	}
	var marker *copyAcc
	var m, at, far, most int
	for q, t := range unit {
		c := a.seq.sites[t]
		if c == nil || a.copySites[c.copyKey] != c {
			continue // no linking copy, or chunks settled as partial
		}
		if marker == nil || times[t] < m || times[t] == m && (c.count-near[t] < far ||
			c.count-near[t] == far && near[t] > most) {
			// the fewest calls per iteration, then far from the loop (a set-up's, a tail's),
			// then the most near it
			marker, m, at, far, most = c, times[t], q, c.count-near[t], near[t]
		}
	}
	if marker == nil {
		return loopFit{}, false
	}
	// Iterations start at the marker: the stretch from its first call in the unit.
	j, r := run.start+at, (run.end-run.start-at)/run.period
	if r < 2 {
		j, r = run.start, run.repeats
	}
	starts := func(k int) int { return int(pos[j+k*run.period]) }
	first, second, last := starts(0), starts(1), starts(r-1)
	from, spans := th.ns(first), r-1
	if r >= minWarmCopies+1 {
		from, spans = th.ns(second), r-2
	}
	fit := loopFit{
		iterations: marker.count / m,
		ms:         float64(th.ns(last)-from) / float64(spans) / 1e6,
		marker:     marker,
		span: &plan.LoopSpan{FirstEvent: uint64(th.idx(first)), LastEvent: uint64(th.idx(last)),
			FirstNS: th.ns(first), LastNS: th.ns(last), Repeats: r, Calls: run.period},
	}
	// How sure: the share of the thread's calls over the span that the unit explains (one-off
	// calls among them make the loop less regular), times 1 − 1/repeats (two repeats may be
	// chance; hundreds are not). loop weighs in the rival stretches.
	made := int(pos[j+r*run.period-1]) + 1 - first
	fit.confidence = float64(r*run.period) / float64(max(made, r*run.period)) * (1 - 1/float64(r))
	return fit, true
}

// runnerUp is the best score among the stretches that do not overlap run: a rival loop
// elsewhere in the thread, which makes the choice less sure the closer it comes.
func runnerUp(runs []repeat, run repeat) float64 {
	best := 0.0
	for _, o := range runs {
		if o.end <= run.start || o.start >= run.end {
			best = max(best, o.score)
		}
	}
	return best
}

// markerEvery is how many calls the shim sees at the marker's site and size per iteration,
// when more than one: the shim knows no direction or stream, so a helper that copies both
// ways through one call is one site to it, and it must time every this-many'th call.
func (a *analysis) markerEvery(marker *copyAcc, iterations int) int {
	calls := 0
	for k, c := range a.copySites {
		if k.site == marker.site {
			calls += c.count
		}
	}
	if every := calls / iterations; every > 1 && calls%iterations == 0 {
		return every
	}
	return 0
}
