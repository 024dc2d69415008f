package validate_test

import (
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/plan"
)

// A loop beside loader threads that allocate through the loop's own helpers (a DataLoader's
// workers): at the helpers' sites the threads' calls interleave, so no site and ordinal name
// the loop's buffers, which once refused every merge of the program. Their call chains do:
// validate names each side by its chain (one thread calls it), the pairs validate for a merge,
// and merged, whatever the loaders allocate meanwhile, the program prints what it printed as
// written. (mt_stream, whose threads share their chains too, stays refused: TestOptimizeThenRun.)
func TestLoaderThreadsNamedByChain(t *testing.T) {
	testenv.RequireRoot(t)
	const rel = "tests/loader_threads"
	prog := testenv.Built(t, rel)
	args := []string{"6", "1048576"}
	p, planPath := validatedPlan(t, rel, args...)
	if len(p.Pairs) != 2 {
		t.Fatalf("%d pairs, want the loop's input and output: %+v", len(p.Pairs), p.Pairs)
	}
	for _, pair := range p.Pairs {
		if pair.Status != plan.StatusValidated || !pair.Merges() || pair.Host.Identity == nil || pair.Device.Identity == nil ||
			!strings.Contains(strings.Join(pair.Evidence, "\n"), "one thread alone calls it from the") {
			t.Errorf("%s: %s %q, merges refused for %q, identities %+v %+v; want validated for a merge, both sides "+
				"named by their call chains", pair.ID, pair.Status, pair.Reason, pair.MergeRefused, pair.Host.Identity,
				pair.Device.Identity)
		}
	}
	slow := []string{"CUDA_EMU_KERNEL_DELAY_US=500"}
	if res := runForced(t, slow, plan.StrategyMapped, planPath, prog, args...); !strings.Contains(res.Stderr, "2 of 2 pairs merged") {
		t.Errorf("mapped: want both pairs merged: %s", res.Stderr)
	}
}
