package planner

import (
	"math"
	"strings"
	"testing"

	"github.com/echo-uma/echo/plan"
)

// predictPlan is a loop of 10 ms per iteration with one input pair copied once per
// iteration, 4 ms a copy, 100 iterations, served by any strategy.
func predictPlan(cp plan.Copy) *plan.Plan {
	p := &plan.Plan{Loop: plan.Loop{Iterations: 100, MS: 10}, Context: plan.Context{GPU: "NVIDIA H200"}}
	p.Pairs = []plan.Pair{{ID: "p1", Bytes: cp.Site.Bytes, Status: plan.StatusCandidate, Copies: []plan.Copy{cp}, FCopy: cp.MS * cp.PerIteration / 10, CopyMSPerIteration: cp.MS * cp.PerIteration,
		Strategies: []plan.Strategy{plan.StrategyMapped, plan.StrategySystem, plan.StrategyPinned}}}
	return p
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestPredictStrategies(t *testing.T) {
	mib := uint64(100e6) // 2 ms at the link's 50 MB/ms
	clean := plan.Copy{Site: plan.Site{Bytes: mib}, PerIteration: 1, MS: 4}
	waited := plan.Copy{Site: plan.Site{Bytes: mib}, PerIteration: 1, MS: 4, Waited: 1} // 3 ms of it a wait
	m := Machine{LinkBytesPerMS: 50e6, CopyBytesPerMS: 100e6, SetupMSPerBuffer: 50, Pageable: true}
	for _, tc := range []struct {
		name     string
		cp       plan.Copy
		m        Machine
		strategy plan.Strategy
		wantMS   float64
	}{
		// Mapped removes the 4 ms copy, the kernel reads the bytes over the link (2 ms), and
		// the buffer's page-locking (50 ms) spreads over 100 iterations.
		{"mapped discrete", clean, m, plan.StrategyMapped, 10 - 4 + 2 + 0.5},
		// Pinned keeps the copy at DMA speed: 2 ms of the 4 stay.
		{"pinned discrete", clean, m, plan.StrategyPinned, 10 - 2 + 0.5},
		// System memory is not page-locked: no set-up.
		{"system discrete", clean, m, plan.StrategySystem, 10 - 4 + 2},
		// A copy that was also the wait for the kernel removes only its transfer (1 ms at the
		// copy rate), not the 3 ms it waited.
		{"mapped waited", waited, m, plan.StrategyMapped, 10 - 1 + 2 + 0.5},
		// On unified memory the kernel reads in place, and pinned gains nothing.
		{"mapped unified", clean, Machine{Unified: true}, plan.StrategyMapped, 6},
		{"pinned unified", clean, Machine{Unified: true}, plan.StrategyPinned, 10},
		// Where the runtime stages pageable copies through a bounce buffer (the emulator,
		// stage.c), pinned skips that pass: 100 MB at 200 MB/ms is 0.5 ms of the 4 ms copy.
		{"pinned unified staged", clean, Machine{Unified: true, StageBytesPerMS: 200e6}, plan.StrategyPinned, 10 - 0.5},
		// The pass is part of the copy: it never saves more than the copy took.
		{"pinned unified staged slow", clean, Machine{Unified: true, StageBytesPerMS: 1e6}, plan.StrategyPinned, 10 - 4},
		// Mapped removes the whole copy, the staging pass with it: the rate changes nothing.
		{"mapped unified staged", clean, Machine{Unified: true, StageBytesPerMS: 200e6}, plan.StrategyMapped, 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := EstimateFor(Predict(predictPlan(tc.cp), tc.m), tc.strategy)
			if e == nil || !near(e.MS, tc.wantMS) || !near(e.Speedup, 10/tc.wantMS) || e.Pairs != 1 {
				t.Fatalf("estimate %+v, want %v ms, %v×", e, tc.wantMS, 10/tc.wantMS)
			}
		})
	}
}

// The Amdahl bound stays the bound: no estimate exceeds it.
func TestPredictWithinBound(t *testing.T) {
	p := predictPlan(plan.Copy{Site: plan.Site{Bytes: 1 << 20}, PerIteration: 1, MS: 4})
	Recount(p)
	for _, e := range p.Estimates {
		if e.Speedup > p.PredictedSpeedup+1e-9 {
			t.Errorf("%s: %v× above the bound %v×", e.Strategy, e.Speedup, p.PredictedSpeedup)
		}
	}
	if len(p.Estimates) == 0 {
		t.Fatal("no estimates")
	}
}

func TestPredictSkipsRefusedAndNoLoop(t *testing.T) {
	p := predictPlan(plan.Copy{Site: plan.Site{Bytes: 1 << 20}, PerIteration: 1, MS: 4})
	p.Pairs[0].Refuse(plan.StagePlan, "too small")
	if es := Predict(p, Discrete); len(es) != 0 {
		t.Errorf("refused pair predicted: %+v", es)
	}
	p = predictPlan(plan.Copy{Site: plan.Site{Bytes: 1 << 20}, PerIteration: 1, MS: 4})
	p.Loop = plan.Loop{}
	if es := Predict(p, Discrete); len(es) != 0 {
		t.Errorf("no loop, yet predicted: %+v", es)
	}
}

func TestMachineFor(t *testing.T) {
	for gpu, unified := range map[string]bool{"Echo UMA Emulator": true, "Orin (nvgpu)": true,
		"NVIDIA GH200 480GB": true, "NVIDIA H200": false, "": false} {
		m := MachineFor(plan.Context{GPU: gpu})
		if m.Unified != unified {
			t.Errorf("MachineFor(%q).Unified = %v, want %v", gpu, m.Unified, unified)
		}
		// A unified machine prices pinned's skipped staging pass at this host's memcpy rate.
		if unified && m.StageBytesPerMS <= 0 {
			t.Errorf("MachineFor(%q): no staging rate", gpu)
		}
	}
}

// On a machine with no measured copy rate (unified memory), a copy that also waited for GPU
// work removes what the plan's clean copies say its transfer takes, not the wait: the
// emulator's copies have a fixed cost (CUDA_EMU_COPY_DELAY_US) that a rate alone would miss.
func TestPredictWaitedFromCleanCopies(t *testing.T) {
	const mib = 1 << 20
	p := &plan.Plan{Loop: plan.Loop{Iterations: 100, MS: 20}}
	pair := func(id string, cp plan.Copy) plan.Pair {
		return plan.Pair{ID: id, Status: plan.StatusCandidate, Copies: []plan.Copy{cp}, Strategies: []plan.Strategy{plan.StrategyMapped}}
	}
	p.Pairs = []plan.Pair{
		pair("in", plan.Copy{Site: plan.Site{Bytes: 4 * mib}, PerIteration: 1, MS: 3}),
		// 10 ms, of which the transfer of 4 MiB is what the clean 4 MiB copy took: 3 ms.
		pair("out", plan.Copy{Site: plan.Site{Bytes: 4 * mib}, PerIteration: 1, MS: 10, Waited: 1}),
		// 8 MiB, larger than any clean copy: at the clean copy's rate, 6 ms.
		pair("big", plan.Copy{Site: plan.Site{Bytes: 8 * mib}, PerIteration: 0.5, MS: 9, Waited: 1}),
	}
	e := EstimateFor(Predict(p, Machine{Unified: true}), plan.StrategyMapped)
	want := 20 - 3 - 3 - 0.5*6.0
	if e == nil || !near(e.MS, want) {
		t.Fatalf("estimate %+v, want %v ms", e, want)
	}
	// Without clean copies the waited copy's whole time is taken as its transfer, as before.
	p.Pairs = p.Pairs[1:2]
	e = EstimateFor(Predict(p, Machine{Unified: true}), plan.StrategyMapped)
	if e == nil || !near(e.MS, 10) {
		t.Fatalf("estimate %+v, want 10 ms", e)
	}
}

// Asynchronous copies a resolve run timed save what their busiest stream held, not their
// sum: streams run beside one another (the emulator's multistream, two streams of two 2 ms
// copies an iteration, took about 4 ms longer than with instant copies, not 8). The resolve
// run's iteration without its timed copies (Loop.RestMS) is a floor: less any other copy the
// strategy removes, no iteration of it is shorter.
func TestPredictAsyncCriticalPath(t *testing.T) {
	async := func(id, stream string, ms float64) plan.Pair {
		cp := plan.Copy{Site: plan.Site{Bytes: 1 << 20, Call: "cudaMemcpyAsync"}, Stream: stream, PerIteration: 1, MS: ms, Timed: true, Repair: plan.RepairNone}
		return plan.Pair{ID: id, Status: plan.StatusCandidate, Copies: []plan.Copy{cp}, Strategies: []plan.Strategy{plan.StrategySystem}}
	}
	sync := plan.Pair{ID: "s", Status: plan.StatusCandidate, Strategies: []plan.Strategy{plan.StrategySystem},
		Copies: []plan.Copy{{Site: plan.Site{Bytes: 1 << 20, Call: "cudaMemcpy"}, Stream: "legacy", PerIteration: 1, MS: 0.5}}}
	timedSync := sync
	timedSync.Copies = []plan.Copy{sync.Copies[0]}
	timedSync.Copies[0].Timed = true
	for _, tc := range []struct {
		name    string
		pairs   []plan.Pair
		rest    float64
		drain   float64
		wantMS  float64
		overlap float64 // Loop.DrainOverlap
	}{
		// Stream a holds 2+2 ms, stream b 1.5: the iteration loses 4 ms, and the synchronous
		// copy's 0.5 besides.
		{"busiest stream", []plan.Pair{async("a1", "a", 2), async("a2", "a", 2), async("b1", "b", 1.5), sync}, 0, 0, 10 - 4 - 0.5, 0},
		// One stream: its copies run one after another, all of them go.
		{"one stream", []plan.Pair{async("a1", "a", 2), async("a2", "a", 2)}, 0, 0, 10 - 4, 0},
		// The resolve run's rest, 7 ms with the synchronous copy in it, leaves 6.5 ms: more
		// than the 5.5 ms the streams alone would leave.
		{"rest floor", []plan.Pair{async("a1", "a", 2), async("a2", "a", 2), async("b1", "b", 1.5), sync}, 7, 0, 7 - 0.5, 0},
		// A copy the resolve run timed is out of its rest already: the floor does not take it
		// again (7 ms, where the untimed 0.5 ms copy would leave 6.5).
		{"timed copy out of the rest", []plan.Pair{async("a1", "a", 2), async("a2", "a", 2), async("b1", "b", 1.5), timedSync}, 7, 0, 7, 0},
		// A floor under the estimate never raises it.
		{"floor below", []plan.Pair{async("a1", "a", 2), async("a2", "a", 2), async("b1", "b", 1.5), sync}, 1, 0, 10 - 4 - 0.5, 0},
		// A resolve run slowed by load: its rest, 16 ms, is longer than the traced iteration.
		// The synchronous copy held the host in that iteration and overlapped nothing, so the
		// iteration less it (9.5 ms) is the most the floor can be.
		{"rest beyond the iteration", []plan.Pair{sync}, 16, 0, 10 - 0.5, 0},
		// 3 ms of the rest were drains waiting for kernels, which the iteration runs beside
		// its 3.5 ms of host work: the streams' 5.5 ms hold it, not the 6.5 ms of the rest.
		{"drains beside the host", []plan.Pair{async("a1", "a", 2), async("a2", "a", 2), async("b1", "b", 1.5), sync}, 7, 3, 10 - 4 - 0.5, 0},
		// Streams that leave 1.5 ms: the host's own work, 3.5 ms of the rest, holds the
		// iteration (the whole rest, drains and all, would say 6.5).
		{"host work beyond the streams", []plan.Pair{async("a1", "a", 4), async("a2", "a", 4), async("b1", "b", 1.5), sync}, 7, 3, 7 - 3 - 0.5, 0},
		// Drains of 6 ms among two streams: their kernels take 3 ms at the least, more than
		// the streams' 1.5 ms or the host's own 0.5 (the rest less drains and sync copy).
		{"kernels beyond the host", []plan.Pair{async("a1", "a", 4), async("a2", "a", 4), async("b1", "b", 1.5), sync}, 7, 6, 3, 0},
		// The same drains, which the resolve run saw run a chain of 4 ms on one stream (an
		// overlap of 1.5, multistream's fold after the other stream's event): 4 ms, not 3.
		{"kernels in a chain", []plan.Pair{async("a1", "a", 4), async("a2", "a", 4), async("b1", "b", 1.5), sync}, 7, 6, 4, 1.5},
		// An overlap beyond the streams whose copies go shares them among those streams.
		{"overlap beyond the streams", []plan.Pair{async("a1", "a", 4), async("a2", "a", 4), async("b1", "b", 1.5), sync}, 7, 6, 3, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &plan.Plan{Loop: plan.Loop{Iterations: 100, MS: 10, RestMS: tc.rest, DrainMS: tc.drain, DrainOverlap: tc.overlap}, Pairs: tc.pairs}
			e := EstimateFor(Predict(p, Machine{Unified: true, Pageable: true}), plan.StrategySystem)
			if e == nil || !near(e.MS, tc.wantMS) {
				t.Fatalf("estimate %+v, want %v ms", e, tc.wantMS)
			}
		})
	}
}

// A device that runs one stream's kernels at a time (the emulator on 2 CPUs) does not share
// the resolve run's drains among the streams: 6 ms of them bound the iteration, where two
// streams side by side would take 3.
func TestPredictSerialKernels(t *testing.T) {
	async := func(id, stream string) plan.Pair {
		cp := plan.Copy{Site: plan.Site{Bytes: 1 << 20, Call: "cudaMemcpyAsync"}, Stream: stream, PerIteration: 1, MS: 4, Timed: true, Repair: plan.RepairNone}
		return plan.Pair{ID: id, Status: plan.StatusCandidate, Copies: []plan.Copy{cp}, Strategies: []plan.Strategy{plan.StrategySystem}}
	}
	p := &plan.Plan{Loop: plan.Loop{Iterations: 100, MS: 10, RestMS: 7, DrainMS: 6},
		Pairs: []plan.Pair{async("a1", "a"), async("a2", "a"), async("b1", "b")}}
	for _, tc := range []struct {
		serial bool
		wantMS float64
	}{{false, 3}, {true, 6}} {
		e := EstimateFor(Predict(p, Machine{Unified: true, Pageable: true, SerialKernels: tc.serial}), plan.StrategySystem)
		if e == nil || !near(e.MS, tc.wantMS) {
			t.Errorf("serial kernels %v: %+v, want %v ms", tc.serial, e, tc.wantMS)
		}
	}
}

func TestForecastLine(t *testing.T) {
	p := predictPlan(plan.Copy{Site: plan.Site{Bytes: 1 << 20}, PerIteration: 1, MS: 4})
	p.PredictedSpeedup, p.FCopy, p.Context.Strategy = 7.98, 0.8747, plan.StrategyMapped
	p.Estimates = []plan.Estimate{{Strategy: plan.StrategySystem, Speedup: 7.9}, {Strategy: plan.StrategyMapped, Speedup: 6.5}}
	if got, want := ForecastFor(p).Line(), "predicted 6.50× (mapped), Amdahl bound 7.98× (f_copy 87.5%)"; got != want {
		t.Errorf("got %q, want %q (the chosen strategy's estimate)", got, want)
	}
	p.Context.Strategy = ""
	if got := ForecastFor(p).Line(); !strings.HasPrefix(got, "predicted 7.90× (system)") {
		t.Errorf("uncalibrated: %q, want the best estimate", got)
	}
	// Pinned's estimate above the bound (CuPy on the H200: 2.93× against 1.86×) says why.
	p.PredictedSpeedup, p.FCopy, p.Context.Strategy = 1.86, 0.4624, plan.StrategyPinned
	p.Estimates = []plan.Estimate{{Strategy: plan.StrategyPinned, Speedup: 2.93}}
	if got, want := ForecastFor(p).Line(), "predicted 2.93× (pinned), Amdahl bound 1.86× (f_copy 46.2%) (the copies alone; "+
		"the pool also saves the first touch of fresh host buffers)"; got != want {
		t.Errorf("above the bound: %q, want %q", got, want)
	}
	p.Estimates[0].Speedup = 1.8649 // 1.86× as printed: not above
	if got := ForecastFor(p).Line(); strings.Contains(got, "alone") {
		t.Errorf("at the bound as printed: %q", got)
	}
}

// A plan with nothing left to serve predicts nothing, and says why, rather than a copy share
// of 0 % that was never measured; a strategy the device cannot run is named, not predicted.
func TestForecastNone(t *testing.T) {
	p := predictPlan(plan.Copy{Site: plan.Site{Bytes: 1 << 20}, PerIteration: 1, MS: 4})
	p.Context = plan.Context{}
	Recount(p)
	f := ForecastFor(p)
	if f.None != "" || f.Headline == nil || f.Speedup(plan.StrategySystem) != 0 || len(f.Unpredicted) != 1 ||
		!strings.Contains(f.Unpredicted[0], "system: no device known yet") {
		t.Errorf("uncalibrated: %+v; want mapped and pinned predicted, system named as unknown", f)
	}
	p.Pairs[0].Refuse(plan.StageCalibrate, "output differs")
	Recount(p)
	f = ForecastFor(p)
	if f.None != "every pair was refused: nothing is left to serve" || f.Headline != nil || f.Bound != 0 || f.FCopy != 0 ||
		f.Line() != "no prediction: every pair was refused: nothing is left to serve" {
		t.Errorf("refused: %+v, %q", f, f.Line())
	}
}

// system is predicted only where the device reaches pageable memory (calibration records
// whether it does): the H200 does not, and an optimize there printed a system estimate.
func TestPredictSystemNeedsPageableAccess(t *testing.T) {
	p := predictPlan(plan.Copy{Site: plan.Site{Bytes: 1 << 20}, PerIteration: 1, MS: 4})
	for _, c := range []struct {
		context plan.Context
		system  bool
	}{
		{plan.Context{}, false},
		{plan.Context{GPU: "NVIDIA H200"}, false},
		{plan.Context{GPU: "NVIDIA H200", Pageable: true}, true},
		{plan.Context{GPU: "GH200 (emulated)", Pageable: true}, true},
	} {
		p.Context = c.context
		Recount(p)
		if got := EstimateFor(p.Estimates, plan.StrategySystem) != nil; got != c.system {
			t.Errorf("%+v: system predicted %v, want %v", c.context, got, c.system)
		}
		if EstimateFor(p.Estimates, plan.StrategyMapped) == nil || EstimateFor(p.Estimates, plan.StrategyPinned) == nil {
			t.Errorf("%+v: %+v; want mapped and pinned predicted everywhere", c.context, p.Estimates)
		}
	}
}

// Pinned pools a host site's buffers (shim/pinned.c): pairs that are one site's allocations
// in turn (a buffer allocated in every call) page-lock one buffer between them, where mapped
// allocates one per pair.
func TestPredictPinnedSetupPerSite(t *testing.T) {
	p := predictPlan(plan.Copy{Site: plan.Site{Bytes: 100e6}, PerIteration: 0.5, MS: 4})
	second := p.Pairs[0]
	second.ID, second.Host.Site.Ordinal = "p2", 1
	p.Pairs = append(p.Pairs, second)
	m := Machine{LinkBytesPerMS: 50e6, SetupMSPerBuffer: 50}
	es := Predict(p, m)
	// Each pair's copy stays at DMA speed (2 of its 4 ms, half the iterations); one buffer's
	// 50 ms over 100 iterations.
	if e := EstimateFor(es, plan.StrategyPinned); e == nil || !near(e.MS, 10-2+0.5) {
		t.Errorf("pinned: %+v, want %v ms", e, 10-2+0.5)
	}
	// Mapped removes both copies (4 ms), reads over the link (2 ms), and allocates two buffers.
	if e := EstimateFor(es, plan.StrategyMapped); e == nil || !near(e.MS, 10-4+2+1) {
		t.Errorf("mapped: %+v, want %v ms", e, 10-4+2+1)
	}
}

// A host buffer allocated afresh every iteration at a size malloc maps anew, and filled by
// the program before its copy to the device, is first touched by the program every
// iteration; pinned's pool serves one already faulted in, and saves that too. A fresh buffer
// a copy to the host fills is first touched by the copy, whose time already has it. Where
// the resolve run counted every allocation at the site, the pool also saves the first touch
// of the site's buffers no copy fills (CuPy's input array beside its output's). Below the
// size malloc maps anew, the buffers count in the share of iterations the resolve run saw
// them come with fresh pages.
func TestPredictFirstTouch(t *testing.T) {
	const mib = 1 << 20
	m := Machine{LinkBytesPerMS: 50e6, FirstTouchBytesPerMS: 100e6}
	for _, tc := range []struct {
		name        string
		bytes       uint64
		dir         plan.CopyDirection
		allocations int
		site        int     // Host.SiteAllocations over the 100 iterations; 0: not counted
		fresh       int     // Host.FreshAllocations: of those after the site's first, with fresh pages
		touch       float64 // how many of the buffer's first touches pinned saves an iteration
	}{
		{"fresh input", 64 * mib, "h2d", 100, 0, 0, 1},
		{"fresh output", 64 * mib, "d2h", 100, 0, 0, 0},
		{"input allocated once", 64 * mib, "h2d", 1, 0, 0, 0},
		{"fresh input below malloc's mmap threshold", 16 * mib, "h2d", 100, 0, 0, 0},
		{"fresh input, its site counted", 64 * mib, "h2d", 100, 100, 0, 1},
		{"fresh output, its site allocating nothing else", 64 * mib, "d2h", 100, 101, 0, 0},
		{"fresh output beside another fresh buffer of its site", 64 * mib, "d2h", 100, 201, 0, 1},
		{"output allocated once beside fresh buffers of its site", 64 * mib, "d2h", 1, 201, 0, 0},
		// Below the threshold, in the share of the site's allocations after its first that
		// came with fresh pages (malloc trimmed the heap they were freed to).
		{"input with fresh pages below the threshold", 16 * mib, "h2d", 100, 100, 99, 1},
		{"input with fresh pages a third of the time", 16 * mib, "h2d", 100, 100, 33, 1.0 / 3},
		{"input with heap pages below the threshold", 16 * mib, "h2d", 100, 100, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := predictPlan(plan.Copy{Site: plan.Site{Bytes: tc.bytes}, Direction: tc.dir, PerIteration: 1, MS: 4})
			p.Pairs[0].Host.Allocations = tc.allocations
			p.Pairs[0].Host.SiteAllocations = tc.site
			p.Pairs[0].Host.FreshAllocations = tc.fresh
			want := 10 - (4 - float64(tc.bytes)/50e6) - tc.touch*float64(tc.bytes)/100e6
			if e := EstimateFor(Predict(p, m), plan.StrategyPinned); e == nil || !near(e.MS, want) {
				t.Errorf("pinned: %+v, want %v ms", e, want)
			}
		})
	}
}

// Three pairs share one fresh host site, each its d2h copy a third of the iterations (CuPy's
// memory pool rotates the device buffers): the site's one output buffer an iteration is
// filled by the copies, and the other it allocates is the program's to touch, once.
func TestPredictFirstTouchPerPool(t *testing.T) {
	const bytes = 64 << 20
	m := Machine{LinkBytesPerMS: 50e6, FirstTouchBytesPerMS: 100e6}
	p := predictPlan(plan.Copy{Site: plan.Site{Bytes: bytes}, Direction: "d2h", PerIteration: 1.0 / 3, MS: 6})
	p.Pairs[0].Host.Allocations, p.Pairs[0].Host.SiteAllocations = 100, 200
	for _, id := range []string{"p2", "p3"} {
		pair := p.Pairs[0]
		pair.ID = id
		p.Pairs = append(p.Pairs, pair)
	}
	want := 10 - 3*(6-bytes/50e6)/3 - bytes/100e6
	if e := EstimateFor(Predict(p, m), plan.StrategyPinned); e == nil || !near(e.MS, want) {
		t.Errorf("pinned: %+v, want %v ms", e, want)
	}
}

// The first-touch rate is the plan's host's where the plan carries it, whatever host predicts
// again, the faster of its two (a program may fault 2 MiB at a time, or from several
// threads); no more than the iteration's time outside the copies is saved; and a plan that
// needs the rates gets this host's once it is counted.
func TestPredictFirstTouchRates(t *testing.T) {
	const bytes = 64 << 20
	fresh := func() *plan.Plan {
		p := predictPlan(plan.Copy{Site: plan.Site{Bytes: bytes}, Direction: "h2d", PerIteration: 1, MS: 4})
		p.Pairs[0].Host.Allocations = 100
		return p
	}
	dma := 4 - bytes/50e6
	p := fresh()
	p.Context.FirstTouch = &plan.FirstTouch{BytesPerMS: 200e6, HugeBytesPerMS: 800e6}
	if e := EstimateFor(Predict(p, Machine{LinkBytesPerMS: 50e6}), plan.StrategyPinned); e == nil || !near(e.MS, 10-dma-bytes/800e6) {
		t.Errorf("with the plan's rates: %+v, want %v ms", e, 10-dma-bytes/800e6)
	}
	// First touches happen in the program's own code: no more than the iteration's time
	// outside the copies (here 1 ms of 10) is saved, however slowly the host faults.
	p = fresh()
	p.Loop.CopyMS = 9
	if e := EstimateFor(Predict(p, Machine{LinkBytesPerMS: 50e6, FirstTouchBytesPerMS: 1e6}), plan.StrategyPinned); e == nil || !near(e.MS, 10-dma-1) {
		t.Errorf("first touch slower than the rest of the iteration: %+v, want %v ms", e, 10-dma-1)
	}
	// Buffers the resolve run found on 4 KiB pages are priced at that rate.
	p = fresh()
	p.Context.FirstTouch = &plan.FirstTouch{BytesPerMS: 200e6, HugeBytesPerMS: 800e6}
	p.Pairs[0].Host.SmallPages = true
	if e := EstimateFor(Predict(p, Machine{LinkBytesPerMS: 50e6}), plan.StrategyPinned); e == nil || !near(e.MS, 10-dma-bytes/200e6) {
		t.Errorf("on 4 KiB pages: %+v, want %v ms", e, 10-dma-bytes/200e6)
	}
	p = fresh()
	Recount(p)
	if ft := p.Context.FirstTouch; ft == nil || ft.BytesPerMS <= 0 || ft.HugeBytesPerMS <= 0 {
		t.Errorf("counted plan's first-touch rates: %+v; want this host's", ft)
	}
}

// On a discrete GPU a merged pair's kernels move its bytes over the link, which carries both
// directions at once: an input and an output of 100 MB each add 2 ms, not 4. And the kernel
// the output's copy waited for (its call 1 ms longer than its transfer timed alone) is the
// kernel that now reads and writes host memory: its work runs beside that traffic, so only
// the link time beyond it is added. stream on the H200 measured it so (linkMS).
func TestPredictLinkBothWays(t *testing.T) {
	const bytes = 100e6 // 2 ms at the link's 50 MB/ms
	m := Machine{LinkBytesPerMS: 50e6, Pageable: true}
	in := plan.Copy{Site: plan.Site{Bytes: bytes}, Direction: "h2d", PerIteration: 1, MS: 2.5}
	out := plan.Copy{Site: plan.Site{Bytes: bytes, Offset: 1}, Direction: "d2h", PerIteration: 1, MS: 2.5}
	planOf := func(out plan.Copy) *plan.Plan {
		p := predictPlan(in)
		p.Pairs[0].Copies = append(p.Pairs[0].Copies, out)
		return p
	}
	waitedOut := out
	waitedOut.Timed, waitedOut.Waited, waitedOut.CallMS = true, 1, 3.5
	unknown := out
	unknown.Direction = "default"
	for _, tc := range []struct {
		name string
		p    *plan.Plan
		want float64
	}{
		{"in and out: the busier direction", planOf(out), 10 - 5 + 2},
		{"the output's copy waited 1 ms for the kernel", planOf(waitedOut), 10 - 5 + 1},
		{"a direction the trace could not tell: both ways", planOf(unknown), 10 - 5 + 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if e := EstimateFor(Predict(tc.p, m), plan.StrategySystem); e == nil || !near(e.MS, tc.want) {
				t.Errorf("system: %+v, want %v ms", e, tc.want)
			}
		})
	}
}
