package planner

import (
	"testing"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/trace"
)

// A loader thread frees a device buffer while the loop's thread allocates one, which the
// allocator hands the freed address: calls are recorded as they return, so the loader's free
// (entered first) comes after the loop's allocation in the trace. It freed the buffer before,
// not the loop's, whose pair the loop's copies then still link.
func TestFreeRacingAnAllocation(t *testing.T) {
	s := newSynthWith(t, func(h *trace.Header) { h.NoHostAllocs = true })
	s.tid = pid + 1
	addr := s.alloc(trace.EventCUDAMalloc, 0x20, mib) // the loader's
	at := func(e trace.Event, enter, exit uint64) {
		e.PID, e.Caller = pid, exeBase+e.Caller
		e.EnterNS, e.ExitNS = enter, exit
		if err := s.w.WriteEvent(&e); err != nil {
			t.Fatal(err)
		}
	}
	now := s.now
	// The loader's cudaFree enters, the memory goes back; the loop's cudaMalloc takes it and
	// returns; the loader's cudaFree returns.
	at(trace.Event{Type: trace.EventCUDAMalloc, TID: pid, Caller: 0x30, Addr: addr, Bytes: mib}, now+1000, now+2000)
	at(trace.Event{Type: trace.EventCUDAFree, TID: pid + 1, Caller: 0x28, Addr: addr}, now+500, now+3000)
	s.now = now + 4000
	s.tid = 0
	hIn, hOut := uint64(0x5000_0000), uint64(0x6000_0000)
	dOut := s.alloc(trace.EventCUDAMalloc, 0x40, mib)
	streamLoop(s, 8, hIn, addr, dOut, hOut)
	p := s.plan(DefaultOptions())
	dirs := map[plan.PairDirection]bool{}
	for _, pair := range p.Pairs {
		dirs[pair.Direction] = pair.Status == plan.StatusCandidate
	}
	if !dirs["input"] || !dirs["output"] {
		t.Errorf("pairs %+v, rejected %+v; want the loop's input and output, candidates", p.Pairs, p.Rejected)
	}
}
