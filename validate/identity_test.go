package validate

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/runner"
)

// Apply records who took each side's slot as the shim reported it (a chain read, and its
// count), leaves a side without one where the shim could not read it, and says in the
// evidence when a chain made more than one buffer of the size.
func TestApplyRecordsIdentity(t *testing.T) {
	var report runner.Report
	const shim = `{"pairs":[{"id":"p1","seen":true,"copies":4,"identity":[
		{"known":true,"chain":[{"module":"ab12","offset":64},{"module":"ab12","offset":80}],"ordinal":1,"count":2},
		{"known":false,"chain":[],"ordinal":0,"count":0}]}]}`
	if err := json.Unmarshal([]byte(shim), &report); err != nil {
		t.Fatal(err)
	}
	p := &plan.Plan{Pairs: []plan.Pair{{ID: "p1", Bytes: 4096, Status: plan.StatusCandidate,
		Host: plan.Buffer{Site: plan.Site{Bytes: 4096}}, Strategies: []plan.Strategy{plan.StrategyMapped}}}}
	Apply(p, report)
	got := p.Pairs[0]
	want := &plan.Identity{Chain: []plan.Frame{{Module: "ab12", Offset: 64}, {Module: "ab12", Offset: 80}}, Ordinal: 1, Calls: 2}
	if got.Status != plan.StatusValidated || got.Host.Identity == nil || got.Device.Identity != nil {
		t.Fatalf("pair %+v; want validated, the host side named, the device side not", got)
	}
	if g, _ := json.Marshal(got.Host.Identity); string(g) != mustJSON(t, want) {
		t.Errorf("host identity %s; want %s", g, mustJSON(t, want))
	}
	evidence := strings.Join(got.Evidence, "\n")
	if !strings.Contains(evidence, "1 of its 2 buffers named by their call chains") || !strings.Contains(evidence, "one of 2 allocations") {
		t.Errorf("evidence %q", evidence)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
