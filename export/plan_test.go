package export

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/trace"
)

// testPlan is a valid plan for fixture's program: p1, a candidate input pair whose copy site
// is evH2D's, and p2, an output pair refused at evD2H's site.
func testPlan() *plan.Plan {
	site := func(offset uint64, call string) plan.Site {
		return plan.Site{Module: testExe.Path, BuildID: testExe.BuildID, Offset: offset, Call: call, Bytes: mib4}
	}
	const fCopy = 0.3
	return &plan.Plan{
		Version: plan.Version, Created: testStart, Tool: "echoctl test",
		Trace:   plan.Source{Path: "trace.bin", Command: []string{"./stream"}, PID: rootPID, Host: "gpu01", Start: testStart},
		Context: plan.Context{Executable: plan.Module{Path: testExe.Path, BuildID: testExe.BuildID, Size: testExe.Size}},
		Loop:    plan.Loop{Iterations: 2, MS: 1, CopyMS: 0.3},
		Pairs: []plan.Pair{
			{
				ID: "p1", Direction: "input", Bytes: mib4,
				Host:   plan.Buffer{Site: site(0x1200, "malloc"), Kind: "pageable"},
				Device: plan.Buffer{Site: site(0x1100, "cudaMalloc"), Kind: "device"},
				Copies: []plan.Copy{{Site: site(0x1746, "cudaMemcpy"), Direction: "h2d", Stream: "legacy",
					Count: 2, PerIteration: 1, MS: 0.3}},
				BytesPerIteration: mib4, CopyMSPerIteration: 0.3, FCopy: fCopy, PredictedSpeedup: 1 / (1 - fCopy),
				Status:     plan.StatusCandidate,
				Strategies: []plan.Strategy{"managed", "mapped", "system", "pinned"},
				Evidence:   []string{"needs validation: host accesses between the copies are invisible to a trace"},
			},
			{
				ID: "p2", Direction: "output", Bytes: mib4,
				Host:   plan.Buffer{Site: site(0x1200, "malloc"), Kind: "pageable"},
				Device: plan.Buffer{Site: site(0x1100, "cudaMalloc"), Kind: "device"},
				Copies: []plan.Copy{{Site: site(0x2000, "cudaMemcpyAsync"), Direction: "d2h", Stream: "0xabc0",
					Count: 1, MS: 0.1}},
				PredictedSpeedup: 1,
				Status:           plan.StatusRefused,
				Reason:           "copies on a created stream: multi-stream pairs are out of scope",
			},
		},
		FCopy: fCopy, PredictedSpeedup: 1 / (1 - fCopy),
	}
}

func TestPerfettoPlan(t *testing.T) {
	// Through the plan file, as echoctl export --plan reads it.
	path := filepath.Join(t.TempDir(), "app.plan")
	if err := plan.WriteFile(path, testPlan()); err != nil {
		t.Fatalf("WriteFile: %v", err)
	}
	plan, err := plan.ReadFile(path)
	if err != nil {
		t.Fatalf("ReadFile: %v", err)
	}
	doc, sum, events := exportFixture(t, Options{Plan: plan, PlanPath: path})
	checkOneForOne(t, doc, startNS, events)
	if sum.Highlighted != 2 {
		t.Errorf("%d copies highlighted, want 2", sum.Highlighted)
	}

	tests := []struct {
		event            *trace.Event
		name, cname      string
		pair, pairStatus string // "": not marked
	}{
		{evH2D, "cudaMemcpy h2d 4.0 MiB [p1 candidate]", "good", "p1", "candidate"},
		{evD2H, "cudaMemcpyAsync d2h 4.0 MiB [p2 refused]", "bad", "p2", "refused"},
		{evChild, "cuMemcpyHtoD_v2 h2d 1.5 KiB", "", "", ""},
		{ev2D, "cudaMemcpy2D h2d 6.2 KiB", "", "", ""},
		{evMalloc, "malloc", "", "", ""}, // an allocation at a pair's allocation site is no copy
	}
	slices := doc.slices()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s traceEvent
			for i, e := range events {
				if e == tt.event {
					s = slices[i]
				}
			}
			pair, _ := s.Args["pair"].(string)
			status, _ := s.Args["pair_status"].(string)
			if s.Name != tt.name || s.Cname != tt.cname || pair != tt.pair || status != tt.pairStatus {
				t.Errorf("slice %q cname %q pair %q %q, want %q %q %q %q", s.Name, s.Cname, pair, status,
					tt.name, tt.cname, tt.pair, tt.pairStatus)
			}
		})
	}

	if got, _ := doc.meta("process_labels", rootPID, 0); got != "plan: p1 candidate, p2 refused" {
		t.Errorf("process_labels %q", got)
	}
	wantMeta := map[string]string{
		"echo_plan":    path,
		"echo_pair_p1": "candidate input pair, 4.0 MiB, 1 copy site (cudaMemcpy h2d at stream+0x1746), f_copy 30.0%, Amdahl bound 1.43x",
		"echo_pair_p2": "refused output pair, 4.0 MiB, 1 copy site (cudaMemcpyAsync d2h at stream+0x2000), f_copy 0.0%, Amdahl bound 1.00x; refused: copies on a created stream",
	}
	for k, v := range wantMeta {
		if got, _ := doc.Metadata[k].(string); !strings.HasPrefix(got, v) {
			t.Errorf("metadata[%s] = %q, want %q", k, got, v)
		}
	}
	if doc.Metadata["echo_plan_highlighted_copies"] != float64(2) || doc.Metadata["echo_plan_pairs"] != float64(2) {
		t.Errorf("metadata %v", doc.Metadata)
	}
}

func TestPairIndexSharedSite(t *testing.T) {
	plan := testPlan()
	// p2 copies at p1's site too: one function copying for both pairs.
	plan.Pairs[1].Copies[0].Site = plan.Pairs[0].Copies[0].Site
	idx := newPairIndex(plan)
	site, _ := trace.NewModules([]trace.Module{testExe}).Resolve(rootPID, evH2D.Caller)
	tests := []struct {
		name  string
		call  trace.EventType
		bytes uint64
		want  *pairMark
	}{
		{"both pairs", trace.EventCUDAMemcpy, mib4,
			&pairMark{ids: "p1,p2", status: "candidate,refused", label: " [p1 candidate, p2 refused]", cname: "good"}},
		{"another size", trace.EventCUDAMemcpy, mib4 / 2, nil},
		{"another call", trace.EventCUDAMemcpyAsync, mib4, nil},
	}
	for _, tt := range tests {
		got := idx.lookup(site, tt.call, tt.bytes)
		if (got == nil) != (tt.want == nil) || got != nil && *got != *tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}
