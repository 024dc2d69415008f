package calibrate

import (
	"fmt"
	"strings"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/planner"
)

// Apply writes the outcome into the plan: each calibrated pair becomes enabled (a strategy
// won and the pair was merged in its runs), calibrated (none did, the pair never merged, or
// the program as written printed other things in other runs, so nothing could be compared)
// or refused (the merged program printed something else; RefuseCalibrated keeps what a
// calibration again needs), with the numbers as evidence;
// the context records the device (whether it reaches pageable memory too), the chosen
// strategy and the digest of the enabled pairs,
// so that a plan edited afterwards is not deployed as if calibration had measured it.
func Apply(p *plan.Plan, pairs []plan.Pair, r *Result) error {
	ids := map[string]bool{}
	for _, pair := range pairs {
		ids[pair.ID] = true
	}
	refusal := r.refusal()
	evidence := r.evidence()
	merged := r.mergedPairs()
	var enabled []plan.Pair
	for i := range p.Pairs {
		pair := &p.Pairs[i]
		if !ids[pair.ID] {
			continue
		}
		switch {
		case refusal != "":
			pair.RefuseCalibrated(refusal)
			pair.Evidence = append(pair.Evidence, evidence)
		case r.Chosen != "" && !pair.Allows(r.Chosen):
			pair.Calibrate(evidence + fmt.Sprintf("; %s cannot serve this pair", r.Chosen))
		case r.Chosen != "" && merged[servedAs(pair, r.Chosen, pairs)] == "":
			pair.Enable(evidence)
			enabled = append(enabled, *pair)
		case r.Chosen != "":
			pair.Calibrate(evidence + "; this pair was not served in those runs: " + merged[servedAs(pair, r.Chosen, pairs)])
		default:
			pair.Calibrate(evidence)
		}
	}
	p.Context.GPU, p.Context.ComputeCapability = r.Device.GPU, r.Device.CC
	p.Context.Driver, p.Context.Runtime = r.Device.Driver, r.Device.Runtime
	p.Context.Pageable = r.Device.Pageable // which strategies the device runs, and so are predicted
	p.Context.SerialKernels = r.Device.GPU != "" && !r.Device.ConcurrentKernels
	p.Context.Strategy, p.Context.PairsDigest = "", ""
	if refusal == "" && len(enabled) > 0 {
		digest, err := plan.PairsDigest(enabled, r.Chosen)
		if err != nil {
			return err
		}
		p.Context.Strategy, p.Context.PairsDigest = r.Chosen, digest
	}
	planner.Recount(p)
	return nil
}

// servedAs is the pair whose report stands for pair under strategy: pinned serves a host
// allocation site once, for every pair whose host buffers come from it (the compact plan
// names the first).
func servedAs(pair *plan.Pair, strategy plan.Strategy, pairs []plan.Pair) string {
	if strategy != plan.StrategyPinned {
		return pair.ID
	}
	for _, other := range pairs {
		if other.Allows(strategy) && other.Host.Site.AnyOrdinal() == pair.Host.Site.AnyOrdinal() {
			return other.ID
		}
	}
	return pair.ID
}

// mergedPairs says, for each pair the chosen strategy's last run reported, "" when it was
// served (its copies elided, its host side pinned), else why not.
func (r *Result) mergedPairs() map[string]string {
	out := map[string]string{}
	for _, v := range r.Variants {
		if v.Strategy != r.Chosen {
			continue
		}
		for _, pr := range v.lastReport.Pairs {
			switch {
			case pr.Served:
				out[pr.ID] = ""
			case pr.Note != "":
				out[pr.ID] = pr.Note
			default:
				out[pr.ID] = "no copy between its halves was elided, and no host buffer pinned"
			}
		}
	}
	return out
}

// refusal: the merged program must print and return exactly what the program as written
// does (lines that vary as written in their numbers alone compared by their words), with
// every strategy. Where the program as written printed other things in other runs, nothing
// was compared, so nothing is refused: decide enabled nothing, and the evidence says why.
func (r *Result) refusal() string {
	if r.Baseline.OutputDiff != "" {
		return ""
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
		if why := v.Refusal(); why != "" {
			note = " (" + why + ")"
		}
		parts = append(parts, fmt.Sprintf("%s %.3f ms%s", v.Strategy, v.MedianMS, note))
	}
	verdict := "no strategy enabled"
	for _, v := range r.Variants {
		if v.Enabled {
			verdict = string(r.Chosen) + " chosen: " + v.Verdict
		}
	}
	if len(r.Varying) > 0 {
		verdict += "; not compared, as they differ between runs as written in their numbers alone: " + strings.Join(r.Varying, ", ")
	}
	return fmt.Sprintf("calibrated over %d rounds: baseline %.3f ms per iteration (spread %.3f ms), complete run %.1f ms; %s; %s",
		len(r.Baseline.RoundMS), r.Baseline.MedianMS, r.Baseline.SpreadMS, r.Baseline.RunMedianMS, strings.Join(parts, ", "), verdict)
}
