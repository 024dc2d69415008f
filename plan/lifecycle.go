package plan

import "slices"

// A pair's life, and the only code that moves it (issue 29): the planner makes it a
// candidate or refuses it (judge); a validate run validates it, perhaps for pinned only, or
// refuses it (validation), and a resolve run may refuse it first; calibration marks it
// calibrated or enabled, or refuses it. Each refusal records the stage that made it, so a
// caller asks RefusedAt rather than reading the reason's words.
//
//	candidate ──validate──▶ validated ──calibrate──▶ calibrated / enabled
//	    │                       │                          │
//	    └────── refused (at plan, resolve, validation or calibration) ◀┘
//
// A refusal by calibration is measured, not proven: the merged program printed something
// else, perhaps only on a line that carries a timing. It keeps what calibrating again needs
// (the strategies, and the status the pair had, RefusedFrom), so that calibrate --ignore
// measures the pair afresh; every other refusal is final.

// Stage is the step of Echo's pipeline that refused a pair.
type Stage string

const (
	StagePlan      Stage = "plan"        // the trace: a copy pattern no strategy can serve
	StageResolve   Stage = "resolve"     // the run that finds where unseen sides are allocated
	StageValidate  Stage = "validation"  // a validate run saw an access a merge would change
	StageCalibrate Stage = "calibration" // calibration measured a changed output, or none won
)

var stages = []Stage{StagePlan, StageResolve, StageValidate, StageCalibrate}

// Refuse refuses the pair at stage: no strategy may serve it, for reason (in words a user
// understands; the stage is kept apart from them).
func (p *Pair) Refuse(at Stage, reason string) {
	p.Status, p.Reason, p.RefusedAt, p.Strategies, p.MergeRefused, p.RefusedFrom = StatusRefused, reason, at, nil, "", ""
}

// RefuseCalibrated refuses the pair for what calibration measured (reason), keeping its
// strategies and the status it had, so that a later calibration measures it again
// (PairsToMeasure).
func (p *Pair) RefuseCalibrated(reason string) {
	from := p.Status
	if from == StatusRefused {
		from = p.RefusedFrom // refused again
	}
	p.Status, p.Reason, p.RefusedAt, p.RefusedFrom = StatusRefused, reason, StageCalibrate, from
}

// unrefuse takes back a calibration's refusal, as calibrating again measures the pair afresh.
func (p *Pair) unrefuse() {
	if p.Status == StatusRefused && p.RefusedFrom != "" {
		p.Reason, p.RefusedAt, p.RefusedFrom = "", "", ""
	}
}

// Validate marks a candidate validated, with the evidence a validate or resolve run gave.
func (p *Pair) Validate(evidence string) {
	p.Status = StatusValidated
	p.Evidence = append(p.Evidence, evidence)
}

// ValidateForPinnedOnly marks a candidate validated for the pinned strategy alone: a merge
// would change what the program reads (why), pinned keeps every copy.
func (p *Pair) ValidateForPinnedOnly(why, evidence string) {
	p.OnlyPinned(why)
	p.Validate(evidence)
}

// Calibrate marks the pair measured by calibration without enabling it (another strategy
// won, or this pair was not served in the winner's runs), with what was measured.
func (p *Pair) Calibrate(evidence string) {
	p.unrefuse()
	p.Status = StatusCalibrated
	p.Evidence = append(p.Evidence, evidence)
}

// Enable marks the pair enabled: calibration measured that serving it wins.
func (p *Pair) Enable(evidence string) {
	p.unrefuse()
	p.Status = StatusEnabled
	p.Evidence = append(p.Evidence, evidence)
}

// PairsIn are the plan's pairs whose status is one of statuses, in plan order.
func (p *Plan) PairsIn(statuses ...Status) []Pair {
	var out []Pair
	for _, pair := range p.Pairs {
		if slices.Contains(statuses, pair.Status) {
			out = append(out, pair)
		}
	}
	return out
}

// PairsToMeasure are the pairs a calibration measures: those whose status is one of statuses,
// and those an earlier calibration refused that had one of them then (RefuseCalibrated), in
// plan order.
func (p *Plan) PairsToMeasure(statuses ...Status) []Pair {
	var out []Pair
	for _, pair := range p.Pairs {
		if slices.Contains(statuses, pair.Status) || pair.RefusedFrom != "" && slices.Contains(statuses, pair.RefusedFrom) {
			out = append(out, pair)
		}
	}
	return out
}

// RefusedAt are the plan's pairs refused at stage.
func (p *Plan) RefusedAt(stage Stage) []Pair {
	var out []Pair
	for _, pair := range p.Pairs {
		if pair.Status == StatusRefused && pair.RefusedAt == stage {
			out = append(out, pair)
		}
	}
	return out
}
