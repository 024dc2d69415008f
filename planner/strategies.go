package planner

import (
	"fmt"
	"slices"

	"github.com/echo-uma/echo/plan"
)

// The strategies a pair allows follow from two judgements: a merge needs everything
// refusal checks (one whole buffer on each side, one lifetime, one stream, ...); pinned
// needs only a pageable host buffer copied whole at sites that recur with the loop, because
// it keeps every copy and changes nothing the program can read (DESIGN.md "strategy").

// pinRefusal is why the pinned strategy cannot serve a pair; "" when it can.
func (a *analysis) pinRefusal(p *pairAcc, iterations int) string {
	h := p.host
	if r := failedCopies(h, p.device); r != "" {
		return r
	}
	switch {
	case len(p.order) == 0:
		return "partial copy: " + p.partial
	case h.kind != plan.KindPageable:
		return fmt.Sprintf("the host side is already %s memory", h.kind)
	case h.copied2D:
		return "also copied with cudaMemcpy2D: pitched copies are not planned for pinned yet"
	}
	// Pinned serves an allocation site, not one buffer: what must recur is the copy site, over
	// all the host buffers it copies, and in any number per iteration.
	return a.recurrence(p, iterations, func(c *copyAcc) int { return a.copySites[c.copyKey].count }, false)
}

// judge sets the pair's strategies and status from the two judgements.
func judge(pair *plan.Pair, merge, pin string) {
	switch {
	case merge == "":
		pair.Status = plan.StatusCandidate
		pair.Strategies = slices.Clone(plan.MergeStrategies)
		if pin == "" {
			pair.Strategies = append(pair.Strategies, plan.StrategyPinned)
		}
		pair.Evidence = append(pair.Evidence, needsValidation)
	case pin == "":
		pair.Status = plan.StatusCandidate
		pair.OnlyPinned(merge)
		pair.Evidence = append(pair.Evidence, "pinned only: it keeps every copy, and needs the host side's allocation site, "+
			"which validate finds where the trace has none")
	default:
		pair.Refuse(plan.StagePlan, merge)
		if pin != merge {
			pair.Evidence = append(pair.Evidence, "not pinned either: "+pin)
		}
	}
}
