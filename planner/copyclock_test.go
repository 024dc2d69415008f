package planner

import (
	"slices"
	"testing"

	"github.com/echo-uma/echo/trace"
)

// A synchronous copy issued while a kernel may run waited for it: the timer counts the time
// its bytes take at the rate of the copies that waited for nothing, not the whole call.
func TestTransferTimer(t *testing.T) {
	const mib = 1 << 20
	now := uint64(1_000_000)
	call := func(typ trace.EventType, kind uint32, bytes, dur uint64) *trace.Event {
		e := &trace.Event{Type: typ, Kind: kind, Bytes: bytes, EnterNS: now, ExitNS: now + dur}
		now += dur + 1000
		return e
	}
	copyIn := func(dur uint64) *trace.Event { return call(trace.EventCUDAMemcpy, trace.KindHostToDevice, mib, dur) }
	copyOut := func(dur uint64) *trace.Event { return call(trace.EventCUDAMemcpy, trace.KindDeviceToHost, mib, dur) }
	launch := func() *trace.Event { return call(trace.EventCUDALaunchKernel, 0, 0, 5_000) }

	cases := []struct {
		name   string
		events []*trace.Event
		want   uint64 // what the last event moved
	}{
		{"waited before any rate is known: counted whole", []*trace.Event{launch(), copyOut(10_000_000)}, 10_000_000},
		{"waited: bytes at the clean rate", []*trace.Event{copyIn(1_000_000), launch(), copyOut(10_000_000)}, 1_000_000},
		{"after a synchronize: nothing pending", []*trace.Event{copyIn(1_000_000), launch(),
			call(trace.EventCUDADeviceSynchronize, 0, 0, 9_000_000), copyOut(2_000_000)}, 2_000_000},
		{"an estimate never exceeds the call", []*trace.Event{copyIn(4_000_000), launch(), copyOut(3_000_000)}, 3_000_000},
		{"asynchronous copies are timed whole", []*trace.Event{copyIn(1_000_000), launch(),
			call(trace.EventCUDAMemcpyAsync, trace.KindDeviceToHost, mib, 7_000_000)}, 7_000_000},
		{"a failed copy moved nothing", []*trace.Event{copyIn(1_000_000),
			{Type: trace.EventCUDAMemcpy, Kind: trace.KindDeviceToHost, Bytes: mib, EnterNS: 1, ExitNS: 2, Ret: 1}}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tt := NewTransferTimer(trace.Header{})
			var got uint64
			for _, e := range c.events {
				dir := ""
				if e.Type.IsCopy() {
					dir = trace.Direction(e.Kind)
				}
				got = tt.Observe(e, dir)
			}
			if got != c.want {
				t.Errorf("moved %d ns, want %d", got, c.want)
			}
		})
	}
}

// Without launch events (not probed), a synchronous copy may have waited for kernels the
// clock never saw start: its time is capped at its bytes at the rate of the sites that waited for
// nothing, as the traced launch would have had it; a trace that probed them keeps its account.
func TestTransferTimerWithoutLaunches(t *testing.T) {
	const mib = 1 << 20
	var now uint64
	at := func(caller uint64, kind uint32, dur uint64) *trace.Event {
		e := &trace.Event{Type: trace.EventCUDAMemcpy, Kind: kind, Bytes: mib, Caller: caller, EnterNS: now, ExitNS: now + dur}
		now += dur + 1000
		return e
	}
	// A loop: copy in (1 ms, waits for nothing), a kernel of 9 ms not traced, copy out.
	var events []*trace.Event
	for range 3 {
		events = append(events, at(0x10, trace.KindHostToDevice, 1_000_000), at(0x20, trace.KindDeviceToHost, 10_000_000))
	}
	for _, c := range []struct {
		name string
		h    trace.Header
		want uint64
	}{
		{"launches not probed: the unwaited sites' rate", trace.Header{NoLaunches: true}, 1_000_000},
		{"launches probed, none seen: counted whole", trace.Header{}, 10_000_000},
	} {
		t.Run(c.name, func(t *testing.T) {
			tt := NewTransferTimer(c.h)
			var got uint64
			for _, e := range events {
				got = tt.Observe(e, trace.Direction(e.Kind))
			}
			if got != c.want {
				t.Errorf("the last copy out moved %d ns, want %d", got, c.want)
			}
		})
	}
}

// Without launch events, the call sites whose copies lie on the envelope of all sites' copies
// waited for nothing and count whole, small ones included (their time is mostly a fixed cost
// that no rate carries), and the rest are estimated from them: a loop gives, copy by copy,
// what it gives with its launches traced.
func TestTransferTimerEnvelope(t *testing.T) {
	const mib = 1 << 20
	var now uint64
	at := func(typ trace.EventType, caller uint64, kind uint32, bytes, dur uint64) *trace.Event {
		e := &trace.Event{Type: typ, Kind: kind, Bytes: bytes, Caller: caller, EnterNS: now, ExitNS: now + dur}
		now += dur + 1000
		return e
	}
	// An inference loop: a frame (1 MiB, 1 ms) and its parameters (64 KiB, 0.5 ms: most of it
	// the call's fixed cost) in, a kernel, the output (1 MiB) out after a 9 ms wait, and its
	// scores (32 KiB, 0.4 ms) out.
	var events []*trace.Event
	for range 4 {
		events = append(events,
			at(trace.EventCUDAMemcpy, 0x10, trace.KindHostToDevice, mib, 1_000_000),
			at(trace.EventCUDAMemcpy, 0x20, trace.KindHostToDevice, 64<<10, 500_000),
			at(trace.EventCUDALaunchKernel, 0x30, 0, 0, 5_000),
			at(trace.EventCUDAMemcpy, 0x40, trace.KindDeviceToHost, mib, 10_000_000),
			at(trace.EventCUDAMemcpy, 0x50, trace.KindDeviceToHost, 32<<10, 400_000))
	}
	moved := func(h trace.Header) []uint64 {
		tt := NewTransferTimer(h)
		var out []uint64
		for _, e := range events {
			if h.NoLaunches && e.Type == trace.EventCUDALaunchKernel {
				continue
			}
			if e.Type.IsCopy() {
				out = append(out, tt.Observe(e, trace.Direction(e.Kind)))
			} else {
				tt.Observe(e, "")
			}
		}
		return out[len(out)-4:] // the last iteration's
	}
	with, without := moved(trace.Header{}), moved(trace.Header{NoLaunches: true})
	if !slices.Equal(without, with) {
		t.Errorf("the last iteration's copies moved %v ns without launch events, %v with them", without, with)
	}
	if without[1] != 500_000 || without[3] != 400_000 {
		t.Errorf("the small copies moved %d and %d ns, want them whole (500000, 400000)", without[1], without[3])
	}
}

// Without launch events, a site is judged by its typical copy, not its mean: on a loaded
// machine a few copies of any site run several times slower (a preempted thread), which
// lifts the site's mean above the other sites' without its copies having waited for a
// kernel. Such a site counts whole, as the trace with its launches has it.
func TestTransferTimerTypicalCopy(t *testing.T) {
	const mib = 1 << 20
	var now uint64
	at := func(typ trace.EventType, caller uint64, kind uint32, dur uint64) *trace.Event {
		e := &trace.Event{Type: typ, Kind: kind, Bytes: mib, Caller: caller, EnterNS: now, ExitNS: now + dur}
		now += dur + 1000
		return e
	}
	// Copy in: 1 ms, but two of six copies preempted for 5 ms; a kernel; copy out: 1 ms of
	// transfer after a 0.5 ms wait for it, every time (the corpus's background and memset
	// under load).
	in := []uint64{1_000_000, 1_000_000, 6_000_000, 1_000_000, 6_000_000, 1_000_000}
	var events []*trace.Event
	for _, d := range in {
		events = append(events,
			at(trace.EventCUDAMemcpy, 0x10, trace.KindHostToDevice, d),
			at(trace.EventCUDALaunchKernel, 0x20, 0, 5_000),
			at(trace.EventCUDAMemcpy, 0x30, trace.KindDeviceToHost, 1_500_000))
	}
	moved := func(h trace.Header) (out []uint64) {
		tt := NewTransferTimer(h)
		for _, e := range events {
			switch {
			case e.Type.IsCopy():
				out = append(out, tt.Observe(e, trace.Direction(e.Kind)))
			case !h.NoLaunches:
				tt.Observe(e, "")
			}
		}
		return out
	}
	with, without := moved(trace.Header{}), moved(trace.Header{NoLaunches: true})
	if !slices.Equal(without, with) {
		t.Errorf("the copies moved %v ns without launch events, %v with them", without, with)
	}
	if without[8] != 6_000_000 {
		t.Errorf("the last preempted copy in moved %d ns without launch events, want it whole (6000000)", without[8])
	}
}

// A site's first copy runs cold and is counted apart from the rate, whether or not it also
// waited for GPU work: when it did, the site's second copy is a warm one like the rest.
func TestTransferTimerColdCopyWaited(t *testing.T) {
	const mib = 1 << 20
	var now uint64
	at := func(typ trace.EventType, kind uint32, dur uint64) *trace.Event {
		e := &trace.Event{Type: typ, Kind: kind, Bytes: mib, Caller: 0x10, EnterNS: now, ExitNS: now + dur}
		now += dur + 1000
		return e
	}
	tt := NewTransferTimer(trace.Header{})
	var got uint64
	for _, e := range []*trace.Event{
		at(trace.EventCUDALaunchKernel, 0, 5_000),
		at(trace.EventCUDAMemcpy, trace.KindHostToDevice, 9_000_000), // cold, and waited for the kernel
		at(trace.EventCUDAMemcpy, trace.KindHostToDevice, 2_000_000), // warm
		at(trace.EventCUDAMemcpy, trace.KindHostToDevice, 1_000_000), // warm
		at(trace.EventCUDALaunchKernel, 0, 5_000),
		{Type: trace.EventCUDAMemcpy, Kind: trace.KindDeviceToHost, Bytes: mib, Caller: 0x20, EnterNS: now, ExitNS: now + 10_000_000},
	} {
		dir := ""
		if e.Type.IsCopy() {
			dir = trace.Direction(e.Kind)
		}
		got = tt.Observe(e, dir)
	}
	if got != 1_500_000 {
		t.Errorf("the copy out that waited moved %d ns, want 1500000 (its bytes at the two warm copies' rate)", got)
	}
}
