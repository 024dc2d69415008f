package planner

import (
	"math"
	"strings"
	"testing"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/trace"
)

type wantPair struct {
	direction string
	status    plan.Status
	reason    string // substring of the refusal, or of why a pinned-only pair cannot merge; "" for a candidate
}

// pinnedOnly stands for a candidate that pinned alone may serve.
const pinnedOnly plan.Status = "candidate for pinned only"

// statusOf is a pair's status as wantPair says it, and the reason that goes with it.
func statusOf(p plan.Pair) (plan.Status, string) {
	if p.Status == plan.StatusCandidate && len(p.Strategies) == 1 && p.Strategies[0] == plan.StrategyPinned {
		return pinnedOnly, p.MergeRefused
	}
	return p.Status, p.Reason
}

func TestAnalyzeRules(t *testing.T) {
	cases := []struct {
		name     string
		attached bool
		opts     func(*Options)
		program  func(s *synth)
		pairs    []wantPair
		rejected string // substring of some rejection's reason
		note     string // substring of some note
		// chained: every pair's host side is left to validate to name by its call chain
		// (several threads allocate at its site), its merges kept
		chained bool
	}{
		{name: "stream loop: one input and one output pair", program: func(s *synth) {
			hIn, dIn, dOut, hOut := streamBuffers(s)
			streamLoop(s, 10, hIn, dIn, dOut, hOut)
		}, pairs: []wantPair{{"input", plan.StatusCandidate, ""}, {"output", plan.StatusCandidate, ""}}},

		{name: "cudaMemcpyDefault resolved through the allocations", program: func(s *synth) {
			h, hOut := s.alloc(trace.EventCUDAMallocHost, 0x10, mib), s.alloc(trace.EventMalloc, 0x18, mib)
			d, dOut := s.alloc(trace.EventCUDAMalloc, 0x20, mib), s.alloc(trace.EventCUDAMalloc, 0x28, mib)
			for i := 0; i < 6; i++ {
				s.memcpy(0x100, d, h, mib, trace.KindDefault, 100_000)
				s.memcpy(0x108, hOut, dOut, mib, trace.KindDefault, 100_000)
			}
		}, pairs: []wantPair{{"input", plan.StatusCandidate, ""}, {"output", plan.StatusCandidate, ""}}},

		// An out-of-bounds program on the H200: 79 of 80 copies failed, which planned as "too
		// rare" without a word of the errors.
		{name: "copies that fail", program: func(s *synth) {
			h, d := s.alloc(trace.EventMalloc, 0x10, mib), s.alloc(trace.EventCUDAMalloc, 0x20, mib)
			s.memcpy(0x100, d, h, mib, trace.KindHostToDevice, 100_000)
			for i := 0; i < 79; i++ {
				s.call(trace.Event{Type: trace.EventCUDAMemcpy, Caller: exeBase + 0x100, Addr: d, Src: h, Bytes: 2 * mib,
					Kind: trace.KindHostToDevice, Ret: 1}, 5_000)
				s.launch(0x110, 0)
			}
		}, pairs: []wantPair{{"input", plan.StatusRefused, "copies failed: 79 copies returned an error on these buffers (cudaMemcpy at prog+0x100: cudaErrorInvalidValue)"}},
			rejected: "the copy failed (cudaErrorInvalidValue)", note: "79 CUDA calls failed: cudaMemcpy 79 of 80 (cudaErrorInvalidValue)"},

		{name: "one failed copy in a good loop", program: func(s *synth) {
			hIn, dIn, dOut, hOut := streamBuffers(s)
			streamLoop(s, 10, hIn, dIn, dOut, hOut)
			s.call(trace.Event{Type: trace.EventCUDAMemcpy, Caller: exeBase + 0x120, Addr: hOut, Src: dOut, Bytes: mib,
				Kind: trace.KindDeviceToHost, Ret: 700}, 5_000)
		}, pairs: []wantPair{{"input", plan.StatusCandidate, ""}, {"output", plan.StatusRefused, "copies failed: 1 copy returned an error"}},
			note: "cudaMemcpy 1 of 21 (cudaErrorIllegalAddress)"},

		{name: "a copy into the middle of a buffer", program: func(s *synth) {
			h, d := s.alloc(trace.EventMalloc, 0x10, mib), s.alloc(trace.EventCUDAMalloc, 0x20, mib)
			for i := 0; i < 6; i++ {
				s.memcpy(0x100, d, h, mib, trace.KindHostToDevice, 100_000)
				s.memcpy(0x108, d+4096, h+4096, 4096, trace.KindHostToDevice, 10_000)
			}
		}, pairs: []wantPair{{"input", pinnedOnly, "partial copy"}}, rejected: "partial copy"},

		{name: "buffers of different sizes", program: func(s *synth) {
			h, d := s.alloc(trace.EventMalloc, 0x10, mib), s.alloc(trace.EventCUDAMalloc, 0x20, 2*mib)
			for i := 0; i < 6; i++ {
				s.memcpy(0x100, d, h, mib, trace.KindHostToDevice, 100_000)
			}
		}, pairs: []wantPair{{"input", pinnedOnly, "the device side is a block inside a 2.0 MiB allocation"}}},

		// An output's device buffer zeroed before the kernel adds into it: merged, the host
		// buffer holds the zeros until the copy, which validation keeps the host out of.
		{name: "output's device buffer also set with cudaMemset", program: func(s *synth) {
			h, d := s.alloc(trace.EventMalloc, 0x10, mib), s.alloc(trace.EventCUDAMalloc, 0x20, mib)
			for i := 0; i < 6; i++ {
				s.simple(trace.EventCUDAMemset, 0x30, d, mib)
				s.memcpy(0x100, h, d, mib, trace.KindDeviceToHost, 100_000)
			}
		}, pairs: []wantPair{{"output", plan.StatusCandidate, ""}}},

		// An input's: merged, the memset would overwrite what the host wrote.
		{name: "input's device buffer also set with cudaMemset", program: func(s *synth) {
			h, d := s.alloc(trace.EventMalloc, 0x10, mib), s.alloc(trace.EventCUDAMalloc, 0x20, mib)
			for i := 0; i < 6; i++ {
				s.memcpy(0x100, d, h, mib, trace.KindHostToDevice, 100_000)
				s.simple(trace.EventCUDAMemsetAsync, 0x30, d, mib)
			}
		}, pairs: []wantPair{{"input", pinnedOnly, "the host's input would be overwritten"}}},

		{name: "device buffer also written by a device-to-device copy", program: func(s *synth) {
			h, d, other := s.alloc(trace.EventMalloc, 0x10, mib), s.alloc(trace.EventCUDAMalloc, 0x20, mib), s.alloc(trace.EventCUDAMalloc, 0x28, mib)
			for i := 0; i < 6; i++ {
				s.memcpy(0x100, d, other, mib, trace.KindDeviceToDevice, 50_000)
				s.memcpy(0x108, h, d, mib, trace.KindDeviceToHost, 100_000)
			}
		}, pairs: []wantPair{{"output", pinnedOnly, "device-to-device copy"}}},

		{name: "also copied with cudaMemcpy2D", program: func(s *synth) {
			h, d := s.alloc(trace.EventMalloc, 0x10, mib), s.alloc(trace.EventCUDAMalloc, 0x20, mib)
			s.copy(trace.EventCUDAMemcpy2D, 0x30, d, h, 4096, trace.KindHostToDevice, 0, 10_000)
			for i := 0; i < 6; i++ {
				s.memcpy(0x100, d, h, mib, trace.KindHostToDevice, 100_000)
			}
		}, pairs: []wantPair{{"input", plan.StatusRefused, "cudaMemcpy2D"}}, rejected: "2D copy"},

		// validation follows each copy in stream time, whichever stream it is on
		{name: "one pair copied on two streams", program: func(s *synth) {
			h, d := s.alloc(trace.EventCUDAHostAlloc, 0x10, mib), s.alloc(trace.EventCUDAMalloc, 0x20, mib)
			for i := 0; i < 6; i++ {
				s.copy(trace.EventCUDAMemcpyAsync, 0x100, d, h, mib, trace.KindHostToDevice, 0x5000, 20_000)
				s.copy(trace.EventCUDAMemcpyAsync, 0x108, d, h, mib, trace.KindHostToDevice, 0x6000, 20_000)
			}
		}, pairs: []wantPair{{"input", plan.StatusCandidate, ""}}},

		// simpleStreams: one buffer copied in four chunks, each on its own stream, that cover it
		{name: "chunks over four streams", program: func(s *synth) {
			h, d := s.alloc(trace.EventCUDAHostAlloc, 0x10, 4*mib), s.alloc(trace.EventCUDAMalloc, 0x20, 4*mib)
			for i := 0; i < 6; i++ {
				for k := uint64(0); k < 4; k++ {
					s.copy(trace.EventCUDAMemcpyAsync, 0x100, d+k*mib, h+k*mib, mib, trace.KindHostToDevice, 0x5000+k, 20_000)
				}
			}
		}, pairs: []wantPair{{"input", plan.StatusCandidate, ""}}},

		// three chunks of four: the pieces do not link the pair, its whole copies still do
		{name: "chunks that leave a gap", program: func(s *synth) {
			h, d := s.alloc(trace.EventMalloc, 0x10, 4*mib), s.alloc(trace.EventCUDAMalloc, 0x20, 4*mib)
			for i := 0; i < 6; i++ {
				s.memcpy(0x108, d, h, 4*mib, trace.KindHostToDevice, 100_000)
				for k := uint64(0); k < 3; k++ {
					s.copy(trace.EventCUDAMemcpyAsync, 0x100, d+k*mib, h+k*mib, mib, trace.KindHostToDevice, 0x5000+k, 20_000)
				}
			}
		}, pairs: []wantPair{{"input", pinnedOnly, "partial copy: h2d chunks (3 pieces) cover 3145728 of 4194304 bytes"}},
			rejected: "partial copy"},

		{name: "async copies ordered by events", program: func(s *synth) {
			h, d := s.alloc(trace.EventCUDAHostAlloc, 0x10, mib), s.alloc(trace.EventCUDAMalloc, 0x20, mib)
			for i := 0; i < 6; i++ {
				s.copy(trace.EventCUDAMemcpyAsync, 0x100, d, h, mib, trace.KindHostToDevice, 0x5000, 20_000)
				s.simple(trace.EventCUDAEventRecord, 0x110, 0x9000, 0)
				s.simple(trace.EventCUDAStreamSynchronize, 0x118, 0x5000, 0)
			}
		}, pairs: []wantPair{{"input", plan.StatusCandidate, ""}}},

		{name: "host staging buffer freed each iteration (S4)", program: func(s *synth) {
			d := s.alloc(trace.EventCUDAMalloc, 0x20, mib)
			for i := 0; i < 6; i++ {
				h := s.alloc(trace.EventMalloc, 0x10, mib)
				s.memcpy(0x100, d, h, mib, trace.KindHostToDevice, 100_000)
				s.free(trace.EventFree, 0x18, h)
			}
		}, pairs: []wantPair{{"input", pinnedOnly, "lifetime"}, {"input", pinnedOnly, "lifetime"},
			{"input", pinnedOnly, "lifetime"}, {"input", pinnedOnly, "lifetime"}, {"input", pinnedOnly, "lifetime"},
			{"input", pinnedOnly, "linked to 6 host buffers"}}},

		{name: "device buffer linked to two host buffers (in-place input)", program: func(s *synth) {
			hIn, hOut := s.alloc(trace.EventMalloc, 0x10, mib), s.alloc(trace.EventMalloc, 0x18, mib)
			d := s.alloc(trace.EventCUDAMalloc, 0x20, mib)
			for i := 0; i < 6; i++ {
				s.memcpy(0x100, d, hIn, mib, trace.KindHostToDevice, 100_000)
				s.launch(0x110, 0)
				s.memcpy(0x120, hOut, d, mib, trace.KindDeviceToHost, 300_000)
			}
		}, pairs: []wantPair{{"input", pinnedOnly, "linked to 2 host buffers"}, {"output", pinnedOnly, "linked to 2 host buffers"}}},

		{name: "too few iterations", opts: func(o *Options) { o.MinIterations = 5 }, program: func(s *synth) {
			hIn, dIn, dOut, hOut := streamBuffers(s)
			streamLoop(s, 3, hIn, dIn, dOut, hOut)
		}, pairs: []wantPair{{"input", plan.StatusRefused, "fewer than --min-iterations 5"}, {"output", plan.StatusRefused, "fewer than --min-iterations 5"}}},

		{name: "a copy outside the loop", program: func(s *synth) {
			hIn, dIn, dOut, hOut := streamBuffers(s)
			hW, dW := s.alloc(trace.EventMalloc, 0x40, mib), s.alloc(trace.EventCUDAMalloc, 0x48, mib)
			s.memcpy(0x50, dW, hW, mib, trace.KindHostToDevice, 100_000)
			streamLoop(s, 8, hIn, dIn, dOut, hOut)
		}, pairs: []wantPair{{"input", plan.StatusRefused, "too rare: cudaMemcpy at prog+0x50 ran once"}, {"input", plan.StatusCandidate, ""}, {"output", plan.StatusCandidate, ""}}},

		{name: "a site copied an odd number of times", program: func(s *synth) {
			hIn, dIn, dOut, hOut := streamBuffers(s)
			streamLoop(s, 8, hIn, dIn, dOut, hOut)
			for i := 0; i < 11; i++ {
				s.memcpy(0x200, hOut, dOut, mib, trace.KindDeviceToHost, 100_000)
			}
		}, pairs: []wantPair{{"input", plan.StatusCandidate, ""}, {"output", pinnedOnly, "unstable"}}},

		{name: "copies too small to pay", program: func(s *synth) {
			h, d := s.alloc(trace.EventMalloc, 0x10, 4096), s.alloc(trace.EventCUDAMalloc, 0x20, 4096)
			for i := 0; i < 6; i++ {
				s.memcpy(0x100, d, h, 4096, trace.KindHostToDevice, 5_000)
			}
		}, pairs: []wantPair{{"input", plan.StatusRefused, "too small to pay: 4.0 KiB"}}},

		{name: "host side never allocated in the trace", program: func(s *synth) {
			d := s.alloc(trace.EventCUDAMalloc, 0x20, mib)
			for i := 0; i < 6; i++ {
				s.memcpy(0x100, d, 0x7ffd0000, mib, trace.KindHostToDevice, 100_000)
			}
		}, rejected: "no allocation the trace saw"},

		{name: "driver API: pinned serves it, no merge", program: func(s *synth) {
			h, d := s.alloc(trace.EventMalloc, 0x10, mib), s.alloc(trace.EventCUMemAlloc, 0x20, mib)
			for i := 0; i < 6; i++ {
				s.copy(trace.EventCUMemcpyHtoD, 0x100, d, h, mib, trace.KindHostToDevice, 0, 100_000)
			}
		}, pairs: []wantPair{{"input", pinnedOnly, "allocated with the driver API (cuMemAlloc_v2)"}}},

		{name: "device side is managed memory", program: func(s *synth) {
			h, d := s.alloc(trace.EventMalloc, 0x10, mib), s.alloc(trace.EventCUDAMallocManaged, 0x20, mib)
			for i := 0; i < 6; i++ {
				s.memcpy(0x100, d, h, mib, trace.KindHostToDevice, 100_000)
			}
		}, pairs: []wantPair{{"input", pinnedOnly, "already managed"}}},

		{name: "failed calls are ignored", program: func(s *synth) {
			h, d := s.alloc(trace.EventMalloc, 0x10, mib), s.alloc(trace.EventCUDAMalloc, 0x20, mib)
			s.call(trace.Event{Type: trace.EventCUDAMemset, Caller: exeBase + 0x30, Addr: d, Bytes: mib, Ret: 1}, 1000)
			for i := 0; i < 6; i++ {
				s.memcpy(0x100, d, h, mib, trace.KindHostToDevice, 100_000)
			}
		}, pairs: []wantPair{{"input", plan.StatusCandidate, ""}}},

		{name: "attached trace: pairs from pointers alone", attached: true, program: func(s *synth) {
			streamLoop(s, 8, 0x10000000, 0x7f0000000000, 0x7f0000200000, 0x10200000)
		}, pairs: []wantPair{{"input", plan.StatusCandidate, ""}, {"output", plan.StatusCandidate, ""}}, note: "attached trace"},

		{name: "attached trace: the attach cut the first iteration short", attached: true, program: func(s *synth) {
			s.memcpy(0x120, 0x10200000, 0x7f0000200000, mib, trace.KindDeviceToHost, 600_000)
			streamLoop(s, 8, 0x10000000, 0x7f0000000000, 0x7f0000200000, 0x10200000)
		}, pairs: []wantPair{{"output", plan.StatusCandidate, ""}, {"input", plan.StatusCandidate, ""}}},

		{name: "launched trace: a copy missing from one iteration is too rare", program: func(s *synth) {
			hIn, dIn, dOut, hOut := streamBuffers(s)
			streamLoop(s, 8, hIn, dIn, dOut, hOut)
			s.memcpy(0x100, dIn, hIn, mib, trace.KindHostToDevice, 100_000)
		}, pairs: []wantPair{{"input", plan.StatusCandidate, ""}, {"output", plan.StatusRefused, "too rare"}}},

		{name: "host buffers allocated at one site by several threads", program: func(s *synth) {
			var hs, ds [2]uint64
			for i := range 2 {
				s.tid = uint32(pid + 1 + i)
				hs[i], ds[i] = s.alloc(trace.EventMalloc, 0x10, mib), s.alloc(trace.EventCUDAMalloc, 0x20+uint64(i)*8, mib)
			}
			for it := 0; it < 6; it++ {
				for i := range 2 {
					s.tid = uint32(pid + 1 + i)
					s.memcpy(0x100+uint64(i)*8, ds[i], hs[i], mib, trace.KindHostToDevice, 100_000)
				}
			}
		}, pairs: []wantPair{{"input", plan.StatusCandidate, ""}, {"input", plan.StatusCandidate, ""}}, chained: true},

		{name: "a zero-byte copy in an attached trace", attached: true, program: func(s *synth) {
			for i := 0; i < 6; i++ {
				s.memcpy(0x100, 0x7f0000000000, 0x10000000, 0, trace.KindHostToDevice, 1_000)
			}
		}, rejected: "zero bytes"},

		{name: "lost events are reported", program: func(s *synth) {
			hIn, dIn, dOut, hOut := streamBuffers(s)
			streamLoop(s, 8, hIn, dIn, dOut, hOut)
			s.lost = 12
		}, pairs: []wantPair{{"input", plan.StatusCandidate, ""}, {"output", plan.StatusCandidate, ""}}, note: "lost 12 events"},

		{name: "no copies at all", program: func(s *synth) {
			s.alloc(trace.EventCUDAMalloc, 0x20, mib)
		}, note: "nothing to merge"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSynth(t, c.attached)
			c.program(s)
			opts := DefaultOptions()
			if c.opts != nil {
				c.opts(&opts)
			}
			p := s.plan(opts)
			if err := p.Check(); err != nil {
				t.Errorf("the plan does not validate: %v", err)
			}
			if len(p.Pairs) != len(c.pairs) {
				t.Fatalf("%d pairs, want %d: %+v", len(p.Pairs), len(c.pairs), p.Pairs)
			}
			for i, w := range c.pairs {
				got := p.Pairs[i]
				status, reason := statusOf(got)
				if (w.direction != "" && string(got.Direction) != w.direction) || status != w.status || !strings.Contains(reason, w.reason) ||
					(w.reason == "") != (reason == "") {
					t.Errorf("pair %s: %s %s %q; want %s %s %q", got.ID, got.Direction, status, reason, w.direction, w.status, w.reason)
				}
				if got.Status == plan.StatusCandidate && (got.Reason != "" || len(got.Evidence) == 0) {
					t.Errorf("candidate %s: reason %q, evidence %v; want no reason and the evidence it rests on", got.ID, got.Reason, got.Evidence)
				}
				if c.chained && (!got.Host.Unresolved || !got.Merges() || !anyContains(got.Evidence, "names the host buffer by its call chain")) {
					t.Errorf("pair %s: host unresolved %v, strategies %v, evidence %v; want its host side left to validate "+
						"to name by its call chain, the merges kept", got.ID, got.Host.Unresolved, got.Strategies, got.Evidence)
				}
			}
			if c.rejected != "" && !anyContains(rejectionReasons(p), c.rejected) {
				t.Errorf("rejections %v lack %q", rejectionReasons(p), c.rejected)
			}
			if c.note != "" && !anyContains(p.Notes, c.note) {
				t.Errorf("notes %v lack %q", p.Notes, c.note)
			}
		})
	}
}

func rejectionReasons(p *plan.Plan) []string {
	var out []string
	for _, r := range p.Rejected {
		out = append(out, r.Reason)
	}
	return out
}

func anyContains(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// The stream loop in numbers: 10 iterations of 1 ms host-visible time, an H2D copy of
// 0.1 ms that waited for nothing, and a D2H call of 0.6 ms that also waited for the kernel:
// its transfer is estimated at the H2D bandwidth, 0.1 ms, not the call's 0.6.
func TestAnalyzeShares(t *testing.T) {
	s := newSynth(t, false)
	hIn, dIn, dOut, hOut := streamBuffers(s)
	streamLoop(s, 10, hIn, dIn, dOut, hOut)
	p := s.plan(DefaultOptions())

	// per iteration: 100 µs + 1 µs gap, launch 3 µs + 1, 600 µs + 1, 300 µs host work
	const iterMS = 1.006
	if p.Loop.Iterations != 10 || math.Abs(p.Loop.MS-iterMS) > 1e-9 {
		t.Fatalf("loop %+v, want 10 iterations of %.3f ms", p.Loop, iterMS)
	}
	if p.Loop.Marker == nil || p.Loop.Marker.Offset != 0x100 || p.Loop.Marker.Module != exePath {
		t.Errorf("loop marker %+v, want the H2D copy at prog+0x100", p.Loop.Marker)
	}
	in, out := p.Pairs[0], p.Pairs[1]
	if in.Estimated || math.Abs(in.CopyMSPerIteration-0.1) > 1e-9 || in.BytesPerIteration != mib {
		t.Errorf("input pair: %.4f ms/iteration (estimated %v), %d bytes; want 0.1 measured, 1 MiB", in.CopyMSPerIteration, in.Estimated, in.BytesPerIteration)
	}
	if !out.Estimated || math.Abs(out.CopyMSPerIteration-0.1) > 1e-9 || !out.Copies[0].Estimated {
		t.Errorf("output pair: %.4f ms/iteration (estimated %v); want 0.1, estimated from bandwidth", out.CopyMSPerIteration, out.Estimated)
	}
	if !anyContains(out.Evidence, "wait for the GPU") {
		t.Errorf("output pair evidence %v lacks the completion wait (S2)", out.Evidence)
	}
	wantF := 0.2 / iterMS
	if math.Abs(p.FCopy-wantF) > 1e-9 || math.Abs(p.PredictedSpeedup-1/(1-wantF)) > 1e-9 {
		t.Errorf("f_copy %.6f speed-up %.4f, want %.6f and %.4f", p.FCopy, p.PredictedSpeedup, wantF, 1/(1-wantF))
	}
	// Both host buffers come from one malloc call site: the ordinal tells them apart.
	if in.Host.Site.Offset != out.Host.Site.Offset || in.Host.Site.Ordinal != 0 || out.Host.Site.Ordinal != 1 {
		t.Errorf("host sites %+v and %+v: want one site, ordinals 0 and 1", in.Host.Site, out.Host.Site)
	}
	if in.Host.Site.BuildID != "ab12cd" || in.Host.Site.Call != "malloc" || in.Host.Site.Bytes != mib {
		t.Errorf("host site %+v: want build-id, call and size", in.Host.Site)
	}
	if p.Context.Executable.Path != exePath || p.Context.Executable.BuildID != "ab12cd" {
		t.Errorf("context %+v: want the executable with its build-id", p.Context)
	}
}

// The first iteration of a loop runs cold (fresh pages, lazy initialisation): its copies and
// its length are left out of the times, so f_copy is the warm loop's.
func TestAnalyzeColdStart(t *testing.T) {
	s := newSynth(t, false)
	hIn, dIn, dOut, hOut := streamBuffers(s)
	// the cold iteration: copies ten times slower, 5 ms of first-touch work in the kernel
	s.memcpy(0x100, dIn, hIn, mib, trace.KindHostToDevice, 1_000_000)
	s.launch(0x110, 0)
	s.memcpy(0x120, hOut, dOut, mib, trace.KindDeviceToHost, 11_000_000)
	s.now += 300_000
	streamLoop(s, 9, hIn, dIn, dOut, hOut)
	p := s.plan(DefaultOptions())

	const iterMS = 1.006 // as in TestAnalyzeShares
	if p.Loop.Iterations != 10 || math.Abs(p.Loop.MS-iterMS) > 1e-9 {
		t.Fatalf("loop %+v, want 10 iterations of %.3f ms (the warm ones)", p.Loop, iterMS)
	}
	in, out := p.Pairs[0], p.Pairs[1]
	if math.Abs(in.CopyMSPerIteration-0.1) > 1e-9 || math.Abs(out.CopyMSPerIteration-0.1) > 1e-9 || !out.Estimated {
		t.Errorf("copy ms per iteration: input %.4f, output %.4f (estimated %v); want 0.1 each, the output estimated",
			in.CopyMSPerIteration, out.CopyMSPerIteration, out.Estimated)
	}
	if want := 0.2 / iterMS; math.Abs(p.FCopy-want) > 1e-9 {
		t.Errorf("f_copy %.6f, want %.6f", p.FCopy, want)
	}

	// With only two copies at a site there is no warm pair to time: both count.
	s = newSynth(t, false)
	hIn = s.alloc(trace.EventMalloc, 0x10, mib)
	dIn = s.alloc(trace.EventCUDAMalloc, 0x20, mib)
	s.memcpy(0x100, dIn, hIn, mib, trace.KindHostToDevice, 300_000)
	s.memcpy(0x100, dIn, hIn, mib, trace.KindHostToDevice, 100_000)
	p = s.plan(Options{MinBytes: 1, MinIterations: 2})
	if len(p.Pairs) != 1 || len(p.Pairs[0].Copies) != 1 || math.Abs(p.Pairs[0].Copies[0].MS-0.2) > 1e-9 {
		t.Fatalf("two copies of 0.3 and 0.1 ms: pairs %+v, want one copy site of 0.2 ms", p.Pairs)
	}
	if p.Loop.Iterations != 2 || math.Abs(p.Loop.MS-0.301) > 1e-9 {
		t.Errorf("loop %+v, want 2 iterations of 0.301 ms (first copy start to second)", p.Loop)
	}
}
