package planner

import "github.com/echo-uma/echo/trace"

// copyClock follows, call by call, whether GPU work may be pending, so as to tell a copy
// that only moved data from one that also waited for earlier work; and the rate at which
// the copies that waited for nothing moved data (bandwidth), from which the others'
// transfer is estimated. Analyze and TransferTimer both keep one: one account of what a
// copy call's time was.
type copyClock struct {
	bw       bandwidth
	gpuBusy  bool   // GPU work may be pending: a synchronous copy now also waits for it
	minBytes uint64 // smaller copies say more about call overhead than about the rate
	// unseenLaunches: the trace has no launch events because none were probed, so GPU work
	// may be pending before any synchronous copy without the clock seeing it start. Every
	// such copy is then taken as one that may have waited, until its call site's copies
	// show otherwise: the sites whose typical copy lies on the envelope of all sites' typical
	// copies (the least a copy of its size took anywhere) waited for nothing and count whole; their
	// rate stands in for the others' transfer, as the clean copies' rate does with launches.
	unseenLaunches bool
}

func newCopyClock(minBytes uint64, unseenLaunches bool) copyClock {
	return copyClock{minBytes: minBytes, unseenLaunches: unseenLaunches, bw: bandwidth{minBytes: minBytes}}
}

// unwaitedSite is whether, in a trace without launch events, the copies of e's call site
// are taken to have waited for nothing (see unseenLaunches).
func (c *copyClock) unwaitedSite(pid uint32, caller uint64, dir string) bool {
	return c.unseenLaunches && c.bw.unwaited(callSite{pid, caller, dirIndex(dir)})
}

// event notes a successful call that is not a copy: a launch or memset starts GPU work, a
// device, context, stream or event synchronize waits for it (an under-estimate of what is
// pending where other streams were busy, which only makes fewer copies count as waiting).
func (c *copyClock) event(t trace.EventType) {
	switch t {
	case trace.EventCUDALaunchKernel, trace.EventCULaunchKernel, trace.EventCUDAMemset, trace.EventCUDAMemsetAsync:
		c.gpuBusy = true
	case trace.EventCUDADeviceSynchronize, trace.EventCUCtxSynchronize, trace.EventCUDAStreamSynchronize,
		trace.EventCUStreamSynchronize, trace.EventCUDAEventSynchronize:
		c.gpuBusy = false
	}
}

// copy notes a successful copy in direction dir ("h2d", "d2h", "d2d", "h2h") and reports
// whether its duration includes a wait for earlier GPU work.
func (c *copyClock) copy(e *trace.Event, dir string) (waited bool) {
	async := asyncCopy(e.Type)
	// A synchronous copy that is not device-to-device returns only once earlier GPU work is
	// done: if any may be pending, its duration includes that wait. An asynchronous one to
	// pageable memory waits too, but is timed whole: what it waited for may be the copies
	// issued before it (whose own calls returned at once) as much as kernels, and counting
	// too little copy time would refuse the pinned strategy's real gains as unexplained.
	waited = !async && dir != "d2d" && c.gpuBusy
	c.gpuBusy = async || dir == "d2d"
	pitched := e.Type == trace.EventCUDAMemcpy2D || e.Type == trace.EventCUDAMemcpy2DAsync
	if c.unseenLaunches && !async && (dir == "h2d" || dir == "d2h") {
		if !pitched && e.Bytes > 0 { // small copies too: they bound the fixed cost
			c.bw.sampleSite(e, dir)
		}
		return true
	}
	if !pitched && (dir == "h2d" || dir == "d2h") && e.Bytes > 0 && e.Bytes >= c.minBytes {
		c.bw.sample(e, dir, waited)
	}
	return waited
}

// asyncCopy is whether a copy call may return before its copy is done.
func asyncCopy(t trace.EventType) bool {
	return t == trace.EventCUDAMemcpyAsync || t == trace.EventCUDAMemcpy2DAsync ||
		t >= trace.EventCUMemcpyHtoDAsync && t <= trace.EventCUMemcpyDtoDAsync
}

// transferNS is how long a copy moved data: its whole duration, unless it waited for
// earlier GPU work and a rate is known; then the time its bytes take at that rate, never
// more than the call took.
func (c *copyClock) transferNS(e *trace.Event, dir string, waited bool) uint64 {
	ns := e.Duration()
	if !waited || c.unwaitedSite(e.PID, e.Caller, dir) {
		return ns
	}
	if est, ok := c.bw.nsFor(dir, e.Bytes); ok && est < float64(ns) {
		return uint64(est)
	}
	return ns
}

// TransferTimer is the planner's account of copy time for callers that read events one by
// one (the live view, echoctl stats): how much of each copy call moved data, the rest having
// waited for earlier GPU work. It learns the rate as it goes, so a waited copy before any
// copy that waited for nothing counts whole.
type TransferTimer struct{ clock copyClock }

// NewTransferTimer starts a timer with the planner's default options, for a trace with
// header h (which says whether its launches were traced).
func NewTransferTimer(h trace.Header) *TransferTimer {
	return &TransferTimer{clock: newCopyClock(DefaultOptions().MinBytes, h.NoLaunches)}
}

// Observe takes every event in trace order; for a successful copy in direction dir it
// returns the nanoseconds it spent moving data, for anything else 0.
func (t *TransferTimer) Observe(e *trace.Event, dir string) uint64 {
	if e.Ret != 0 {
		return 0 // a failed call did nothing
	}
	if !e.Type.IsCopy() {
		t.clock.event(e.Type)
		return 0
	}
	waited := t.clock.copy(e, dir)
	return t.clock.transferNS(e, dir, waited)
}
