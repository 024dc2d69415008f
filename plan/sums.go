package plan

// SumCopies totals the pair's copy time an iteration (its staging copies' too) and its share
// of the loop's msPerIter.
func (pair *Pair) SumCopies(msPerIter float64) {
	pair.CopyMSPerIteration, pair.Estimated = pair.StagingMS(), false
	for _, c := range pair.Copies {
		pair.CopyMSPerIteration += c.PerIteration * c.MS
		pair.Estimated = pair.Estimated || c.Estimated
	}
	pair.FCopy = 0
	if msPerIter > 0 {
		pair.FCopy = min(pair.CopyMSPerIteration/msPerIter, MaxFCopy)
	}
	pair.PredictedSpeedup = 1 / (1 - pair.FCopy)
}

// SumPairs sums the plan's share of the loop over the pairs that still count (not refused),
// after their statuses changed: f_copy (capped at MaxFCopy), the loop's copy time and the
// Amdahl bound. planner.Recount also predicts each strategy again.
func (p *Plan) SumPairs() {
	p.FCopy, p.Loop.CopyMS = 0, 0
	for _, pair := range p.Pairs {
		if pair.Status.Counted() {
			p.FCopy += pair.FCopy
			p.Loop.CopyMS += pair.CopyMSPerIteration
		}
	}
	p.FCopy = min(p.FCopy, MaxFCopy)
	p.PredictedSpeedup = 1 / (1 - p.FCopy)
}
