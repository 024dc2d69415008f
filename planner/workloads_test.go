package planner_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/trace"
)

// Each emulator workload traced by the real tracer and planned: the verdicts the design asks
// for (issue 4, "Tests").
func TestPlanWorkloads(t *testing.T) {
	testenv.RequireRoot(t)
	type verdict struct {
		direction string
		status    plan.Status
		reason    string // substring; "" for a candidate
	}
	candidate := func(dir string) verdict { return verdict{dir, plan.StatusCandidate, ""} }
	cases := []struct {
		workload string
		args     []string
		pairs    []verdict
		check    func(t *testing.T, p *plan.Plan)
	}{
		{"stream", []string{"--size", "1M"}, []verdict{candidate("input"), candidate("output")}, nil},
		{"pipeline", []string{"--size", "1M"}, []verdict{candidate("input"), candidate("input"), candidate("output"), candidate("output")}, nil},
		{"compute", []string{"--work", "4"}, []verdict{ // --work 4: kernel-bound beyond what a loaded machine blurs
			{"input", plan.StatusRefused, "too rare"}, candidate("input"), candidate("output"),
		}, func(t *testing.T, p *plan.Plan) {
			if p.FCopy > 0.1 {
				t.Errorf("compute f_copy %.3f: kernel-bound, want a small gain", p.FCopy)
			}
		}},
		// Two streams joined by an event, each pair on one stream: candidates, which validation
		// watches in stream time.
		{"multistream", []string{"--size", "1M"}, []verdict{
			candidate("input"), candidate("input"), candidate("output"), candidate("output"),
		}, func(t *testing.T, p *plan.Plan) {
			if !strings.Contains(strings.Join(p.Pairs[0].Evidence, " "), "in stream time") {
				t.Errorf("the pairs' evidence %v does not say validation watches in stream time", p.Pairs[0].Evidence)
			}
		}},
		// An output zeroed on the device before the kernel adds into it: a merge candidate, whose
		// evidence says validation watches from the memset on.
		{"memset", []string{"--size", "1M"}, []verdict{candidate("input"), candidate("output")}, func(t *testing.T, p *plan.Plan) {
			if !strings.Contains(strings.Join(p.Pairs[1].Evidence, " "), "set with cudaMemset") {
				t.Errorf("the output pair's evidence %v does not name the memset", p.Pairs[1].Evidence)
			}
		}},
		{"async_stream", []string{"--size", "1M"}, []verdict{candidate("input"), candidate("output")}, nil},
		// Two sets of buffers on two streams, each copied every other frame: 16 frames, a
		// loop of 8 iterations, the period of either set's copies.
		{"doublebuffer", []string{"--size", "1M", "--iters", "15"}, []verdict{
			candidate("input"), candidate("output"), candidate("input"), candidate("output"),
		}, nil},
		// One buffer each way in four chunks over four streams: the chunks link the pairs.
		{"chunked", []string{"--size", "1M"}, []verdict{candidate("input"), candidate("output")}, func(t *testing.T, p *plan.Plan) {
			if n := len(p.Pairs[0].Copies); n != 4 || p.Pairs[0].Copies[3].Offset != 3<<18 {
				t.Errorf("the input's copies %+v: want its four chunks, the last at offset %d", p.Pairs[0].Copies, 3<<18)
			}
		}},
		// A kernel on a blocking stream between synchronous copies, a watcher on a
		// non-blocking one: the watcher touches neither pair.
		{"background", []string{"--size", "1M"}, []verdict{candidate("input"), candidate("output")}, nil},
		// The unsafe cases: refused from the trace, or left to validation.
		{"unsafe_live_value", nil, []verdict{candidate("input"), candidate("output")}, nil},
		{"unsafe_sync_wait", nil, []verdict{candidate("input"), candidate("output")}, func(t *testing.T, p *plan.Plan) {
			if !strings.Contains(strings.Join(p.Pairs[1].Evidence, " "), "wait for the GPU") {
				t.Errorf("the output pair's evidence %v does not name the completion wait", p.Pairs[1].Evidence)
			}
		}},
		{"unsafe_ptr_identity", nil, []verdict{candidate("input"), candidate("output")}, nil},
		{"unsafe_memset_read", nil, []verdict{candidate("input"), candidate("output")}, nil},
		{"unsafe_stream_refill", nil, []verdict{candidate("input"), candidate("output")}, nil},
		{"unsafe_chunked", nil, []verdict{candidate("input"), candidate("output")}, nil},
		{"unsafe_doublebuffer", []string{"--iters", "15"}, []verdict{
			candidate("input"), candidate("output"), candidate("input"), candidate("output"),
		}, nil},
		{"unsafe_inplace", nil, []verdict{
			{"input", pinnedOnly, "linked to 2 host buffers"}, {"output", pinnedOnly, "linked to 2 host buffers"},
		}, nil},
	}
	for _, c := range cases {
		t.Run(c.workload, func(t *testing.T) {
			p := planWorkload(t, c.workload, append([]string{"--iters", "7", "--warmup", "1"}, c.args...)...) // a case's own flags come last, and win
			if len(p.Pairs) != len(c.pairs) {
				t.Fatalf("%d pairs, want %d: %+v", len(p.Pairs), len(c.pairs), p.Pairs)
			}
			for i, w := range c.pairs {
				got := p.Pairs[i]
				status, reason := got.Status, got.Reason
				if got.MergeRefused != "" {
					status, reason = pinnedOnly, got.MergeRefused
				}
				if string(got.Direction) != w.direction || status != w.status || !strings.Contains(reason, w.reason) {
					t.Errorf("%s: %s %s %q; want %s %s %q", got.ID, got.Direction, status, reason, w.direction, w.status, w.reason)
				}
				if status == plan.StatusCandidate && !strings.Contains(strings.Join(got.Evidence, " "), "needs validation") {
					t.Errorf("%s is a candidate without the needs-validation evidence: %v", got.ID, got.Evidence)
				}
			}
			if p.Loop.Iterations != 8 {
				t.Errorf("loop of %d iterations, want 8", p.Loop.Iterations)
			}
			if c.check != nil {
				c.check(t, p)
			}
		})
	}
}

// A copy-bound loop has a copy-bound share: stream with each copy held 2 ms on the link
// (CUDA_EMU_COPY_DELAY_US), so that its copies outweigh its kernel however loaded the machine
// (a kernel the emulator runs on a busy CPU took most of a 1 MiB iteration without the delay:
// f_copy 0.11 at a load of 6 on 2 cores).
func TestPlanStreamCopyShare(t *testing.T) {
	testenv.RequireRoot(t)
	t.Setenv("CUDA_EMU_COPY_DELAY_US", "2000")
	p := planWorkload(t, "stream", "--size", "1M", "--iters", "7", "--warmup", "1")
	if p.FCopy < 0.5 {
		t.Errorf("stream f_copy %.3f with its copies held 2 ms each: copy-bound, want above 0.5", p.FCopy)
	}
}

// S4: the staging buffer freed every iteration while the device buffer lives on.
// pinnedOnly stands for a candidate that pinned alone may serve.
const pinnedOnly plan.Status = "candidate for pinned only"

func TestPlanLifetime(t *testing.T) {
	testenv.RequireRoot(t)
	p := planWorkload(t, "unsafe_lifetime", "--iters", "5", "--warmup", "0")
	refused := 0
	for _, pair := range p.Pairs {
		if pair.Direction == "input" {
			if pair.Merges() {
				t.Errorf("%s: strategies %v, want pinned alone", pair.ID, pair.Strategies)
			}
			if strings.Contains(pair.MergeRefused, "lifetime") {
				refused++
			}
		}
	}
	if refused == 0 {
		t.Errorf("no input pair refused for its lifetime: %+v", p.Pairs)
	}
}

// planWorkload plans a workload traced with the host allocators: the rules the planner
// applies when it sees every allocation (validate finds them otherwise: validate's tests).
func planWorkload(t *testing.T, workload string, args ...string) *plan.Plan {
	t.Helper()
	p, _ := testenv.PlanTraced(t, []string{"--host-allocs"}, "workloads/"+workload, args...)
	if err := p.Check(); err != nil {
		t.Errorf("the plan does not validate: %v", err)
	}
	// The plan file round-trips through the strict reader.
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatalf("writing the plan: %v", err)
	}
	back, err := plan.Read(&buf)
	if err != nil {
		t.Fatalf("reading the plan back: %v", err)
	}
	if !reflect.DeepEqual(back.Pairs, p.Pairs) || !reflect.DeepEqual(back.Loop, p.Loop) ||
		!reflect.DeepEqual(back.Rejected, p.Rejected) || !reflect.DeepEqual(back.Context, p.Context) || back.FCopy != p.FCopy {
		t.Errorf("the plan changed on its way through the file:\n%+v\n%+v", p, back)
	}
	return p
}

// A program whose copies fail (out of bounds, unchecked) is not one to optimize: stats counts
// the failures per API and error, and the plan refuses the pair they name, saying so.
func TestPlanFailedCopies(t *testing.T) {
	testenv.RequireRoot(t)
	p, planPath := testenv.PlanProgram(t, "tests/failing_copies", "20")
	if len(p.Pairs) != 1 || p.Pairs[0].Status != plan.StatusRefused ||
		!strings.HasPrefix(p.Pairs[0].Reason, "copies failed: 20 copies returned an error on these buffers (cudaMemcpy at failing_copies+0x") {
		t.Errorf("pairs %+v; want the one pair refused because its copies failed", p.Pairs)
	}
	if !strings.Contains(strings.Join(p.Notes, "\n"), "20 CUDA calls failed: cudaMemcpy 20 of 21 (cudaErrorInvalidValue)") {
		t.Errorf("notes %q; want the failed calls counted", p.Notes)
	}
	tracePath := strings.TrimSuffix(planPath, ".plan")
	res := testenv.Echoctl(t, nil, "stats", "--json", tracePath)
	var st trace.Stats
	if err := json.Unmarshal([]byte(res.Stdout), &st); err != nil || res.ExitCode != 0 {
		t.Fatalf("stats --json: exit %d, %v: %s", res.ExitCode, err, res.Stderr)
	}
	if f := st.Failed["cudaMemcpy"]; f.Calls != 20 || f.Errors["cudaErrorInvalidValue"] != 20 {
		t.Errorf("stats: failed %+v; want cudaMemcpy's 20 failures", st.Failed)
	}
	res = testenv.Echoctl(t, nil, "stats", tracePath)
	if !strings.Contains(res.Stdout, "WARNING: cudaMemcpy: 20 of 21 calls failed (cudaErrorInvalidValue ×20)") {
		t.Errorf("stats does not say the copies failed:\n%s", res.Stdout)
	}
}

// Each linking copy says what a merge keeps of its ordering, by the shim's rule: a copy that
// returned only once done (synchronous, or asynchronous to pageable memory) an event waited
// for on its stream, any other asynchronous one nothing.
func TestPlanRepairs(t *testing.T) {
	cases := []struct {
		workload string
		want     map[string]plan.Repair // direction -> repair
	}{
		{"stream", map[string]plan.Repair{"h2d": plan.RepairEventWait, "d2h": plan.RepairEventWait}},
		{"async_stream", map[string]plan.Repair{"h2d": plan.RepairNone, "d2h": plan.RepairEventWait}},
		{"multistream", map[string]plan.Repair{"h2d": plan.RepairNone, "d2h": plan.RepairNone}}, // pinned host buffers
		{"background", map[string]plan.Repair{"h2d": plan.RepairEventWait, "d2h": plan.RepairEventWait}},
	}
	for _, c := range cases {
		t.Run(c.workload, func(t *testing.T) {
			p := planWorkload(t, c.workload, "--size", "1M", "--iters", "7", "--warmup", "1")
			for _, pair := range p.Pairs {
				for _, cp := range pair.Copies {
					if cp.Repair != c.want[string(cp.Direction)] {
						t.Errorf("%s: %s %s copy at %s: repair %q, want %q", pair.ID, cp.Site.Call, cp.Direction,
							cp.Site.Name(), cp.Repair, c.want[string(cp.Direction)])
					}
				}
			}
		})
	}
}
