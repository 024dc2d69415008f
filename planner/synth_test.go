package planner

import (
	"bytes"
	"testing"
	"time"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/trace"
)

// synth writes a synthetic trace, one call at a time, as the tracer would record a program:
// every call site is an offset in one executable module.
type synth struct {
	t    testing.TB
	buf  bytes.Buffer
	w    *trace.Writer
	now  uint64
	next uint64 // next address handed out
	lost uint64
	tid  uint32 // the thread making the calls; 0: the main thread
}

const (
	exeBase = 0x400000
	exePath = "/opt/app/prog"
	pid     = 4242
)

func newSynth(t testing.TB, attached bool) *synth {
	return newSynthWith(t, func(h *trace.Header) { h.Attached = attached })
}

// newSynthWith is newSynth with the header as edit leaves it.
func newSynthWith(t testing.TB, edit func(*trace.Header)) *synth {
	s := &synth{t: t, now: 1_000_000, next: 0x7f0000000000}
	h := trace.Header{Command: []string{exePath, "--size", "1M"}, PID: pid, Start: time.Unix(1700000000, 0),
		Modules: []trace.Module{{Path: exePath, BuildID: "ab12cd", Start: exeBase, End: exeBase + 0x100000, Base: exeBase, Size: 1 << 20, PID: pid}}}
	edit(&h)
	w, err := trace.NewWriter(&s.buf, h)
	if err != nil {
		t.Fatal(err)
	}
	s.w = w
	return s
}

// call records one call lasting dur nanoseconds.
func (s *synth) call(e trace.Event, dur uint64) {
	e.PID, e.TID = pid, pid
	if s.tid != 0 {
		e.TID = s.tid
	}
	e.EnterNS, e.ExitNS = s.now, s.now+dur
	s.now += dur + 1000
	if err := s.w.WriteEvent(&e); err != nil {
		s.t.Fatal(err)
	}
}

func (s *synth) alloc(t trace.EventType, site, bytes uint64) uint64 {
	addr := s.next
	s.next += (bytes + 0xffff) &^ 0xffff
	s.call(trace.Event{Type: t, Caller: exeBase + site, Addr: addr, Bytes: bytes}, 2000)
	return addr
}

func (s *synth) free(t trace.EventType, site, addr uint64) {
	s.call(trace.Event{Type: t, Caller: exeBase + site, Addr: addr}, 1000)
}

// copy records a copy of n bytes taking dur ns.
func (s *synth) copy(t trace.EventType, site, dst, src, n uint64, kind uint32, stream, dur uint64) {
	s.call(trace.Event{Type: t, Caller: exeBase + site, Addr: dst, Src: src, Bytes: n, Kind: kind, Stream: stream}, dur)
}

func (s *synth) memcpy(site, dst, src, n uint64, kind uint32, dur uint64) {
	s.copy(trace.EventCUDAMemcpy, site, dst, src, n, kind, 0, dur)
}

func (s *synth) launch(site, stream uint64) {
	s.call(trace.Event{Type: trace.EventCUDALaunchKernel, Caller: exeBase + site, Addr: 0x401000, Stream: stream}, 3000)
}

func (s *synth) simple(t trace.EventType, site, addr, n uint64) {
	s.call(trace.Event{Type: t, Caller: exeBase + site, Addr: addr, Bytes: n}, 2000)
}

// plan closes the trace and plans it.
func (s *synth) plan(opts Options) *plan.Plan {
	s.t.Helper()
	if err := s.w.Close(trace.Footer{Complete: true, Lost: []uint64{s.lost}}); err != nil {
		s.t.Fatal(err)
	}
	r, err := trace.NewReader(bytes.NewReader(s.buf.Bytes()))
	if err != nil {
		s.t.Fatal(err)
	}
	p, err := Analyze(r, "synthetic.trace", opts, "test")
	if err != nil {
		s.t.Fatal(err)
	}
	return p
}

const mib = 1 << 20

// streamBuffers allocates the stream workload's buffers, a MiB each, in its order (the host
// input and output, then the device's), for streamLoop.
func streamBuffers(s *synth) (hIn, dIn, dOut, hOut uint64) {
	hIn, hOut = s.alloc(trace.EventMalloc, 0x10, mib), s.alloc(trace.EventMalloc, 0x10, mib)
	dIn, dOut = s.alloc(trace.EventCUDAMalloc, 0x20, mib), s.alloc(trace.EventCUDAMalloc, 0x30, mib)
	return hIn, dIn, dOut, hOut
}

// streamLoop is the stream workload's loop: host input copied in, a kernel, the output
// copied back (a synchronous D2H that also waits for the kernel).
func streamLoop(s *synth, iters int, hIn, dIn, dOut, hOut uint64) {
	for i := 0; i < iters; i++ {
		s.memcpy(0x100, dIn, hIn, mib, trace.KindHostToDevice, 100_000)
		s.launch(0x110, 0)
		s.memcpy(0x120, hOut, dOut, mib, trace.KindDeviceToHost, 600_000)
		s.now += 300_000 // host work
	}
}
