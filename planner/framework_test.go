package planner

import (
	"testing"

	"github.com/echo-uma/echo/trace"
)

// A framework's inference loop, traced as by default (no host allocators): at set-up it
// copies its parameters one by one through one call site, small and many, into blocks of a
// device segment; each iteration it copies a fresh host batch into a block of another
// segment and the output block back into a fresh host tensor, at addresses that recur or
// not as the allocator hands them out, some of them where set-up's host memory was. The loop
// is the period of the big copies, not of the parameters', and every loop pair may be
// pinned, none merged.
func TestAnalyzeFrameworkLoop(t *testing.T) {
	s := newSynthWith(t, func(h *trace.Header) { h.NoHostAllocs = true })
	const mib, iters = 1 << 20, 12
	params := s.alloc(trace.EventCUDAMalloc, 0x10, 2*mib)
	hostParams := uint64(0x5000_0000)
	for i := uint64(0); i < 90; i++ { // 30 parameters each of 3 sizes at one site: more sites than the loop's
		size := uint64(256) << (i % 3)
		s.copy(trace.EventCUDAMemcpyAsync, 0x100, params+1024*i, hostParams+4096*i, size, trace.KindHostToDevice, 0, 3_000)
	}
	seg := s.alloc(trace.EventCUDAMalloc, 0x20, 20*mib)
	for it := uint64(0); it < iters; it++ {
		in := hostParams + (it%3)*16*mib // over set-up's host memory, then elsewhere
		out := uint64(0x6000_0000) + (it%2)*16*mib
		s.copy(trace.EventCUDAMemcpyAsync, 0x100, seg+4*mib, in, 3*mib, trace.KindHostToDevice, 0, 300_000)
		s.simple(trace.EventCUDAStreamSynchronize, 0x108, 0, 0)
		s.launch(0x110, 0)
		s.copy(trace.EventCUDAMemcpyAsync, 0x120, out, seg+8*mib, 8*mib, trace.KindDeviceToHost, 0, 900_000)
		s.simple(trace.EventCUDAStreamSynchronize, 0x108, 0, 0)
	}
	p := s.plan(DefaultOptions())
	if err := p.Check(); err != nil {
		t.Fatalf("the plan does not validate: %v", err)
	}
	if p.Loop.Iterations != iters || p.Loop.Marker == nil || p.Loop.Marker.Bytes != 3*mib {
		t.Fatalf("loop %+v; want %d iterations marked by the 3 MiB input copy", p.Loop, iters)
	}
	loopPairs := 0
	for _, pair := range p.Pairs {
		if pair.Bytes < mib {
			continue
		}
		loopPairs++
		status, why := statusOf(pair)
		if status != pinnedOnly || !pair.Host.Unresolved || !pair.Device.Block {
			t.Errorf("%s (%d bytes): %s %q, host unresolved %v, device block %v; want pinned only, the host known "+
				"by its copies, the device a block", pair.ID, pair.Bytes, status, why, pair.Host.Unresolved, pair.Device.Block)
		}
	}
	if loopPairs != 5 { // 3 input addresses, 2 output addresses
		t.Errorf("%d loop pairs, want 5: %+v", loopPairs, p.Pairs)
	}
}
