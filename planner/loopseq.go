package planner

import "github.com/echo-uma/echo/trace"

// callSeq is each thread's copies and synchronizations in the order it made them, one token
// a call: what loop detection reads. It is the one part of an analysis that grows with the
// trace, 16 bytes a copy or sync call, and 8 more while it looks (launches, the bulk of a framework's calls, are left
// out).
type callSeq struct {
	events  uint64 // events seen so far: the index of the next one
	ids     map[tokenKey]uint32
	sites   []*copyAcc // by token: the linking-copy site it stands for, nil for any other call
	threads map[uint64]*threadSeq
	order   []*threadSeq // in order of first call
	last    *threadSeq   // the thread of the last call, to skip the map on runs of one thread
	linked  *copyAcc     // the linking-copy site the copy being recorded links, set by analysis.link
}

// tokenKey is what makes two calls the same step of a loop: a linking copy by its site over
// every pair it links (call site, size, direction, stream, chunk offset), any other copy or
// sync by its call, return address, size, stream and copy kind.
type tokenKey struct {
	site                  *copyAcc
	typ                   trace.EventType
	caller, bytes, stream uint64
	kind                  uint32
}

type threadSeq struct {
	key    uint64 // pid << 32 | tid
	n      int    // calls
	chunks []*callChunk
}

// callChunk holds chunkCalls of a thread's calls: chunks, not one growing slice, so that a
// long trace's calls are never copied as they accumulate.
type callChunk struct {
	tok [chunkCalls]uint32 // the calls' tokens
	ns  [chunkCalls]uint64 // their entry times
	idx [chunkCalls]uint32 // their indices among the trace's events (saturating at 2^32-1)
}

const chunkCalls = 1 << 10

func (th *threadSeq) tok(i int) uint32 { return th.chunks[i/chunkCalls].tok[i%chunkCalls] }
func (th *threadSeq) ns(i int) uint64  { return th.chunks[i/chunkCalls].ns[i%chunkCalls] }
func (th *threadSeq) idx(i int) uint32 { return th.chunks[i/chunkCalls].idx[i%chunkCalls] }

func newCallSeq() *callSeq {
	return &callSeq{ids: map[tokenKey]uint32{}, threads: map[uint64]*threadSeq{}}
}

// syncCall reports whether t waits for the GPU: a step of a loop as much as a copy.
func syncCall(t trace.EventType) bool {
	switch t {
	case trace.EventCUDAStreamSynchronize, trace.EventCUDADeviceSynchronize, trace.EventCUDAEventSynchronize,
		trace.EventCUStreamSynchronize, trace.EventCUCtxSynchronize:
		return true
	}
	return false
}

// call records a successful copy or sync; a copy's linking site is what analysis.copy left in
// linked.
func (s *callSeq) call(e *trace.Event) {
	k := tokenKey{site: s.linked}
	if s.linked == nil {
		k = tokenKey{typ: e.Type, caller: e.Caller, bytes: e.Bytes, stream: e.Stream, kind: e.Kind}
	}
	s.linked = nil
	id, ok := s.ids[k]
	if !ok {
		id = uint32(len(s.sites))
		s.ids[k] = id
		s.sites = append(s.sites, k.site)
	}
	key := uint64(e.PID)<<32 | uint64(e.TID)
	th := s.last
	if th == nil || th.key != key {
		if th = s.threads[key]; th == nil {
			th = &threadSeq{key: key}
			s.threads[key] = th
			s.order = append(s.order, th)
		}
		s.last = th
	}
	if th.n%chunkCalls == 0 {
		th.chunks = append(th.chunks, new(callChunk))
	}
	c, i := th.chunks[th.n/chunkCalls], th.n%chunkCalls
	c.tok[i], c.ns[i], c.idx[i] = id, e.EnterNS, uint32(min(s.events-1, 1<<32-1))
	th.n++
}

// link records the copy being analysed as one of a pair's, at its copy site and at the site
// over all pairs.
func (a *analysis) link(p *pairAcc, k copyKey, e *trace.Event, waited bool) {
	p.add(k, e, waited)
	a.seq.linked = a.copySites.add(k, e, waited)
}

// recurring is the thread's calls without those whose token it makes only once: a one-off
// upload (a model's parameters, a lazily made buffer) is no step of a loop, and left in it
// would break the repeats of the loop it falls in. pos maps back into the thread's calls.
func (th *threadSeq) recurring(ntok int) (tok []uint32, pos []int32) {
	seen := make([]int32, ntok)
	for i := range th.n {
		seen[th.tok(i)]++
	}
	n := 0
	for _, c := range seen {
		if c > 1 {
			n += int(c)
		}
	}
	tok, pos = make([]uint32, 0, n), make([]int32, 0, n)
	for i := range th.n {
		if t := th.tok(i); seen[t] > 1 {
			tok, pos = append(tok, t), append(pos, int32(i))
		}
	}
	return tok, pos
}
