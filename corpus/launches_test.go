package corpus

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/planner"
	"github.com/echo-uma/echo/trace"
)

// A plan needs no launch events: each workload of the corpus, traced as by default (no
// launches probed) and with --launches, gives the same pairs with the same verdicts. Copy
// shares of two runs differ by the runs' own noise on a shared machine (±10 points seen on
// multistream and background), so the share is compared on one run: the --launches trace
// planned as it is, and planned with its launch events taken out, as a trace made without
// --launches has it: the same pairs and verdicts again, and copy shares within
// fCopyTolerance.
//
// The loops run launchIters iterations here, more than the corpus's other tests: without
// launch events the planner tells a call site whose copies waited for kernels by its
// typical copy, and where its verdict differs from what the launches say, the shares differ
// by the gap between two sites' mean copy times, which is a loaded machine's noise (a
// preempted copy) spread over the site's copies. On a two-core machine under other tests'
// load, over 5 warm copies a site 3 of 240 traces differed by 9–14 points (15 of 240 before
// the planner judged a site by its typical copy rather than its mean); over 23, none of 120
// differed at all (2 of 120 before).
func TestPlansWithoutLaunches(t *testing.T) {
	testenv.RequireRoot(t)
	for name, args := range workloadArgs {
		t.Run(name, func(t *testing.T) {
			args = withIters(args, launchIters)
			rel := "workloads/" + name
			without, _ := testenv.PlanTraced(t, []string{"--host-allocs"}, rel, args...)
			with, withPath := testenv.PlanTraced(t, []string{"--host-allocs", "--launches"}, rel, args...)
			if got, want := pairsOf(without), pairsOf(with); !slices.Equal(got, want) {
				t.Errorf("pairs without launches:\n  %v\nwith --launches:\n  %v", got, want)
			}
			t.Logf("f_copy %.3f traced without launches, %.3f with (two runs)", without.FCopy, with.FCopy)
			stripped := planWithoutLaunches(t, withPath)
			if got, want := pairsOf(stripped), pairsOf(with); !slices.Equal(got, want) {
				t.Errorf("pairs with the launch events taken out:\n  %v\nwith them:\n  %v", got, want)
			}
			t.Logf("f_copy %.3f with the launch events taken out, %.3f with them", stripped.FCopy, with.FCopy)
			if d := math.Abs(stripped.FCopy - with.FCopy); d > fCopyTolerance {
				t.Errorf("f_copy %.3f with the launch events taken out, %.3f with them: more than %.0f points apart",
					stripped.FCopy, with.FCopy, 100*fCopyTolerance)
			}
		})
	}
}

// fCopyTolerance is how far a plan's copy share may move when its trace's launch events are
// taken out: issue 27's "a few percent", which is what noise leaves over launchIters (none
// seen; see TestPlansWithoutLaunches).
const fCopyTolerance = 0.03

// launchIters is how many iterations TestPlansWithoutLaunches runs each loop.
const launchIters = "24"

// withIters is args with its --iters value replaced by n.
func withIters(args []string, n string) []string {
	args = slices.Clone(args)
	for i := range args[:len(args)-1] {
		if args[i] == "--iters" {
			args[i+1] = n
		}
	}
	return args
}

// pairsOf is what a plan says of each pair that does not rest on timing: which buffers, which
// way, and its verdict.
func pairsOf(p *plan.Plan) []string {
	var out []string
	for _, pair := range p.Pairs {
		out = append(out, pair.ID+" "+string(pair.Direction)+" "+string(pair.Status)+" "+pair.Reason+" "+
			string(pair.Host.Kind)+" "+string(pair.Device.Kind))
	}
	return out
}

// planWithoutLaunches plans the trace whose plan is at planPath as if its launches had not
// been probed: no launch events, and a header that says so.
func planWithoutLaunches(t *testing.T, planPath string) *plan.Plan {
	t.Helper()
	return testenv.PlanRecords(t, strings.TrimSuffix(planPath, ".plan"),
		func(r *trace.Reader) planner.Records { return noLaunches{r} })
}

type noLaunches struct{ *trace.Reader }

func (n noLaunches) Header() trace.Header {
	h := n.Reader.Header()
	h.NoLaunches = true
	return h
}

func (n noLaunches) Next() (trace.Record, error) {
	for {
		rec, err := n.Reader.Next()
		if err != nil || rec.Event == nil ||
			rec.Event.Type != trace.EventCUDALaunchKernel && rec.Event.Type != trace.EventCULaunchKernel {
			return rec, err
		}
	}
}
