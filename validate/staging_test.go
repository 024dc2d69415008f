package validate_test

import (
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/plan"
)

// A framework that stages (testdata/workloads/staging: CuPy's cp.asarray) copies the program's
// fresh pageable array into a page-locked buffer of its own (memmove) and that buffer to a
// block of its device pool; with --stage-out it takes results back the same way (memcpy out of
// its buffer). The trace's pairs name the framework's buffers, which neither a merge nor pinned
// can serve; validate finds the program's array behind each (its allocation site, a fresh
// allocation each iteration) and the staging copy (its site and time), and the pair is that
// array's and the device's. Pinned deployed at the array's site has the framework find it
// page-locked and copy from it directly: it stages nothing, and the program prints what it
// printed as written. Past the pools' cap the allocations fall back, and the run names the
// pair, why and the copies that cost.
func TestStagedPairServed(t *testing.T) {
	testenv.RequireRoot(t)
	const rel = "workloads/staging"
	prog := testenv.Built(t, rel)
	for _, variant := range [][]string{nil, {"--stage-out"}} {
		t.Run(strings.Join(append([]string{"staging"}, variant...), " "), func(t *testing.T) {
			args := append([]string{"--size", "1M", "--iters", "6", "--warmup", "1"}, variant...)
			p, planPath := validatedPlan(t, rel, args...)
			staged := map[plan.PairDirection]int{}
			for _, pair := range p.Pairs {
				if pair.Staging == nil {
					continue
				}
				staged[pair.Direction]++
				st, copyCall := pair.Staging, "memmove"
				if pair.Direction == "output" {
					copyCall = "memcpy"
				}
				if pair.Status != plan.StatusValidated || pair.Merges() || !pair.Allows(plan.StrategyPinned) ||
					pair.Host.Unresolved || pair.Host.Site.Call != "malloc" || pair.Host.Kind != plan.KindPageable ||
					pair.Host.Allocations < 2 {
					t.Errorf("%s: %s %q, strategies %v, host %+v; want validated for pinned alone, the host side "+
						"the program's fresh malloc'd array", pair.ID, pair.Status, pair.Reason, pair.Strategies, pair.Host)
				}
				if !st.Found() || st.Copy.Call != copyCall || st.Via.Call != "cuMemHostAlloc" || st.MS <= 0 ||
					st.PerIteration <= 0 || st.Copies < 6 {
					t.Errorf("%s: staging %+v (copy %+v); want %s into the framework's cuMemHostAlloc buffer, timed, "+
						"found for every copy", pair.ID, *st, st.Copy, copyCall)
				}
			}
			wantStaged := map[plan.PairDirection]int{"input": 1}
			if len(variant) > 0 {
				wantStaged["output"] = 1
			}
			for dir, n := range wantStaged {
				if staged[dir] < n {
					t.Errorf("%d staged %s pairs, want %d: %+v", staged[dir], dir, n, p.Pairs)
				}
			}
			asWritten := testenv.Run(t, prog, nil, args...)
			if !strings.Contains(asWritten.Stderr, " arrays staged") || strings.Contains(asWritten.Stderr, ": 0 arrays staged") {
				t.Fatalf("as written the framework did not stage: %s", asWritten.Stderr)
			}
			pinned := append([]string{"-v", "run", "--force", "--strategy", "pinned", planPath, "--", prog}, args...)
			res := testenv.Echoctl(t, nil, pinned...)
			if res.ExitCode != 0 || res.Checksum() != asWritten.Checksum() || !strings.Contains(res.Stderr, ": 0 arrays staged, 14 copied directly") ||
				!strings.Contains(res.Stderr, "1 of 1 host allocation sites served") || !strings.Contains(res.Stderr, " 0 fallbacks") {
				t.Errorf("pinned: exit %d, checksum %s, want %s, the framework staging nothing: %s", res.ExitCode,
					res.Checksum(), asWritten.Checksum(), res.Stderr)
			}
			capped := testenv.Echoctl(t, []string{"ECHO_PINNED_CAP=1048576"}, pinned...)
			if capped.ExitCode != 0 || capped.Checksum() != asWritten.Checksum() ||
				!strings.Contains(capped.Stderr, " allocations made as written (the pinned pools reached their cap (ECHO_PINNED_CAP)") {
				t.Errorf("pinned past the cap: exit %d, checksum %s, want %s, the fallbacks named: %s", capped.ExitCode,
					capped.Checksum(), asWritten.Checksum(), capped.Stderr)
			}
		})
	}
}

// The framework's buffer is the program's own when nothing copies into it: a user who pins by
// hand (--manual) fills page-locked arrays in place, the framework copies from them directly,
// and validate refuses the pairs: there is nothing behind the page-locked buffer to serve.
func TestStagedPairNotFoundIsRefused(t *testing.T) {
	testenv.RequireRoot(t)
	p, _ := validatedPlan(t, "workloads/staging", "--size", "1M", "--iters", "6", "--warmup", "1", "--manual")
	refused := 0
	for _, pair := range p.Pairs {
		if pair.Staging == nil {
			continue
		}
		if pair.Status != plan.StatusRefused || pair.RefusedAt != plan.StageResolve ||
			!strings.Contains(pair.Reason, "so it is already pinned memory") {
			t.Errorf("%s: %s at %s %q; want refused by the resolve run: nothing staged it", pair.ID, pair.Status,
				pair.RefusedAt, pair.Reason)
		}
		refused++
	}
	if refused == 0 {
		t.Errorf("no pair was planned staged: %+v", p.Pairs)
	}
}
