package report

import (
	"github.com/echo-uma/echo/calibrate"
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/planner"
)

// Calibration is what the page says about calibration.
type Calibration struct {
	Record *calibrate.Record // nil: no record of the rounds beside the plan
	// Status, when there is no record: "not calibrated", or that calibration ran but its
	// rounds were not kept.
	Status string
	// Evidence is the calibration's verdict as the plan keeps it, when there is no record.
	Evidence []string
}

// calibration finds what the page can show of a plan's calibration.
func calibration(p *plan.Plan, rec *calibrate.Record) Calibration {
	if rec != nil {
		return Calibration{Record: rec}
	}
	if !calibrated(p) {
		return Calibration{Status: "not calibrated: run echoctl calibrate (or optimize) to measure the strategies"}
	}
	c := Calibration{Status: "calibrated, but the rounds were not kept beside the plan (PLAN.calibration, which " +
		"calibrate and optimize write): the verdict as the plan records it"}
	seen := map[string]bool{}
	for _, pair := range p.Pairs {
		if pair.Status != plan.StatusCalibrated && pair.Status != plan.StatusEnabled {
			continue
		}
		if n := len(pair.Evidence); n > 0 && !seen[pair.Evidence[n-1]] {
			seen[pair.Evidence[n-1]] = true // calibration's evidence is the last a pair got
			c.Evidence = append(c.Evidence, pair.Evidence[n-1])
		}
	}
	return c
}

// variants are the baseline and each strategy, in the record's order.
func (c Calibration) variants() []calibrate.Variant {
	if c.Record == nil {
		return nil
	}
	base := c.Record.Baseline
	base.Strategy = "as written"
	return append([]calibrate.Variant{base}, c.Record.Variants...)
}

// predictionRow is one strategy calibration ran: the plan's estimate of its speed-up (0: the
// plan has none) against what calibration measured (the median of the rounds' speed-ups,
// paired; in a record from before they were, the program's median iteration over the
// strategy's), and how far the first is from the second.
type predictionRow struct {
	Strategy            plan.Strategy
	Predicted, Measured float64
}

// Miss is the estimate over the measurement, less 1; 0 where either is missing.
func (r predictionRow) Miss() float64 {
	if r.Predicted <= 0 || r.Measured <= 0 {
		return 0
	}
	return r.Predicted/r.Measured - 1
}

// predictions are the rows of every strategy the record measured, beside the forecast's
// estimates.
func predictions(f planner.Forecast, c Calibration) []predictionRow {
	if c.Record == nil || c.Record.Baseline.MedianMS <= 0 {
		return nil
	}
	var rows []predictionRow
	for _, v := range c.Record.Variants {
		if v.MedianMS <= 0 {
			continue
		}
		r := predictionRow{Strategy: v.Strategy, Measured: c.Record.Baseline.MedianMS / v.MedianMS,
			Predicted: f.Speedup(v.Strategy)}
		if v.Paired != nil && v.Paired.Speedup > 0 {
			r.Measured = v.Paired.Speedup
		}
		rows = append(rows, r)
	}
	return rows
}
