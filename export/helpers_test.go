package export

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/echo-uma/echo/trace"
)

var (
	testStart = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	testExe   = trace.Module{Path: "/opt/app/stream", BuildID: "0123abcd", Start: 0x400000, End: 0x500000, Base: 0x400000, Size: 43704}
	testLib   = trace.Module{Path: "/usr/lib/libcudart.so.13", BuildID: "feed", Start: 0x7f000000, End: 0x7f100000, Base: 0x7f000000, Size: 133080}
	testLate  = trace.Module{Path: "/opt/app/plugin \"v2\".so", Start: 0x7e000000, End: 0x7e010000, Base: 0x7e000000, Size: 4096, PID: 4242}
)

const (
	rootPID = 4242
	startNS = 1_000_000 // the header's start_mono_ns
	mib4    = 4 << 20
)

func testHeader() trace.Header {
	return trace.Header{Host: "gpu01", Kernel: "6.8.0", Start: testStart, StartMonoNS: startNS,
		Command: []string{"./stream", "--size", "4M"}, PID: rootPID, Tracer: "echoctl test",
		Modules: []trace.Module{testExe, testLib}}
}

// writeTrace writes a trace of records (*trace.Event, trace.Module, and a *trace.Footer that
// closes it; without one the trace is cut short after its last record).
func writeTrace(t testing.TB, h trace.Header, records ...any) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := trace.NewWriter(&buf, h)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range records {
		switch rec := rec.(type) {
		case *trace.Event:
			err = w.WriteEvent(rec)
		case trace.Module:
			err = w.WriteModule(rec)
		case *trace.Footer:
			err = w.Close(*rec)
		default:
			t.Fatalf("writeTrace: cannot write a %T", rec)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// document is the exported JSON as encoding/json reads it.
type document struct {
	DisplayTimeUnit string         `json:"displayTimeUnit"`
	TraceEvents     []traceEvent   `json:"traceEvents"`
	Metadata        map[string]any `json:"metadata"`
}

type traceEvent struct {
	Ph    string         `json:"ph"`
	Name  string         `json:"name"`
	Cat   string         `json:"cat"`
	S     string         `json:"s"`
	Cname string         `json:"cname"`
	Ts    float64        `json:"ts"`
	Dur   float64        `json:"dur"`
	PID   uint32         `json:"pid"`
	TID   uint32         `json:"tid"`
	Args  map[string]any `json:"args"`
}

// exportTrace exports a trace and parses the result, failing the test unless it parses.
func exportTrace(t testing.TB, data []byte, opts Options) (document, Summary, error) {
	t.Helper()
	r, err := trace.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("NewReader: %v", err)
	}
	var out bytes.Buffer
	sum, err := Export(&out, r, FormatPerfetto, opts)
	var rerr *ReadError
	if err != nil && !errors.As(err, &rerr) {
		t.Fatalf("Export: %v", err)
	}
	return parse(t, out.Bytes()), sum, err
}

func parse(t testing.TB, data []byte) document {
	t.Helper()
	var doc document
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("the export does not parse: %v\n%s", err, head(data))
	}
	if dec.More() {
		t.Fatalf("data after the JSON document")
	}
	return doc
}

func head(data []byte) string {
	if len(data) > 4000 {
		return string(data[:4000]) + "…"
	}
	return string(data)
}

// slices are the complete events ("ph":"X") in file order.
func (d document) slices() []traceEvent { return d.phase("X") }

func (d document) phase(ph string) []traceEvent {
	var out []traceEvent
	for _, e := range d.TraceEvents {
		if e.Ph == ph {
			out = append(out, e)
		}
	}
	return out
}

// meta finds the metadata event of a name for a pid (and tid, for thread names).
func (d document) meta(name string, pid, tid uint32) (string, bool) {
	for _, e := range d.TraceEvents {
		if e.Ph == "M" && e.Name == name && e.PID == pid && (name != "thread_name" || e.TID == tid) {
			for _, v := range e.Args {
				s, _ := v.(string)
				return s, true
			}
		}
	}
	return "", false
}

// checkOneForOne checks that the slices are the events, one for one and in order: the API
// that names each, its thread, its place and its length on the timeline.
func checkOneForOne(t *testing.T, doc document, origin uint64, events []*trace.Event) {
	t.Helper()
	slices := doc.slices()
	if len(slices) != len(events) {
		t.Fatalf("%d slices for %d events", len(slices), len(events))
	}
	wantCalls, gotCalls := map[string]int{}, map[string]int{}
	for i, e := range events {
		s := slices[i]
		api := e.Type.String()
		wantCalls[api]++
		if s.Name == api || strings.HasPrefix(s.Name, api+" ") {
			gotCalls[api]++
		}
		wantTS, wantDur := float64(int64(e.EnterNS-origin))/1000, float64(e.Duration())/1000
		if e.EnterNS == 0 || e.ExitNS < e.EnterNS {
			wantTS, wantDur = float64(int64(e.ExitNS-origin))/1000, 0
		}
		switch {
		case s.PID != e.PID || s.TID != e.TID:
			t.Errorf("slice %d (%s) on %d/%d, want %d/%d", i, s.Name, s.PID, s.TID, e.PID, e.TID)
		case e.ExitNS != 0 && !near(s.Ts, wantTS):
			t.Errorf("slice %d (%s) ts %v, want %v", i, s.Name, s.Ts, wantTS)
		case !near(s.Dur, wantDur):
			t.Errorf("slice %d (%s) dur %v, want %v", i, s.Name, s.Dur, wantDur)
		}
	}
	for api, n := range wantCalls {
		if gotCalls[api] != n {
			t.Errorf("%d slices named %s, want %d", gotCalls[api], api, n)
		}
	}
}

// checkMonotonic checks that time never goes back on a thread's track.
func checkMonotonic(t *testing.T, doc document) {
	t.Helper()
	last := map[[2]uint32]float64{}
	for _, e := range doc.TraceEvents {
		if e.Ph != "X" && !(e.Ph == "i" && e.S == "t") {
			continue
		}
		k := [2]uint32{e.PID, e.TID}
		if prev, ok := last[k]; ok && e.Ts < prev {
			t.Errorf("%q at %v on %d/%d, after an event at %v", e.Name, e.Ts, e.PID, e.TID, prev)
		}
		last[k] = e.Ts
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6 }
