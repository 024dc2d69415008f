package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/sourcejoin"
)

// TestPlanSource: for a binary-path plan whose source is at hand, plan --source says whether
// the source path proves each pair (issue 28 item 4): stream's two pairs proved (the output's
// wait kept), unsafe_live_value's input pair declined on S1 at the line that refills it, found
// by its text.
func TestPlanSource(t *testing.T) {
	testenv.NeedClang(t)
	testenv.RequireRoot(t)
	for _, c := range []struct {
		name string
		want []string
		at   string // the text of the line a want's %d names
	}{
		{"stream", []string{"h_in/d_in in main  proved: echoctl rewrite merges it",
			"h_out/d_out in main  proved, the copy's wait kept"}, ""},
		{"unsafe_live_value", []string{"h_in/d_in in main  declined: S1 refused at line %d"}, "fill_batch(h_in, n, it + 1)"},
	} {
		rel := "testdata/workloads/" + c.name + ".cu"
		dir := workdir(t, c.name+".cu")
		if c.at != "" {
			at := lineWith(t, filepath.Join(dir, rel), c.at)
			for i, w := range c.want {
				c.want[i] = fmt.Sprintf(w, at)
			}
		}
		exe := filepath.Join(t.TempDir(), c.name)
		buildWorkload(t, filepath.Join(dir, rel), exe)
		tr := filepath.Join(t.TempDir(), "trace.bin")
		if res := testenv.Echoctl(t, nil, "trace", "-o", tr, "--", exe, "--size", "1M", "--iters", "6", "--warmup", "1"); res.ExitCode != 0 {
			t.Fatalf("trace %s: exit %d: %s", c.name, res.ExitCode, res.Stderr)
		}
		res := testenv.EchoctlOK(t, nil, "plan", "--source", filepath.Join(dir, rel), tr)
		section := res.Stdout[strings.Index(res.Stdout, "the source path"):]
		for _, w := range c.want {
			if !strings.Contains(squeeze(section), w) {
				t.Errorf("%s: plan --source does not say %q:\n%s", c.name, w, res.Stdout)
			}
		}
	}
	if res := testenv.Echoctl(t, nil, "--json", "plan", "-o", "-", "--source", "x.cu", "x.trace"); res.ExitCode != 1 ||
		!strings.Contains(res.Stderr, "both want standard output") {
		t.Errorf("--json --source with -o -: exit %d, %s; want a clear refusal", res.ExitCode, res.Stderr)
	}
}

// TestPlanSourceJSON: plan --source --json says the same as the table, for scripts: stream's
// input pair proved, its output pair proved with the copy's wait kept, both named by their
// source pair and function, and the plan itself written to its file.
func TestPlanSourceJSON(t *testing.T) {
	testenv.NeedClang(t)
	testenv.RequireRoot(t)
	rel := "testdata/workloads/stream.cu"
	dir := workdir(t, "stream.cu")
	exe := filepath.Join(t.TempDir(), "stream")
	buildWorkload(t, filepath.Join(dir, rel), exe)
	tr := filepath.Join(t.TempDir(), "trace.bin")
	testenv.EchoctlOK(t, nil, "trace", "-o", tr, "--", exe, "--size", "1M", "--iters", "6", "--warmup", "1")
	res := testenv.EchoctlOK(t, nil, "--json", "plan", "--source", filepath.Join(dir, rel), tr)
	var doc sourcejoin.Doc
	if err := json.Unmarshal([]byte(res.Stdout), &doc); err != nil {
		t.Fatalf("plan --source --json: %v\n%s", err, res.Stdout)
	}
	if doc.Schema != "echo.plansource/1" || doc.Plan != tr+".plan" || len(doc.Pairs) != 2 {
		t.Fatalf("document %+v; want echo.plansource/1 for %s.plan, two pairs", doc, tr)
	}
	got := map[string]string{}
	for _, v := range doc.Pairs {
		if v.Function != "main" || len(v.Copies) == 0 {
			t.Errorf("%s: function %q, copies %v; want main and the copies' lines", v.Pair, v.Function, v.Copies)
		}
		got[v.SourcePair] = v.Status
	}
	if got["h_in/d_in"] != "proved" || got["h_out/d_out"] != "proved_wait_kept" {
		t.Errorf("verdicts %v; want h_in/d_in proved, h_out/d_out proved_wait_kept", got)
	}
	if _, err := plan.ReadFile(doc.Plan); err != nil {
		t.Errorf("the plan file: %v", err)
	}
}

// squeeze makes the table's runs of spaces two, so a row reads as its cells.
func squeeze(s string) string {
	for strings.Contains(s, "   ") {
		s = strings.ReplaceAll(s, "   ", "  ")
	}
	return s
}
