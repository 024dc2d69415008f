package planview

import (
	"github.com/echo-uma/echo/calibrate"
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/planner"
)

// PairVerdict is one pair as validate, calibrate and optimize report it with --json: what
// the step decided about it and why. The plan file holds the rest.
type PairVerdict struct {
	ID           string             `json:"id"`
	Direction    plan.PairDirection `json:"direction"`
	Bytes        uint64             `json:"bytes"` // the buffer's size
	Status       string             `json:"status"`
	Strategies   []plan.Strategy    `json:"strategies,omitempty"`
	Reason       string             `json:"reason,omitempty"`
	MergeRefused string             `json:"merge_refused,omitempty"`
}

// Verdicts are p's pairs as --json reports them.
func Verdicts(p *plan.Plan) []PairVerdict {
	vs := make([]PairVerdict, 0, len(p.Pairs))
	for _, pair := range p.Pairs {
		vs = append(vs, PairVerdict{ID: pair.ID, Direction: pair.Direction, Bytes: pair.Bytes,
			Status: string(pair.Status), Strategies: pair.Strategies, Reason: pair.Reason,
			MergeRefused: pair.MergeRefused})
	}
	return vs
}

// ValidateDoc is validate's --json document.
type ValidateDoc struct {
	Schema string        `json:"schema"`
	Plan   string        `json:"plan"` // where the validated plan was written
	Pairs  []PairVerdict `json:"pairs"`
}

// CalibrationDoc is calibrate's and optimize's --json document. Calibration is null when
// optimize stopped before calibrating; Outcome then says why.
type CalibrationDoc struct {
	Schema string `json:"schema"`
	Plan   string `json:"plan"` // where the plan was written
	// Prediction is the plan's forecast, the one every output prints (planner.ForecastFor);
	// PredictedSpeedup (its Amdahl bound, 0 where it has none) and Estimates ([] where none)
	// repeat two of its figures where scripts have read them.
	Prediction       planner.Forecast `json:"prediction"`
	PredictedSpeedup float64          `json:"predicted_speedup"`
	Estimates        []plan.Estimate  `json:"estimates"`
	GPU              string           `json:"gpu,omitempty"`
	Strategy         plan.Strategy    `json:"strategy,omitempty"` // the one enabled, if any
	// Savings is what the enabled plan saves and its one break-even (plan.Savings), where
	// calibration enabled a strategy.
	Savings     *plan.Savings     `json:"savings,omitempty"`
	Outcome     string            `json:"outcome,omitempty"`
	Calibration *calibrate.Result `json:"calibration"`
	Pairs       []PairVerdict     `json:"pairs"`
}

// CalibrationDocOf is calibrate's or optimize's document (schema) for p, written to planPath.
func CalibrationDocOf(schema, planPath string, p *plan.Plan, cal *calibrate.Result, outcome string) CalibrationDoc {
	f := planner.ForecastFor(p)
	return CalibrationDoc{Schema: schema, Plan: planPath, Prediction: f, PredictedSpeedup: f.Bound,
		Estimates: f.Estimates, GPU: p.Context.GPU, Strategy: p.Context.Strategy, Savings: p.Savings,
		Outcome: outcome, Calibration: cal, Pairs: Verdicts(p)}
}
