package planner

// loop finds the program's main loop as the period of its linking copies: the number of
// iterations is the copy count that the linking-copy sites sharing it move the most bytes
// at, a byte per copy a vote (a site copied twice per iteration counts twice as often; a
// site counts its copies over every pair it links, so a fresh host buffer each iteration
// still makes a period; a framework's set-up, copying small parameters one by one at one
// site, does not outvote its loop), and an iteration lasts the span between the second and
// the last copy at the earliest such site, over two less than that count: the first
// iteration runs cold and is left out, unless that leaves fewer than two.
func (a *analysis) loop() (iterations int, msPerIteration float64, marker *copyAcc) {
	votes := map[int]uint64{}
	for _, c := range a.copySites {
		if c.count >= 2 {
			votes[c.count] += c.bytesEachCopy
		}
	}
	for n, v := range votes {
		if v > votes[iterations] || (v == votes[iterations] && n > iterations) {
			iterations = n
		}
	}
	if iterations < 2 {
		return 0, 0, nil
	}
	for _, c := range a.copySites {
		if c.count == iterations && (marker == nil || c.firstNS < marker.firstNS) {
			marker = c
		}
	}
	start, spans := marker.firstNS, iterations-1
	if iterations >= minWarmCopies+1 {
		start, spans = marker.secondNS, iterations-2
	}
	return iterations, float64(marker.lastNS-start) / float64(spans) / 1e6, marker
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
