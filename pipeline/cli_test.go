package pipeline

import (
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/runner"
)

// TestArgsDiffer: only a command whose arguments differ from the traced one's is warned of.
func TestArgsDiffer(t *testing.T) {
	if d := ArgsDiffer([]string{"/bin/app", "--size", "1M"}, []string{"app", "--size", "1M"}); d != "" {
		t.Errorf("same arguments: %q", d)
	}
	if d := ArgsDiffer(nil, []string{"app", "-x"}); d != "" {
		t.Errorf("no traced command: %q", d)
	}
	if d := ArgsDiffer([]string{"app", "--size", "1M"}, []string{"app", "--size", "2M"}); !strings.Contains(d, `"--size 1M"`) || !strings.Contains(d, `"--size 2M"`) {
		t.Errorf("other arguments: %q; want both named", d)
	}
}

// TestUnlinked: a deployed pair seen but not served was left unbound; pinned and measuring
// runs have none.
func TestUnlinked(t *testing.T) {
	r := runner.Report{Mode: "deploy", Pairs: []runner.PairReport{{ID: "p1", Seen: true, Served: true}, {ID: "p2", Seen: true}, {ID: "p3"}}}
	if ids := Unlinked(r, plan.StrategyMapped); strings.Join(ids, ",") != "p2" {
		t.Errorf("unlinked %v; want p2", ids)
	}
	if ids := Unlinked(r, plan.StrategyPinned); ids != nil {
		t.Errorf("pinned: %v; want none", ids)
	}
}

// TestForRunUnreadablePlan: a plan that cannot be read deploys nothing, saying why, with or
// without the cache: the program runs as written.
func TestForRunUnreadablePlan(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	missing := filepath.Join(t.TempDir(), "none.plan")
	for _, force := range []bool{false, true} {
		k, err := ForRun(missing, []string{"true"}, "", force, io.Discard)
		if err != nil || k.Untouched == "" || k.Compact != "" {
			t.Errorf("force %v: %+v, %v; want untouched, saying why", force, k, err)
		}
	}
}
