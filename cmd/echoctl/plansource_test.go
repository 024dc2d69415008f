package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
)

// TestPlanSource: for a binary-path plan whose source is at hand, plan --source says whether
// the source path proves each pair (issue 28 item 4): stream's two pairs proved (the output's
// wait kept), unsafe_live_value's input pair declined on S1 at the line that refills it.
func TestPlanSource(t *testing.T) {
	needClang(t)
	testenv.RequireRoot(t)
	for _, c := range []struct {
		name string
		want []string
	}{
		{"stream", []string{"h_in/d_in in main  proved: echoctl rewrite merges it",
			"h_out/d_out in main  proved, the copy's wait kept"}},
		{"unsafe_live_value", []string{"h_in/d_in in main  declined: S1 refused at line 41"}},
	} {
		rel := "testdata/workloads/" + c.name + ".cu"
		dir := workdir(t, c.name+".cu")
		exe := filepath.Join(t.TempDir(), c.name)
		buildWorkload(t, filepath.Join(dir, rel), exe)
		tr := filepath.Join(t.TempDir(), "trace.bin")
		if res := testenv.Echoctl(t, nil, "trace", "-o", tr, "--", exe, "--size", "1M", "--iters", "6", "--warmup", "1"); res.ExitCode != 0 {
			t.Fatalf("trace %s: exit %d: %s", c.name, res.ExitCode, res.Stderr)
		}
		res := testenv.Echoctl(t, nil, "plan", "--source", filepath.Join(dir, rel), tr)
		if res.ExitCode != 0 {
			t.Fatalf("plan --source: exit %d: %s", res.ExitCode, res.Stderr)
		}
		section := res.Stdout[strings.Index(res.Stdout, "the source path"):]
		for _, w := range c.want {
			if !strings.Contains(squeeze(section), w) {
				t.Errorf("%s: plan --source does not say %q:\n%s", c.name, w, res.Stdout)
			}
		}
	}
	if res := testenv.Echoctl(t, nil, "--json", "plan", "--source", "x.cu", "x.plan"); res.ExitCode != 1 ||
		!strings.Contains(res.Stderr, "--source adds a table") {
		t.Errorf("--json with --source: exit %d, %s; want a clear refusal", res.ExitCode, res.Stderr)
	}
}

// squeeze makes the table's runs of spaces two, so a row reads as its cells.
func squeeze(s string) string {
	for strings.Contains(s, "   ") {
		s = strings.ReplaceAll(s, "   ", "  ")
	}
	return s
}
