package plan

import (
	"bytes"
	"slices"
	"testing"
)

// ids are the ids of pairs, in order.
func ids(pairs []Pair) []string {
	var out []string
	for _, p := range pairs {
		out = append(out, p.ID)
	}
	return out
}

// TestLifecycle moves the example plan's pairs through every transition and asks the plan
// what each stage left: the stage that refused a pair is a field, kept through a write and a
// read, not words of its reason.
func TestLifecycle(t *testing.T) {
	p := examplePlan()
	p.Pairs = []Pair{p.Pairs[0], p.Pairs[1], p.Pairs[0], p.Pairs[1]}
	for i := range p.Pairs {
		pair := &p.Pairs[i]
		pair.ID, pair.Status, pair.Reason = []string{"p1", "p2", "p3", "p4"}[i], StatusCandidate, ""
		pair.Strategies, pair.Evidence = []Strategy{StrategyMapped, StrategyPinned}, []string{"needs validation"}
	}
	p.Pairs[0].Validate("watched")
	p.Pairs[1].ValidateForPinnedOnly("validation: a host read", "validated for pinned only")
	p.Pairs[2].Refuse(StageValidate, "resolve-looking words: validation is the stage, not this text")
	p.Pairs[3].Refuse(StageResolve, "validation: words that say another stage")
	if got := ids(p.PairsIn(StatusValidated)); !slices.Equal(got, []string{"p1", "p2"}) {
		t.Errorf("validated: %v", got)
	}
	if got := ids(p.RefusedAt(StageValidate)); !slices.Equal(got, []string{"p3"}) {
		t.Errorf("refused at validation: %v; want p3 (by its stage, whatever its reason says)", got)
	}
	if got := ids(p.RefusedAt(StageResolve)); !slices.Equal(got, []string{"p4"}) {
		t.Errorf("refused at resolve: %v", got)
	}
	if p2 := p.Pairs[1]; !slices.Equal(p2.Strategies, []Strategy{StrategyPinned}) || p2.MergeRefused != "validation: a host read" {
		t.Errorf("pinned only: strategies %v, merge refused %q", p2.Strategies, p2.MergeRefused)
	}
	if p3 := p.Pairs[2]; p3.Strategies != nil || p3.Status != StatusRefused {
		t.Errorf("refused pair keeps strategies %v, status %s", p3.Strategies, p3.Status)
	}
	p.Pairs[0].Enable("mapped won")
	p.Pairs[1].Calibrate("mapped cannot serve it")
	p.Context.Strategy = StrategyMapped
	if got := ids(p.PairsIn(StatusEnabled, StatusCalibrated)); !slices.Equal(got, []string{"p1", "p2"}) {
		t.Errorf("enabled or calibrated: %v", got)
	}
	if last := p.Pairs[0].Evidence[len(p.Pairs[0].Evidence)-1]; last != "mapped won" {
		t.Errorf("enable's evidence: %q", last)
	}
	p.SumPairs()
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(back.RefusedAt(StageResolve)); !slices.Equal(got, []string{"p4"}) {
		t.Errorf("after a write and a read, refused at resolve: %v", got)
	}
}
