package calibrate

import (
	"fmt"
	"strings"

	"github.com/echo-uma/echo/planner"
)

// Apply writes the outcome into the plan: each calibrated pair becomes enabled (a strategy
// won), calibrated (none did) or refused (the merged program computed something else), with
// the numbers as evidence; the context records the device and the chosen strategy.
func Apply(p *planner.Plan, pairs []planner.Pair, r *Result) {
	ids := map[string]bool{}
	for _, pair := range pairs {
		ids[pair.ID] = true
	}
	refusal := r.refusal()
	evidence := r.evidence()
	for i := range p.Pairs {
		pair := &p.Pairs[i]
		if !ids[pair.ID] {
			continue
		}
		switch {
		case refusal != "":
			pair.Status, pair.Reason = planner.StatusRefused, refusal
		case r.Chosen != "":
			pair.Status = planner.StatusEnabled
		default:
			pair.Status = planner.StatusCalibrated
		}
		pair.Evidence = append(pair.Evidence, evidence)
	}
	p.Context.GPU, p.Context.ComputeCapability = r.Device.GPU, r.Device.CC
	p.Context.Driver, p.Context.Runtime = r.Device.Driver, r.Device.Runtime
	p.Context.Strategy = r.Chosen
	if refusal != "" {
		p.Context.Strategy = ""
	}
	p.Recount()
}

// refusal: the merged program must print and return exactly what the program as written
// does, with every strategy; and the program as written must do so run after run.
func (r *Result) refusal() string {
	if d := r.Baseline.OutputDiff; d != "" {
		return "output differs between runs of the program as written (" + d + "): no merge can be checked " +
			"against it; give --ignore for lines that carry timings"
	}
	for _, v := range r.Variants {
		if v.OutputDiff != "" {
			return fmt.Sprintf("output differs: merged with the %s strategy the program %s", v.Strategy, v.OutputDiff)
		}
	}
	return ""
}

func (r *Result) evidence() string {
	var parts []string
	for _, v := range r.Variants {
		note := ""
		if v.Untouched != "" {
			note = " (ran untouched: " + v.Untouched + ")"
		}
		parts = append(parts, fmt.Sprintf("%s %.3f ms%s", v.Strategy, v.MedianMS, note))
	}
	verdict := "no strategy beat it by more than that spread"
	if r.Chosen != "" {
		verdict = r.Chosen + " chosen"
	}
	return fmt.Sprintf("calibrated over %d rounds: baseline %.3f ms per iteration (spread %.3f ms); %s; %s",
		len(r.Baseline.RoundMS), r.Baseline.MedianMS, r.Baseline.SpreadMS, strings.Join(parts, ", "), verdict)
}
