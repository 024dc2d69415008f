package pipeline

import (
	"io"
	"strings"
	"testing"

	"github.com/echo-uma/echo/plan"
)

// deployPlan is a plan of two pairs in the given statuses; calibrated marks it measured on a
// GPU, and an enabled pair gets calibration's digest.
func deployPlan(t *testing.T, calibrated bool, statuses ...plan.Status) *plan.Plan {
	t.Helper()
	p := &plan.Plan{}
	for i, s := range statuses {
		site := func(call string, off uint64) plan.Site {
			return plan.Site{Module: "/app", Offset: off, Call: call, Bytes: 4096}
		}
		p.Pairs = append(p.Pairs, plan.Pair{ID: []string{"p1", "p2"}[i], Direction: "input", Bytes: 4096,
			Host: plan.Buffer{Site: site("malloc", 0x10+uint64(i))}, Device: plan.Buffer{Site: site("cudaMalloc", 0x20+uint64(i))},
			Copies:     []plan.Copy{{Site: site("cudaMemcpy", 0x30+uint64(i)), Direction: "h2d"}},
			Strategies: []plan.Strategy{plan.StrategyMapped, plan.StrategyPinned}, Status: s})
	}
	if calibrated {
		p.Context.GPU, p.Context.Strategy = "Echo UMA Emulator", plan.StrategyMapped
		digest, err := plan.PairsDigest(p.PairsIn(plan.StatusEnabled), plan.StrategyMapped)
		if err != nil {
			t.Fatal(err)
		}
		p.Context.PairsDigest = digest
	}
	return p
}

// TestDeploy is the deploy decision's table: what calibration enabled, as it measured it;
// nothing where it enabled nothing or the enabled pairs changed since; an uncalibrated plan
// only with --force.
func TestDeploy(t *testing.T) {
	en, ca, va := plan.StatusEnabled, plan.StatusCalibrated, plan.StatusValidated
	for _, c := range []struct {
		name       string
		plan       *plan.Plan
		force      bool
		pairs      int
		untouched  string
		err        string
		edit       func(*plan.Plan)
		strategyIs plan.Strategy
	}{
		{name: "enabled as measured", plan: deployPlan(t, true, en, ca), pairs: 1, strategyIs: plan.StrategyMapped},
		{name: "edited after calibration", plan: deployPlan(t, true, en, ca),
			edit: func(p *plan.Plan) { p.Pairs[0].Bytes = 8192 }, untouched: "not the ones calibration measured"},
		{name: "edited, forced", plan: deployPlan(t, true, en, ca), force: true,
			edit: func(p *plan.Plan) { p.Pairs[0].Bytes = 8192 }, pairs: 1},
		{name: "calibrated, none enabled", plan: deployPlan(t, true, ca, ca), untouched: "the plan enables no pair"},
		{name: "never calibrated", plan: deployPlan(t, false, va, va), err: "never calibrated"},
		{name: "never calibrated, forced", plan: deployPlan(t, false, va, va), force: true, pairs: 2, strategyIs: plan.StrategyMapped},
	} {
		if c.edit != nil {
			c.edit(c.plan)
		}
		d, err := Deploy(c.plan, "", c.force, io.Discard)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want one saying %q", c.name, err, c.err)
			}
		case err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.untouched != "" && !strings.Contains(d.Untouched, c.untouched):
			t.Errorf("%s: untouched %q, want %q", c.name, d.Untouched, c.untouched)
		case c.untouched == "" && (d.Untouched != "" || len(d.Pairs) != c.pairs):
			t.Errorf("%s: %d pairs (untouched %q), want %d", c.name, len(d.Pairs), d.Untouched, c.pairs)
		case c.strategyIs != "" && d.Strategy != c.strategyIs:
			t.Errorf("%s: strategy %q, want %q", c.name, d.Strategy, c.strategyIs)
		}
	}
}
