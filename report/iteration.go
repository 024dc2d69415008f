package report

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/echo-uma/echo/internal/infile"
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/trace"
)

// scanned is what the first pass over the trace finds: the copy statistics of every site and
// where each iteration of the plan's loop begins.
type scanned struct {
	stats  *trace.Stats
	pid    uint32   // the process whose calls at the marker define the loop
	starts []uint64 // entry of each iteration's first call at the marker
}

// openTrace opens a trace and reads its header.
func openTrace(path string) (*trace.Reader, io.Closer, error) {
	f, err := infile.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("opening the trace: %w", err)
	}
	r, err := trace.NewReader(f)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return r, f, nil
}

// each calls fn with every event of the trace at path, its call site resolved against the
// modules mapped so far. A damaged trace is read as far as it is whole: the report then says
// so rather than failing, as export does.
func each(path string, fn func(e *trace.Event, site trace.Site), head func(trace.Header), rec func(trace.Record)) (complete bool, err error) {
	r, c, err := openTrace(path)
	if err != nil {
		return false, err
	}
	defer c.Close()
	if head != nil {
		head(r.Header())
	}
	mods := trace.NewModules(r.Header().Modules)
	for {
		record, err := r.Next()
		if errors.Is(err, io.EOF) {
			return true, nil
		}
		if err != nil {
			return false, nil
		}
		if rec != nil {
			rec(record)
		}
		if record.Module != nil {
			mods.Add(*record.Module)
			continue
		}
		site, _ := mods.Resolve(int(record.Event.PID), record.Event.Caller)
		fn(record.Event, site)
	}
}

// isMarker reports whether a call at site is one at the loop's marker: its module, offset,
// API and size (the ordinal is 0 for every copy site).
func isMarker(m *plan.Site, e *trace.Event, site trace.Site) bool {
	return m != nil && e.Type.String() == m.Call && e.Bytes == m.Bytes &&
		site.Module == m.Module && site.Offset == m.Offset
}

// scan is the first pass: statistics, and the start of every iteration. With marker_every
// n, the shim's rule holds here too: every n-th call at the marker starts an iteration.
func scan(path string, p *plan.Plan) (*scanned, bool, error) {
	s := &scanned{}
	var sum *trace.Summarizer
	calls := 0
	every := max(1, p.Loop.MarkerEvery)
	complete, err := each(path, func(e *trace.Event, site trace.Site) {
		if !isMarker(p.Loop.Marker, e, site) || (len(s.starts) > 0 && e.PID != s.pid) {
			return
		}
		if calls%every == 0 {
			s.pid = e.PID
			s.starts = append(s.starts, e.EnterNS)
		}
		calls++
	}, func(h trace.Header) { sum = trace.NewSummarizer(h, nil) }, func(r trace.Record) { sum.Add(r) })
	if err != nil {
		return nil, false, err
	}
	s.stats = sum.Interval()
	return s, complete, nil
}

// pick chooses the iteration to draw: of the complete ones (a start to the next), the first
// left out when there are others (it runs cold, as the planner leaves it out), the one of
// median length, so the picture shows a typical iteration and not an outlier. It returns
// its index, start and end; ok is false with fewer than two starts.
func (s *scanned) pick() (index int, start, end uint64, ok bool) {
	if len(s.starts) < 2 {
		return 0, 0, 0, false
	}
	first := 0
	if len(s.starts) >= 3 {
		first = 1
	}
	idx := make([]int, 0, len(s.starts)-1)
	for i := first; i+1 < len(s.starts); i++ {
		idx = append(idx, i)
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		da, db := s.starts[a+1]-s.starts[a], s.starts[b+1]-s.starts[b]
		switch {
		case da < db:
			return -1
		case da > db:
			return 1
		}
		return 0
	})
	i := idx[(len(idx)-1)/2]
	return i, s.starts[i], s.starts[i+1], true
}

// drawn reports whether the timeline shows a call: copies, kernels, memsets and the calls
// that order or wait for GPU work. Allocations and frees are left out: they are not part of
// what a merge changes in an iteration.
func drawn(t trace.EventType) (kind string, ok bool) {
	if t.IsCopy() {
		return kindCopy, true
	}
	switch t {
	case trace.EventCUDALaunchKernel, trace.EventCULaunchKernel:
		return kindKernel, true
	case trace.EventCUDAMemset, trace.EventCUDAMemsetAsync:
		return kindMemset, true
	case trace.EventCUDAStreamSynchronize, trace.EventCUDADeviceSynchronize, trace.EventCUDAEventRecord,
		trace.EventCUDAEventSynchronize, trace.EventCUDAStreamWaitEvent,
		trace.EventCUStreamSynchronize, trace.EventCUCtxSynchronize:
		return kindSync, true
	}
	return "", false
}

// collect is the second pass: the drawn calls of process pid that enter in [start, end),
// with their sites resolved.
func collect(path string, pid uint32, start, end uint64) ([]call, error) {
	var calls []call
	_, err := each(path, func(e *trace.Event, site trace.Site) {
		if e.PID != pid || e.EnterNS < start || e.EnterNS >= end {
			return
		}
		if _, ok := drawn(e.Type); ok {
			calls = append(calls, call{Event: *e, Site: site})
		}
	}, nil, nil)
	return calls, err
}

// call is one traced call of the drawn iteration.
type call struct {
	trace.Event
	Site trace.Site
}
