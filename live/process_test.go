package live

import (
	"testing"
	"time"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/trace"
)

// attachedStream is what an attach records of the stream loop: no allocations, each
// iteration an H2D copy, a launch and a D2H copy of 4 MiB from fixed call sites.
func attachedStream(iters int) (*trace.Header, []trace.Event) {
	const exe, pid, size = 0x400000, 77, 4 << 20
	const hIn, hOut, dIn, dOut = 0x7f0000000000, 0x7f0001000000, 0x7e0000000000, 0x7e0001000000
	h := &trace.Header{Command: []string{"/opt/app"}, PID: pid, Attached: true, Start: time.Unix(1700000000, 0),
		Modules: []trace.Module{{Path: "/opt/app", BuildID: "ab12", Start: exe, End: exe + 0x10000, Base: exe, Size: 0x10000, PID: pid}}}
	var events []trace.Event
	now := uint64(1_000_000)
	add := func(e trace.Event, dur uint64) {
		e.PID, e.TID, e.EnterNS, e.ExitNS = pid, pid, now, now+dur
		events = append(events, e)
		now += dur + 1000
	}
	for i := 0; i < iters; i++ {
		add(trace.Event{Type: trace.EventCUDAMemcpy, Caller: exe + 0x100, Addr: dIn, Src: hIn, Bytes: size, Kind: 1}, 400_000)
		add(trace.Event{Type: trace.EventCUDALaunchKernel, Caller: exe + 0x110, Addr: exe + 0x2000}, 3000)
		add(trace.Event{Type: trace.EventCUDAMemcpy, Caller: exe + 0x120, Addr: hOut, Src: dOut, Bytes: size, Kind: 2}, 500_000)
		now += 100_000
	}
	return h, events
}

// The live planner finds both pairs of an attached stream loop from its events alone.
func TestRunPlanner(t *testing.T) {
	h, events := attachedStream(50)
	res := runPlanner(h, events)
	if len(res.pairs) != 2 || res.speedup <= 1 {
		t.Fatalf("plan %+v: want the two pairs and a speed-up", res)
	}
	for _, p := range res.pairs {
		if p.Bytes != 4<<20 || p.Status != "candidate" {
			t.Errorf("pair %+v: want a 4 MiB candidate", p)
		}
	}
}

// One replan over the default window of 100 000 events, as each interval of the view makes
// per process (go test -bench RunPlanner ./live/).
func BenchmarkRunPlanner(b *testing.B) {
	h, events := attachedStream(100000 / 3)
	b.ReportAllocs()
	for b.Loop() {
		if res := runPlanner(h, events); len(res.pairs) != 2 {
			b.Fatalf("plan %+v: want two pairs", res)
		}
	}
	b.ReportMetric(float64(len(events))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// attach shows the plan's forecast, as every other output does (planner.ForecastFor).
func TestLiveSpeedupIsTheEstimate(t *testing.T) {
	p := &plan.Plan{PredictedSpeedup: 15, Loop: plan.Loop{Iterations: 10, MS: 1},
		Pairs:     []plan.Pair{{ID: "p1", Status: plan.StatusCandidate}},
		Estimates: []plan.Estimate{{Strategy: "pinned", Speedup: 1.2}, {Strategy: "mapped", Speedup: 1.1}}}
	if got := liveSpeedup(p); got != 1.2 {
		t.Errorf("live speed-up %v, want the best estimate 1.2, not the bound 15", got)
	}
	if got := liveSpeedup(&plan.Plan{PredictedSpeedup: 3}); got != 1 {
		t.Errorf("no estimate: %v, want 1", got)
	}
}
