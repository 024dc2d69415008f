package export

import (
	"bytes"
	"io"
	"testing"

	"github.com/echo-uma/echo/trace"
)

// benchTrace is a trace of n events shaped like a copy→kernel→copy loop on two threads, with
// an allocation and a free now and then.
func benchTrace(t testing.TB, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	buf.Grow(n*trace.EventSize + 4096)
	w, err := trace.NewWriter(&buf, testHeader())
	if err != nil {
		t.Fatal(err)
	}
	loop := []trace.Event{*evH2D, *evLaunch, *evD2H, *evBadOrder, *evMalloc, *evFree}
	for i := range n {
		e := loop[i%len(loop)]
		at := startNS + uint64(i)*1_000
		e.EnterNS, e.ExitNS = at, at+600
		if err := w.WriteEvent(&e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(trace.Footer{Complete: true}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func exportTo(t testing.TB, w io.Writer, data []byte, opts Options) Summary {
	r, err := trace.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Export(w, r, FormatPerfetto, opts)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// BenchmarkExport converts a trace of a million events, marking a plan's copies.
func BenchmarkExport(b *testing.B) {
	const n = 1_000_000
	data := benchTrace(b, n)
	opts := Options{Plan: testPlan()}
	var out countingWriter
	b.ReportAllocs()
	for b.Loop() {
		exportTo(b, &out, data, opts)
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(out)/float64(b.N)/n, "JSON-bytes/event")
	b.SetBytes(n * trace.EventSize)
}

type countingWriter int64

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}

// TestExportConstantMemory: what an export allocates does not grow with the trace; memory
// is per thread and per process, never per event.
func TestExportConstantMemory(t *testing.T) {
	if raceDetector {
		t.Skip("allocation counts under -race measure the race detector; go test without -race runs this")
	}
	small, large := benchTrace(t, 1_000), benchTrace(t, 50_000)
	opts := Options{Plan: testPlan()}
	allocs := func(data []byte) float64 {
		return testing.AllocsPerRun(3, func() { exportTo(t, io.Discard, data, opts) })
	}
	a, b := allocs(small), allocs(large)
	if b > a+5 {
		t.Errorf("%v allocations for 1,000 events, %v for 50,000: an export allocates per event", a, b)
	}
	t.Logf("allocations per export: %v for 1,000 events, %v for 50,000", a, b)
}
