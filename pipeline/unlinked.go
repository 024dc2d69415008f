package pipeline

import (
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/runner"
)

// Unlinked are the pairs of a run's report whose two sides took their planned slots while
// no linking copy at the plan's sites joined them: the shim never bound them (shim/bind.c),
// so they were left as written, which the report's merged count alone does not tell from
// "not allocated".
func Unlinked(r runner.Report, strategy plan.Strategy) []string {
	var ids []string
	if r.Mode != "deploy" || strategy == plan.StrategyPinned {
		return nil
	}
	for _, p := range r.Pairs {
		if p.Seen && !p.Served {
			ids = append(ids, p.ID)
		}
	}
	return ids
}
