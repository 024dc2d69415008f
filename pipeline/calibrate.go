package pipeline

import (
	"context"
	"time"

	"github.com/echo-uma/echo/calibrate"
	"github.com/echo-uma/echo/plan"
)

// Calibrate measures pairs of p on the program argv, applies the verdict to p (the pairs'
// statuses, the chosen strategy and its digest) and records what the enabled plan saves,
// found being what finding the plan cost before calibration (optimize's trace and
// validation; nothing for echoctl calibrate), to which calibration's own time is added.
func Calibrate(ctx context.Context, p *plan.Plan, pairs []plan.Pair, argv []string, opts calibrate.Options,
	found plan.Finding) (*calibrate.Result, error) {
	began := time.Now()
	res, err := calibrate.Calibrate(ctx, p, pairs, argv, opts)
	if err != nil {
		return nil, err
	}
	found.CalibrateMS = msSince(began)
	if err := calibrate.Apply(p, pairs, res); err != nil {
		return nil, err
	}
	p.Savings = savingsOf(p, res, found)
	return res, nil
}

// savingsOf is what the calibrated plan saves, from the chosen strategy's paired speed-up and
// the set-up each of its runs paid, or nil when calibration enabled nothing.
func savingsOf(p *plan.Plan, cal *calibrate.Result, found plan.Finding) *plan.Savings {
	if cal.Chosen == "" {
		return nil
	}
	for _, v := range cal.Variants {
		if v.Strategy == cal.Chosen {
			before := cal.Baseline.MedianMS
			s := plan.NewSavings(p, cal.Chosen, before, before-v.GainMS(&cal.Baseline),
				plan.RunCost{SetupMS: v.SetupMS, Iterations: v.Iterations}, found)
			s.Energy = cal.Energy(cal.Chosen)
			return s
		}
	}
	return nil
}

// PairsToCalibrate are the pairs of p that calibrate measures: those validated, calibrated or
// enabled before, and with unvalidated the candidates too; again are those among them an
// earlier calibration refused, measured again.
func PairsToCalibrate(p *plan.Plan, unvalidated bool) (pairs, again []plan.Pair) {
	measurable := []plan.Status{plan.StatusValidated, plan.StatusCalibrated, plan.StatusEnabled}
	if unvalidated {
		measurable = append(measurable, plan.StatusCandidate)
	}
	pairs = p.PairsToMeasure(measurable...)
	for _, pair := range pairs {
		if pair.Status == plan.StatusRefused {
			again = append(again, pair)
		}
	}
	return pairs, again
}
