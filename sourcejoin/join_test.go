package sourcejoin

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/source/parse"
	"github.com/echo-uma/echo/source/rules"
)

// TestVerdictOf: a plan pair's verdict is the one source pair its copies are: none is
// not_in_source, two are ambiguous, one is that proof's (declined at its first refusal,
// proved with the copy's wait kept where S2 keeps it).
func TestVerdictOf(t *testing.T) {
	pair := rules.Pair{Function: "main", Host: "h_in", Device: "d_in"}
	proved := rules.Proof{Pair: pair}
	kept := rules.Proof{Pair: pair}
	kept.Verdicts[1] = rules.Verdict{Cond: "S2", Status: plan.ConditionKeepWait}
	refused := rules.Proof{Pair: pair}
	refused.Verdicts[0] = rules.Verdict{Cond: "S1", Status: plan.ConditionRefused, At: parse.Loc{Line: 41}, Reason: "refilled"}
	proofs := []rules.Proof{proved, kept, refused}
	for _, c := range []struct {
		matched map[int]bool
		status  string
		words   string
	}{
		{map[int]bool{}, NotInSource, "not in the given source: its copies are at a.cu:3"},
		{map[int]bool{0: true, 1: true}, Ambiguous, "its copies are linking copies of different source pairs"},
		{map[int]bool{0: true}, Proved, "proved: echoctl rewrite merges it"},
		{map[int]bool{1: true}, ProvedWaitKept, "proved, the copy's wait kept: echoctl rewrite merges it"},
		{map[int]bool{2: true}, Declined, "declined: S1 refused at line 41"},
	} {
		v := verdictOf("p0", proofs, c.matched, []string{"a.cu:3"})
		if v.Status != c.status || !strings.HasPrefix(v.Words(), c.words) {
			t.Errorf("matched %v: %s, %q; want %s, %q", c.matched, v.Status, v.Words(), c.status, c.words)
		}
		if len(c.matched) == 1 && (v.SourcePair != "h_in/d_in" || v.Function != "main") {
			t.Errorf("matched %v: source pair %q in %q; want h_in/d_in in main", c.matched, v.SourcePair, v.Function)
		}
	}
}

// TestWriteJSON: the document says [] rather than null for a file without flags.
func TestWriteJSON(t *testing.T) {
	var b bytes.Buffer
	res := &Findings{Files: []string{"a.cu"}, Flags: []parse.BuildFlags{{}}, Pairs: []Verdict{{Pair: "p0", Status: NotInSource}}}
	if err := WriteJSON(&b, res, "x.plan"); err != nil {
		t.Fatal(err)
	}
	var d Doc
	if err := json.Unmarshal(b.Bytes(), &d); err != nil {
		t.Fatal(err)
	}
	if d.Schema != "echo.plansource/1" || d.Plan != "x.plan" || len(d.Flags) != 1 || d.Flags[0] == nil || !strings.Contains(b.String(), `"assumed_flags": [`) {
		t.Errorf("document %s", b.String())
	}
}
