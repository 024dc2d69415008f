package planner

import (
	"slices"
	"strings"
	"testing"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/trace"
)

// CuPy's loop as a default trace sees it (issue 44): the framework copies each fresh array
// into its own page-locked buffer (cuMemHostAlloc, reused) before an asynchronous driver copy
// to a block of its pool, and the result straight back into a fresh array. The input pair
// as traced (the framework's buffer, a device block) neither a merge nor pinned can serve; it
// is planned staged: its host side is the unknown buffer behind the framework's, for pinned
// alone, which the resolve run is to find (the compact line says so). A program that made
// the same copies from page-locked memory it registered is not: that memory is not CUDA's.
func TestPlanStagedPair(t *testing.T) {
	s := newSynthWith(t, func(h *trace.Header) { h.NoHostAllocs = true })
	const iters = 8
	seg := s.alloc(trace.EventCUMemAlloc, 0x10, 8*mib)
	staging := s.alloc(trace.EventCUMemHostAlloc, 0x20, 2*mib)
	for it := uint64(0); it < iters; it++ {
		s.copy(trace.EventCUMemcpyHtoDAsync, 0x100, seg, staging, 2*mib, trace.KindHostToDevice, 0x77, 20_000)
		s.simple(trace.EventCUStreamSynchronize, 0x108, 0x77, 0)
		out := uint64(0x6000_0000) + (it%2)*16*mib
		s.copy(trace.EventCUMemcpyDtoHAsync, 0x120, out, seg+2*mib, 2*mib, trace.KindDeviceToHost, 0x77, 900_000)
		s.simple(trace.EventCUStreamSynchronize, 0x108, 0x77, 0)
		s.now += 2_000_000
	}
	p := s.plan(DefaultOptions())
	if err := p.Check(); err != nil {
		t.Fatalf("the plan does not validate: %v", err)
	}
	var in *plan.Pair
	for i := range p.Pairs {
		if p.Pairs[i].Direction == "input" {
			in = &p.Pairs[i]
		}
	}
	if in == nil {
		t.Fatalf("no input pair: %+v", p.Pairs)
	}
	if in.Status != plan.StatusCandidate || !in.Pending() || !in.Host.Unresolved || in.Host.Kind != plan.KindPageable ||
		!slices.Equal(in.Strategies, []plan.Strategy{plan.StrategyPinned}) || in.Staging.Via.Call != "cuMemHostAlloc" ||
		in.Staging.Via.Offset != 0x20 || in.MergeRefused == "" {
		t.Fatalf("input pair %+v (staging %+v); want a staged candidate for pinned alone: the buffer behind the "+
			"framework's cuMemHostAlloc at +0x20, unresolved", *in, in.Staging)
	}
	if !strings.Contains(strings.Join(in.Evidence, "\n"), "staged: ") {
		t.Errorf("evidence %q does not say the pair is staged", in.Evidence)
	}
	compact, err := plan.Compact(p, []plan.Pair{*in}, plan.StrategyMapped, plan.ModeResolve)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(compact, "pair "+in.ID+" 2097152 input\nstaged\ncopy ") {
		t.Errorf("resolve lines do not mark the pair staged:\n%s", compact)
	}
	if _, err := plan.Compact(p, []plan.Pair{*in}, plan.StrategyPinned, plan.ModeDeploy); err == nil {
		t.Error("a staged pair whose buffer is not found yet was deployed")
	}

	// Found: the pair is the program's buffer and the device's, and its copy time holds the
	// staging copy's.
	before := in.CopyMSPerIteration
	in.Host = plan.Buffer{Site: plan.Site{Module: exePath, BuildID: "ab12cd", Offset: 0x300, Call: "malloc", Bytes: 2 * mib}, Kind: plan.KindPageable}
	in.StagedBy(plan.Site{Module: exePath, BuildID: "ab12cd", Offset: 0x310, Call: "memmove", Bytes: 2 * mib}, iters, iters, 0.5, p.Loop.MS)
	if got := in.CopyMSPerIteration - before; got < 0.49 || got > 0.51 || in.Staging.PerIteration != 1 || in.Pending() {
		t.Errorf("staging found: copy time %.3f → %.3f ms, per iteration %v; want 0.5 ms more, one a loop",
			before, in.CopyMSPerIteration, in.Staging.PerIteration)
	}
	Recount(p)
	if err := p.Check(); err != nil {
		t.Errorf("the plan with its staging found does not validate: %v", err)
	}

	// The same copies from memory the program registered: that is no framework's staging.
	r := newSynthWith(t, func(h *trace.Header) { h.NoHostAllocs = true })
	seg = r.alloc(trace.EventCUMemAlloc, 0x10, 8*mib)
	reg := uint64(0x5000_0000)
	r.simple(trace.EventCUDAHostRegister, 0x18, reg, 2*mib)
	for it := 0; it < iters; it++ {
		r.copy(trace.EventCUMemcpyHtoDAsync, 0x100, seg, reg, 2*mib, trace.KindHostToDevice, 0x77, 20_000)
		r.simple(trace.EventCUStreamSynchronize, 0x108, 0x77, 0)
		r.now += 2_000_000
	}
	for _, pair := range r.plan(DefaultOptions()).Pairs {
		if pair.Staging != nil {
			t.Errorf("%s: staged through registered memory %+v", pair.ID, pair.Staging)
		}
	}
}
