package export

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/echo-uma/echo/trace"
)

// The events of fixture, by what the tests look up.
var (
	evMalloc   = &trace.Event{Type: trace.EventMalloc, PID: rootPID, TID: rootPID, Caller: 0x401200, Addr: 0x5555_0000, Bytes: mib4, EnterNS: 1_050_000, ExitNS: 1_051_000}
	evCUDAMall = &trace.Event{Type: trace.EventCUDAMalloc, PID: rootPID, TID: rootPID, Caller: 0x401100, Addr: 0x7000_0000, Bytes: mib4, EnterNS: 1_100_000, ExitNS: 1_150_000}
	evH2D      = &trace.Event{Type: trace.EventCUDAMemcpy, PID: rootPID, TID: rootPID, Caller: 0x401746, Addr: 0x7000_0000, Src: 0x5555_0000, Bytes: mib4, Kind: trace.KindHostToDevice, EnterNS: 1_200_000, ExitNS: 1_500_500}
	evLaunch   = &trace.Event{Type: trace.EventCUDALaunchKernel, PID: rootPID, TID: 4243, Caller: 0x401800, Addr: 0x401230, Stream: 0xabc0, Arg: [4]uint64{64 | 2<<32, 1, 256 | 1<<32, 1}, EnterNS: 1_500_000, ExitNS: 1_510_000}
	evD2H      = &trace.Event{Type: trace.EventCUDAMemcpyAsync, PID: rootPID, TID: rootPID, Caller: 0x402000, Addr: 0x5555_0000, Src: 0x7000_0000, Bytes: mib4, Kind: trace.KindDeviceToHost, Stream: 0xabc0, EnterNS: 1_600_000, ExitNS: 1_700_000}
	evChild    = &trace.Event{Type: trace.EventCUMemcpyHtoD, PID: 5000, TID: 5001, Caller: 0x7f000100, Addr: 0x9000_0000, Src: 0x8000_0000, Bytes: 1536, Kind: trace.KindHostToDevice, EnterNS: 1_650_000, ExitNS: 1_650_250}
	evDlopen   = &trace.Event{Type: trace.EventDlopen, PID: rootPID, TID: rootPID, Caller: 0x401900, EnterNS: 1_710_000, ExitNS: 1_720_000}
	ev2D       = &trace.Event{Type: trace.EventCUDAMemcpy2D, PID: rootPID, TID: rootPID, Caller: 0x7e000040, Addr: 0x7000_0000, Src: 0x5555_0000, Bytes: 100 * 64, Kind: trace.KindHostToDevice, Arg: [4]uint64{128, 256, 100, 64}, EnterNS: 1_730_000, ExitNS: 1_730_007}
	evBadOrder = &trace.Event{Type: trace.EventCUDAStreamSynchronize, PID: rootPID, TID: 4243, Addr: 0xabc0, EnterNS: 1_900_000, ExitNS: 1_800_000}
	evNoEnter  = &trace.Event{Type: trace.EventCUDADeviceSynchronize, PID: rootPID, TID: 4243, EnterNS: 0, ExitNS: 1_950_000}
	evNoTimes  = &trace.Event{Type: trace.EventCUDAEventRecord, PID: rootPID, TID: 4243, Addr: 0xe0, Stream: 0xabc0}
	evFree     = &trace.Event{Type: trace.EventFree, PID: rootPID, TID: rootPID, Caller: 0x401a00, Addr: 0x5555_0000, EnterNS: 2_000_000, ExitNS: 2_000_100}
	evCUDAFree = &trace.Event{Type: trace.EventCUDAFree, PID: rootPID, TID: rootPID, Caller: 0x401a10, Addr: 0x7000_0000, Ret: 1, EnterNS: 2_001_000, ExitNS: 2_003_000}
)

// fixture is a trace with two processes and three threads, copies both ways from the runtime
// and the driver, a launch, allocations and frees, a library loaded later and events whose
// clock readings are broken.
func fixture(t testing.TB) ([]byte, []*trace.Event) {
	events := []*trace.Event{evMalloc, evCUDAMall, evH2D, evLaunch, evD2H, evChild, evDlopen}
	late := []*trace.Event{ev2D, evBadOrder, evNoEnter, evNoTimes, evFree, evCUDAFree}
	var records []any
	for _, e := range events {
		records = append(records, e)
	}
	records = append(records, testLate)
	for _, e := range late {
		records = append(records, e)
	}
	records = append(records, &trace.Footer{Complete: true, Lost: []uint64{0, 3}})
	return writeTrace(t, testHeader(), records...), append(events, late...)
}

// exportFixture exports fixture's trace with opts, failing the test on any error, and
// returns the document, the summary and the trace's events.
func exportFixture(t testing.TB, opts Options) (document, Summary, []*trace.Event) {
	t.Helper()
	data, events := fixture(t)
	doc, sum, err := exportTrace(t, data, opts)
	if err != nil {
		t.Fatalf("Export: %v", err)
	}
	return doc, sum, events
}

func TestPerfettoSlices(t *testing.T) {
	doc, sum, events := exportFixture(t, Options{})
	checkOneForOne(t, doc, startNS, events)
	checkMonotonic(t, doc)
	if doc.DisplayTimeUnit != "ns" {
		t.Errorf("displayTimeUnit %q", doc.DisplayTimeUnit)
	}
	want := Summary{Events: uint64(len(events)), Instants: 5, Modules: 1, Processes: 2, Threads: 3}
	if sum != want {
		t.Errorf("summary %+v, want %+v", sum, want)
	}

	index := map[*trace.Event]int{}
	for i, e := range events {
		index[e] = i
	}
	tests := []struct {
		name     string
		event    *trace.Event
		wantName string
		cat      string
		ts, dur  float64
		args     map[string]any // a subset of the slice's args
		noArgs   []string
	}{
		{name: "host allocation", event: evMalloc, wantName: "malloc", cat: "alloc", ts: 50, dur: 1,
			args: map[string]any{"ptr": "0x55550000", "size": float64(mib4), "site": "stream+0x1200"}},
		{name: "h2d copy", event: evH2D, wantName: "cudaMemcpy h2d 4.0 MiB", cat: "copy", ts: 200, dur: 300.5,
			args: map[string]any{"dst": "0x70000000", "src": "0x55550000", "bytes": float64(mib4), "kind": "h2d",
				"stream": "0x0", "site": "stream+0x1746"},
			noArgs: []string{"pair", "ret", "timestamps"}},
		{name: "launch", event: evLaunch, wantName: "cudaLaunchKernel 0x401230", cat: "launch", ts: 500, dur: 10,
			args: map[string]any{"function": "0x401230", "function_site": "stream+0x1230", "stream": "0xabc0",
				"grid": "64x2x1", "block": "256x1x1"}},
		{name: "d2h async copy", event: evD2H, wantName: "cudaMemcpyAsync d2h 4.0 MiB", cat: "copy", ts: 600, dur: 100,
			args: map[string]any{"kind": "d2h", "stream": "0xabc0", "site": "stream+0x2000"}},
		{name: "driver copy in a child", event: evChild, wantName: "cuMemcpyHtoD_v2 h2d 1.5 KiB", cat: "copy", ts: 650, dur: 0.25,
			args: map[string]any{"bytes": float64(1536), "site": "libcudart.so.13+0x100"}},
		{name: "2D copy in a library loaded later", event: ev2D, wantName: "cudaMemcpy2D h2d 6.2 KiB", cat: "copy", ts: 730, dur: 0.007,
			args: map[string]any{"dpitch": float64(128), "spitch": float64(256), "width": float64(100), "height": float64(64),
				"site": `plugin "v2".so+0x40`}},
		{name: "loader", event: evDlopen, wantName: "dlopen", cat: "loader", ts: 710, dur: 10},
		{name: "exit before entry", event: evBadOrder, wantName: "cudaStreamSynchronize", cat: "sync", ts: 800, dur: 0,
			args: map[string]any{"stream": "0xabc0", "enter_ns": float64(1_900_000), "exit_ns": float64(1_800_000)}},
		{name: "no entry time", event: evNoEnter, wantName: "cudaDeviceSynchronize", cat: "sync", ts: 950, dur: 0,
			args: map[string]any{"enter_ns": float64(0)}},
		{name: "no times: after the thread's previous call", event: evNoTimes, wantName: "cudaEventRecord", cat: "event", ts: 950, dur: 0,
			args: map[string]any{"event": "0xe0", "stream": "0xabc0", "site": "0x0"}},
		{name: "failed free", event: evCUDAFree, wantName: "cudaFree", cat: "free", ts: 1001, dur: 2,
			args: map[string]any{"ptr": "0x70000000", "ret": float64(1)}},
	}
	slices := doc.slices()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := slices[index[tt.event]]
			if s.Name != tt.wantName || s.Cat != tt.cat || !near(s.Ts, tt.ts) || !near(s.Dur, tt.dur) {
				t.Errorf("slice %q cat %q ts %v dur %v, want %q cat %q ts %v dur %v",
					s.Name, s.Cat, s.Ts, s.Dur, tt.wantName, tt.cat, tt.ts, tt.dur)
			}
			for k, v := range tt.args {
				if s.Args[k] != v {
					t.Errorf("args[%s] = %#v, want %#v (args %v)", k, s.Args[k], v, s.Args)
				}
			}
			for _, k := range tt.noArgs {
				if _, ok := s.Args[k]; ok {
					t.Errorf("args has %s: %v", k, s.Args)
				}
			}
			if _, ok := s.Args["timestamps"]; ok != (tt.event.EnterNS == 0 || tt.event.ExitNS < tt.event.EnterNS) {
				t.Errorf("args[timestamps] present %v for enter %d exit %d", ok, tt.event.EnterNS, tt.event.ExitNS)
			}
		})
	}
}

func TestPerfettoInstants(t *testing.T) {
	doc, _, _ := exportFixture(t, Options{})
	tests := []struct {
		name, scope string
		pid, tid    uint32
		ts          float64
		args        map[string]any
	}{
		{"alloc 4.0 MiB", "t", rootPID, rootPID, 51, map[string]any{"ptr": "0x55550000", "size": float64(mib4), "api": "malloc"}},
		{"alloc 4.0 MiB", "t", rootPID, rootPID, 150, map[string]any{"ptr": "0x70000000", "api": "cudaMalloc"}},
		{`module plugin "v2".so`, "p", rootPID, 0, 720, map[string]any{"path": testLate.Path, "start": "0x7e000000",
			"end": "0x7e010000", "base": "0x7e000000", "size": float64(4096)}},
		{"free 0x55550000", "t", rootPID, rootPID, 1000.1, map[string]any{"ptr": "0x55550000", "api": "free"}},
		{"free 0x70000000", "t", rootPID, rootPID, 1003, map[string]any{"api": "cudaFree"}},
	}
	instants := doc.phase("i")
	if len(instants) != len(tests) {
		t.Fatalf("%d instants, want %d: %+v", len(instants), len(tests), instants)
	}
	for i, tt := range tests {
		got := instants[i]
		if got.Name != tt.name || got.S != tt.scope || got.PID != tt.pid || got.TID != tt.tid || !near(got.Ts, tt.ts) {
			t.Errorf("instant %d: %q s=%s %d/%d at %v, want %q s=%s %d/%d at %v", i, got.Name, got.S, got.PID, got.TID,
				got.Ts, tt.name, tt.scope, tt.pid, tt.tid, tt.ts)
		}
		for k, v := range tt.args {
			if got.Args[k] != v {
				t.Errorf("instant %q args[%s] = %#v, want %#v", got.Name, k, got.Args[k], v)
			}
		}
	}
}

func TestPerfettoMetadata(t *testing.T) {
	doc, _, events := exportFixture(t, Options{})
	names := []struct {
		kind     string
		pid, tid uint32
		want     string
	}{
		{"process_name", rootPID, 0, "./stream --size 4M"},
		{"process_name", 5000, 0, "child of stream"},
		{"thread_name", rootPID, rootPID, "main"},
		{"thread_name", rootPID, 4243, "thread 4243"},
		{"thread_name", 5000, 5001, "thread 5001"},
	}
	for _, n := range names {
		if got, ok := doc.meta(n.kind, n.pid, n.tid); !ok || got != n.want {
			t.Errorf("%s of %d/%d = %q (found %v), want %q", n.kind, n.pid, n.tid, got, ok, n.want)
		}
	}
	if m := doc.phase("M"); len(m) != 5 {
		t.Errorf("%d metadata events, want 5: one a process, one a thread", len(m))
	}
	wantMeta := map[string]any{"echo_command": "./stream --size 4M", "echo_pid": float64(rootPID), "echo_host": "gpu01",
		"echo_events": float64(len(events)), "echo_complete": true, "echo_lost_events": float64(3),
		"echo_origin_mono_ns": float64(startNS), "echo_start": "2026-11-29T10:00:00Z"}
	for k, v := range wantMeta {
		if doc.Metadata[k] != v {
			t.Errorf("metadata[%s] = %#v, want %#v", k, doc.Metadata[k], v)
		}
	}
	for _, k := range []string{"echo_error", "echo_plan"} {
		if _, ok := doc.Metadata[k]; ok {
			t.Errorf("metadata has %s", k)
		}
	}
}

// TestPerfettoOrigin: without start_mono_ns in the header, time starts at the first event's
// entry, or its return when it has no entry time.
func TestPerfettoOrigin(t *testing.T) {
	tests := []struct {
		name   string
		first  trace.Event
		wantTS []float64
	}{
		{"first entry", trace.Event{EnterNS: 5_000, ExitNS: 6_000}, []float64{0, 4, 2}},
		{"first has no entry", trace.Event{ExitNS: 6_000}, []float64{0, 3, 1}},
		{"first has no times", trace.Event{}, []float64{0, 0, -2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := testHeader()
			h.StartMonoNS = 0
			first := tt.first
			first.Type, first.PID, first.TID = trace.EventCUDADeviceSynchronize, 1, 1
			data := writeTrace(t, h, &first,
				&trace.Event{Type: trace.EventCUDADeviceSynchronize, PID: 1, TID: 1, EnterNS: 9_000, ExitNS: 9_500},
				// another thread's call that entered before the first one returned
				&trace.Event{Type: trace.EventCUDADeviceSynchronize, PID: 1, TID: 2, EnterNS: 7_000, ExitNS: 9_600},
				&trace.Footer{Complete: true})
			doc, _, err := exportTrace(t, data, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for i, s := range doc.slices() {
				if !near(s.Ts, tt.wantTS[i]) {
					t.Errorf("slice %d at %v, want %v", i, s.Ts, tt.wantTS[i])
				}
			}
		})
	}
}

func TestPerfettoCutShort(t *testing.T) {
	data, events := fixture(t)
	full := len(data)
	footerless := writeTrace(t, testHeader(), evMalloc, evCUDAMall, evH2D)
	badType := bytes.Clone(footerless)
	badType[len(badType)-trace.EventSize] = 0xff // the last event's type
	tests := []struct {
		name       string
		data       []byte
		wantEvents int
		wantErr    string
	}{
		{"no footer", footerless, 3, "no footer: the trace was cut short"},
		{"cut inside an event", footerless[:len(footerless)-40], 2, "truncated event: 72 of 112 bytes"},
		{"unknown event type", badType, 2, "unknown event type 255"},
		{"cut inside the footer", data[:full-5], len(events), "truncated"},
		{"header only", footerless[:len(footerless)-3*trace.EventSize], 0, "no footer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, sum, err := exportTrace(t, tt.data, Options{})
			var rerr *ReadError
			if !errors.As(err, &rerr) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %v, want a *ReadError containing %q", err, tt.wantErr)
			}
			var corrupt *trace.CorruptError
			if !errors.As(err, &corrupt) {
				t.Errorf("error %T does not unwrap to the reader's *trace.CorruptError", err)
			}
			if got := len(doc.slices()); got != tt.wantEvents || sum.Events != uint64(tt.wantEvents) {
				t.Errorf("%d slices, summary %d events, want %d", got, sum.Events, tt.wantEvents)
			}
			checkOneForOne(t, doc, startNS, events[:tt.wantEvents])
			if msg, _ := doc.Metadata["echo_error"].(string); msg != err.Error() {
				t.Errorf("metadata echo_error %q, want %q", msg, err.Error())
			}
			if doc.Metadata["echo_complete"] != false {
				t.Errorf("metadata echo_complete %v", doc.Metadata["echo_complete"])
			}
		})
	}
}

// failingWriter fails after n bytes, like a full disk.
type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		n := w.n
		w.n = 0
		return n, errors.New("no space left on device")
	}
	w.n -= len(p)
	return len(p), nil
}

func TestPerfettoWriteError(t *testing.T) {
	data := benchTrace(t, 20_000)
	r, err := trace.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Export(&failingWriter{n: 1 << 20}, r, FormatPerfetto, Options{})
	var rerr *ReadError
	if err == nil || errors.As(err, &rerr) || !strings.Contains(err.Error(), "writing trace-event JSON: no space left on device") {
		t.Fatalf("error %v, want the write failure", err)
	}
}

func TestParseFormat(t *testing.T) {
	tests := []struct {
		in      string
		want    Format
		wantErr string
	}{
		{"perfetto", FormatPerfetto, ""},
		{" Perfetto", FormatPerfetto, ""},
		{"pprof", "", `unknown format "pprof": supported formats are perfetto`},
		{"", "", `unknown format "": supported formats are perfetto`},
	}
	for _, tt := range tests {
		got, err := ParseFormat(tt.in)
		if got != tt.want || (err == nil) != (tt.wantErr == "") || err != nil && err.Error() != tt.wantErr {
			t.Errorf("ParseFormat(%q) = %q, %v; want %q, %q", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
	r, err := trace.NewReader(bytes.NewReader(writeTrace(t, testHeader())))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Export(&bytes.Buffer{}, r, "svg", Options{}); err == nil || !strings.Contains(err.Error(), "supported formats") {
		t.Errorf("Export to svg: %v", err)
	}
}
