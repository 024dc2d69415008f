package pipeline

import (
	"errors"
	"fmt"
	"io"

	"github.com/echo-uma/echo/plan"
)

// Deployment is what a plan deploys (echoctl run, the plan directory): the pairs to serve and
// the strategy, or why the program runs as written (Untouched).
type Deployment struct {
	Pairs     []plan.Pair
	Strategy  plan.Strategy
	Untouched string
}

// Deploy picks the pairs to merge and the strategy: a calibrated plan's enabled pairs
// and chosen strategy, if they are what calibration measured (none, when calibration
// enabled none: the program runs as written); with --force, the enabled pairs as they are,
// and the candidate and validated pairs of a plan never calibrated.
// strategy overrides the plan's where not empty; force is --force; warnings go to stderr.
func Deploy(p *plan.Plan, strategy plan.Strategy, force bool, stderr io.Writer) (Deployment, error) {
	if strategy == "" {
		strategy = p.Context.Strategy
	}
	var enabled, unproven []plan.Pair
	calibrated := p.Context.GPU != ""
	for _, pair := range p.Pairs {
		switch pair.Status {
		case plan.StatusEnabled:
			enabled = append(enabled, pair)
		case plan.StatusCandidate, plan.StatusValidated:
			unproven = append(unproven, pair)
		case plan.StatusCalibrated:
			calibrated = true
		}
	}
	var unmeasured error
	if len(enabled) > 0 {
		unmeasured = p.CheckDigest(enabled)
	}
	if force {
		// What --force deploys is not what calibration measured: the compact plan then carries
		// the digest of its own lines (plan.Compact), which the shim still checks, and the
		// shim's rules for a merge all hold.
		p.Context.PairsDigest = ""
	}
	if len(enabled) > 0 && strategy != "" {
		switch {
		case unmeasured != nil && !force:
			return Deployment{Strategy: strategy, Untouched: unmeasured.Error() + ": calibrate it again, or deploy it anyway with --force"}, nil
		case unmeasured != nil:
			fmt.Fprintf(stderr, "echoctl: warning: deploying anyway (--force): %v\n", unmeasured)
		}
		return Deployment{Pairs: enabled, Strategy: strategy}, nil
	}
	if (calibrated || len(unproven) == 0) && !force {
		return Deployment{Strategy: strategy, Untouched: "the plan enables no pair"}, nil
	}
	if !force {
		return Deployment{}, errors.New("the plan was never calibrated, so no pair is enabled and no strategy chosen: " +
			"run echoctl calibrate first, or deploy it unproven with --force")
	}
	fmt.Fprintln(stderr, "echoctl: warning: deploying pairs that were not calibrated (--force): "+
		"the merged program may be slower, and pairs never validated may even compute differently")
	if strategy == "" {
		strategy = plan.StrategyMapped
	}
	var pairs []plan.Pair
	unsited := 0
	for _, pair := range plan.PairsFor(append(enabled, unproven...), strategy) {
		if pair.Sited(strategy) {
			pairs = append(pairs, pair)
		} else {
			unsited++
		}
	}
	if unsited > 0 {
		fmt.Fprintf(stderr, "echoctl: %d pairs left as written: the trace did not see where they were allocated, "+
			"and echoctl validate finds that\n", unsited)
	}
	if len(pairs) == 0 {
		return Deployment{Strategy: strategy, Untouched: "no pair of the plan can be served with " + string(strategy) + " as it stands"}, nil
	}
	return Deployment{Pairs: pairs, Strategy: strategy}, nil
}

// Deployed is what echoctl run deploys of p with no --force or --strategy (the calibrated
// pairs and strategy), as the compact plan the shim reads: what a plan directory holds
// beside the plan. A plan that deploys nothing is an error that says why.
func Deployed(p *plan.Plan) (compact string, d Deployment, err error) {
	d, err = Deploy(p, "", false, io.Discard)
	if err != nil {
		return "", d, err
	}
	if d.Untouched != "" {
		return "", d, fmt.Errorf("%s: there is nothing to deploy", d.Untouched)
	}
	compact, err = plan.Deployment(p, d.Pairs, d.Strategy)
	return compact, d, err
}
