package validate_test

import (
	"os"
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/plan"
)

// A validate run watches the program as written: its output is the baseline's; the
// still-live input of S1 is refused, naming the instruction; the rest are validated (S2 is
// the deploy's to keep, S3 cannot be seen).
func TestValidate(t *testing.T) {
	testenv.RequireRoot(t)
	delay := []string{"CUDA_EMU_KERNEL_DELAY_US=1000"}
	args := []string{"--iters", "5", "--warmup", "1"}
	// A double-buffered pipeline copies each set every other frame: an even count of frames
	// gives every pair the same number of copies, enough iterations for the planner.
	frames := []string{"--iters", "11", "--warmup", "1"}
	cases := []struct {
		workload string
		refused  map[string]string // pair id -> reason substring
		args     []string          // nil: args
	}{
		{"stream", nil, nil},
		{"pipeline", nil, nil},
		{"unsafe_sync_wait", nil, nil},
		{"unsafe_ptr_identity", nil, nil},
		{"unsafe_live_value", map[string]string{"p1": "(S1)"}, nil},
		// the same on the per-thread default stream (--default-stream per-thread's entry points)
		{"unsafe_live_value-ptds", map[string]string{"p1": "(S1)"}, nil},
		{"memset", nil, nil},
		{"unsafe_memset_read", map[string]string{"p2": "between a kernel launch or memset and the copy"}, nil},
		// two streams joined by events: the input windows close in stream time
		{"multistream", nil, nil},
		{"unsafe_stream_refill", map[string]string{"p1": "(S1)"}, nil},
		{"async_stream", nil, nil},
		// two streams, two sets of buffers: a launch on one stream cannot follow the other
		// set's copies, so the host waiting for its own stream alone closes its windows
		{"doublebuffer", nil, frames},
		{"unsafe_doublebuffer", map[string]string{"p1": "(S1)", "p3": "(S1)"}, frames},
		// one buffer each way, copied in four chunks over four streams: the chunks open and
		// close the windows as a whole-buffer copy does
		{"chunked", nil, nil},
		{"unsafe_chunked", map[string]string{"p1": "(S1)"}, nil},
		// synchronous copies on the legacy stream around a kernel on a blocking stream, beside
		// a persistent kernel on a non-blocking one
		{"background", nil, nil},
	}
	for _, c := range cases {
		t.Run(c.workload, func(t *testing.T) {
			args := args
			if c.args != nil {
				args = c.args
			}
			p, planPath := testenv.Plan(t, c.workload, args...)
			candidates := 0
			for _, pair := range p.Pairs {
				if pair.Status == plan.StatusCandidate {
					candidates++
				}
			}
			prog := testenv.Built(t, "workloads/"+c.workload)
			res := testenv.Echoctl(t, delay, append([]string{"validate", planPath, "--", prog}, args...)...)
			want := testenv.RunWorkload(t, c.workload, delay, args...).Checksum()
			if res.ExitCode != 0 || res.Checksum() != want {
				t.Fatalf("validate: exit %d, checksum %s (want %s): %s", res.ExitCode, res.Checksum(), want, res.Stderr)
			}
			got := testenv.ReadPlan(t, planPath)
			validated := 0
			for _, pair := range got.Pairs {
				reason, refuse := c.refused[pair.ID]
				why := mergeRefusal(pair)
				switch {
				case refuse && (!strings.Contains(why, reason) || !strings.Contains(why, "(at "+c.workload+"+0x") ||
					!strings.Contains(why, " ms into the run, after ")):
					t.Errorf("%s: %s %q; want no merge, for %q, naming the instruction and when", pair.ID, pair.Status, why, reason)
				case !refuse && why != "" && (pair.Status != plan.StatusRefused || strings.HasPrefix(why, "validation: ")):
					t.Errorf("%s: merges refused for %q; want them validated", pair.ID, why)
				}
				// A pair a merge would change is validated for pinned, which keeps the copies,
				// or refused where its host side is page-locked already.
				if pair.Status == plan.StatusValidated ||
					pair.Status == plan.StatusRefused && pair.Host.Kind != "pageable" && strings.HasPrefix(pair.Reason, "validation: ") {
					validated++
				}
			}
			if validated != candidates {
				t.Errorf("%d pairs validated (or refused, page-locked already) of %d candidates", validated, candidates)
			}
		})
	}
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// mergeRefusal is why no merge may serve the pair: its refusal, or why pinned alone may; ""
// when a merge may.
func mergeRefusal(p plan.Pair) string {
	switch {
	case p.Status == plan.StatusRefused:
		return p.Reason
	case !p.Merges():
		return p.MergeRefused
	}
	return ""
}

// Every workload and unsafe case through optimize and then run, the kernel delay on: either
// not merged, for the expected reason, or deployed with the baseline's output, byte for byte.
// optimize traces without the host allocators: validate finds where each host buffer came
// from, and what only a trace of them could tell (a buffer freed and allocated again each
// iteration, a site several threads allocate at) it tells from the run.
func TestOptimizeThenRun(t *testing.T) {
	testenv.Long(t)
	testenv.RequireRoot(t)
	env := []string{"CUDA_EMU_KERNEL_DELAY_US=500", "CUDA_EMU_MANAGED_SLOWDOWN=3"}
	args := []string{"--iters", "5", "--warmup", "1"}
	frames := []string{"--iters", "11", "--warmup", "1"} // as in TestValidate
	cases := []struct {
		workload string
		refused  map[string]string
		args     []string // nil: args
	}{
		{"stream", nil, nil},
		{"pipeline", nil, nil},
		{"compute", map[string]string{"p1": "too rare"}, nil},
		{"multistream", nil, nil},
		{"unsafe_stream_refill", map[string]string{"p1": "(S1)"}, nil},
		// asynchronous copies to pageable memory: the D2H's wait is kept, on its stream
		{"async_stream", nil, nil},
		{"unsafe_live_value", map[string]string{"p1": "(S1)"}, nil},
		// the same on the per-thread default stream (--default-stream per-thread's entry points)
		{"unsafe_live_value-ptds", map[string]string{"p1": "(S1)"}, nil},
		{"unsafe_sync_wait", nil, nil},
		// a merge binds memory, not pointers: the two stay distinct, and the program's table of
		// them keeps telling them apart
		{"unsafe_ptr_identity", nil, nil},
		// a fresh staging buffer each iteration: at one address (resolved as fresh allocations)
		// or at several (pairs of one device buffer), as the allocator hands them out
		{"unsafe_lifetime", map[string]string{"p1": "allocated afresh|linked to"}, nil},
		{"unsafe_inplace", map[string]string{"p1": "linked to 2 host buffers", "p2": "linked to 2 host buffers"}, nil},
		{"memset", nil, nil},
		{"unsafe_memset_read", map[string]string{"p2": "or memset"}, nil},
		// four threads allocating and copying through shared call sites and call chains: the
		// chains name no buffer either, though the trace's loop (the four threads' iterations
		// interleaved) refuses the merges first, each pair's copies too rare for it
		{"mt_stream", map[string]string{"p1": "several threads|too rare", "p2": "several threads|too rare",
			"p5": "several threads|too rare"}, nil},
		{"doublebuffer", nil, frames},
		{"unsafe_doublebuffer", map[string]string{"p1": "(S1)", "p3": "(S1)"}, frames},
		{"chunked", nil, nil},
		{"unsafe_chunked", map[string]string{"p1": "(S1)"}, nil},
		// synchronous copies on the legacy stream around a kernel on a blocking stream, beside
		// a persistent kernel on a non-blocking one
		{"background", nil, nil},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.workload, func(t *testing.T) {
			args := args
			if c.args != nil {
				args = c.args
			}
			prog := testenv.Built(t, "workloads/"+c.workload)
			planPath := dir + "/" + c.workload + ".plan"
			testenv.EchoctlOK(t, env, append([]string{"optimize", "--rounds", "2", "--ignore", "^iter_ms=", "-o", planPath, "--", prog}, args...)...)
			p := testenv.ReadPlan(t, planPath)
			for id, reason := range c.refused {
				found := false
				for _, pair := range p.Pairs {
					if pair.ID != id {
						continue
					}
					found = true
					if why := mergeRefusal(pair); !containsAny(why, strings.Split(reason, "|")) ||
						(pair.Status == plan.StatusEnabled && p.Context.Strategy != plan.StrategyPinned) {
						t.Errorf("%s: %s with %q, merges refused for %q; want them refused for %q", id, pair.Status, p.Context.Strategy, why, reason)
					}
				}
				if !found {
					t.Errorf("no pair %s in the plan, which should refuse it for %q", id, reason)
				}
			}
			// A pair validation let through whose merge then changed the output is a hole in
			// validation or deploy, even though calibration caught it.
			for _, pair := range p.Pairs {
				if _, expected := c.refused[pair.ID]; !expected && strings.Contains(pair.Reason+pair.MergeRefused, "output differs") {
					t.Errorf("%s: %s %q: merged, the program's output changed", pair.ID, pair.Status, pair.Reason+pair.MergeRefused)
				}
			}
			want := testenv.RunWorkload(t, c.workload, env, args...).Checksum()
			run := testenv.Echoctl(t, env, append([]string{"-v", "run", planPath, "--", prog}, args...)...)
			if run.ExitCode != 0 || run.Checksum() != want {
				t.Errorf("run: exit %d, checksum %s, want %s: %s", run.ExitCode, run.Checksum(), want, run.Stderr)
			}
			if testing.Verbose() {
				t.Logf("%s: strategy %q\n%s", c.workload, p.Context.Strategy, run.Stderr)
			}
		})
	}
	os.RemoveAll(dir)
}
