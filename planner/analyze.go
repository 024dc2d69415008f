package planner

import (
	"errors"
	"fmt"
	"io"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/trace"
)

// analysis is the state of one pass over a trace. It grows with buffers, pairs and call
// sites, and with the copies and syncs (16 bytes each, for loop detection), not with the
// other events.
type analysis struct {
	opts      Options
	header    trace.Header
	sites     *sites
	bufs      *buffers
	pairs     map[pairKey]*pairAcc
	order     []*pairAcc
	copySites copySites
	rejected  map[rejectKey]*plan.Rejection
	clock     copyClock
	pids      map[uint32]bool
	failures  failures
	seq       *callSeq // the one part that grows with the events: loop.go reads it
}

// Records is what Analyze reads: a trace's header, its records in order (io.EOF after the
// last) and its footer. A *trace.Reader is one; so is a process's recent events in memory.
type Records interface {
	Header() trace.Header
	Next() (trace.Record, error)
	Footer() (trace.Footer, bool)
}

// Analyze reads a trace and returns the plan for it. A damaged trace is an error: a plan
// must not rest on calls that were cut off. path names the trace in errors and in the plan.
func Analyze(r Records, path string, opts Options, tool string) (*plan.Plan, error) {
	a := &analysis{
		opts: opts, header: r.Header(), sites: newSites(r.Header()), bufs: newBuffers(),
		pairs: map[pairKey]*pairAcc{}, copySites: copySites{}, rejected: map[rejectKey]*plan.Rejection{},
		pids: map[uint32]bool{}, failures: newFailures(), clock: newCopyClock(opts.MinBytes, r.Header().NoLaunches),
		seq: newCallSeq(),
	}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		if rec.Module != nil {
			a.sites.modules.Add(*rec.Module)
			continue
		}
		a.event(rec.Event)
	}
	footer, _ := r.Footer()
	return a.plan(path, footer, tool), nil
}

func (a *analysis) event(e *trace.Event) {
	a.seq.events++
	if e.Type.IsCUDA() {
		a.failures.count(e)
	}
	if e.Failed() && e.Type.IsCopy() {
		a.failedCopy(e)
	}
	if e.Ret != 0 && e.Type != trace.EventPosixMemalign {
		return // a failed call did nothing
	}
	a.pids[e.PID] = true
	switch t := e.Type; {
	case t.IsHostAlloc() || t.IsDeviceAlloc():
		a.alloc(e)
	case t.IsFree():
		a.bufs.free(e.PID, e.Addr, e.EnterNS)
	case t.IsCopy():
		a.copy(e)
		a.seq.call(e)
	case syncCall(t):
		a.seq.call(e)
	case t == trace.EventCUDAMemset || t == trace.EventCUDAMemsetAsync:
		a.memset(e)
	}
	if !e.Type.IsCopy() {
		a.clock.event(e.Type)
	}
}

func (a *analysis) alloc(e *trace.Event) {
	if e.Type == trace.EventPosixMemalign && e.Ret != 0 {
		return
	}
	if e.Type == trace.EventRealloc && e.Src != 0 {
		a.bufs.free(e.PID, e.Src, e.EnterNS)
	}
	if e.Addr == 0 || e.Bytes == 0 {
		return
	}
	a.bufs.add(&buffer{pid: e.PID, start: e.Addr, size: e.Bytes, kind: KindOf(e.Type.String()), call: e.Type,
		site: a.sites.of(e, e.Bytes, true), allocNS: e.ExitNS})
}

// KindOf is the kind of memory an allocating call hands out: pageable, pinned,
// registered, managed or device, the call named as a Site names it (trace's event names, as
// the shim's report names them too). The one rule for a buffer's kind: the planner's for
// the buffers the trace saw, validate's for the sides it resolves.
func KindOf(call string) plan.MemKind {
	switch call {
	case trace.EventCUDAMalloc.String(), trace.EventCUMemAlloc.String():
		return plan.KindDevice
	case trace.EventCUDAMallocManaged.String(), trace.EventCUMemAllocManaged.String():
		return plan.KindManaged
	case trace.EventCUDAMallocHost.String(), trace.EventCUDAHostAlloc.String(), trace.EventCUMemAllocHost.String(),
		trace.EventCUMemHostAlloc.String():
		return plan.KindPinned
	case trace.EventCUDAHostRegister.String():
		return plan.KindRegistered
	}
	return plan.KindPageable
}

// memset marks the device buffer it writes: as written, the host side of a pair never sees
// that write.
func (a *analysis) memset(e *trace.Event) {
	if b := a.bufs.find(e.PID, e.Addr); b != nil {
		b.lastUseNS = e.ExitNS
		if b.deviceSide() && b.deviceMemset == "" {
			b.deviceMemset = e.Type.String()
		}
	}
}
