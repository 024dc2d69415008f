package planner

import (
	"bufio"
	"os"
	"path/filepath"
	"testing"

	"github.com/echo-uma/echo/trace"
)

// BenchmarkAnalyze plans a generated trace of 10 million events shaped like the stream
// workload (H2D copy, launch, D2H copy, a sync), read from a file as `echoctl plan` reads it.
// The target is 5 million events/s on one core.
func BenchmarkAnalyze(b *testing.B) {
	const events = 10_000_000
	path := filepath.Join(b.TempDir(), "bench.trace")
	writeBenchTrace(b, path, events)
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		r, err := trace.NewReader(f)
		if err != nil {
			b.Fatal(err)
		}
		p, err := Analyze(r, path, DefaultOptions(), "bench")
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		if len(p.Pairs) != 2 || p.Loop.Iterations < events/4-1 {
			b.Fatalf("plan of the benchmark trace: %d pairs, %d iterations", len(p.Pairs), p.Loop.Iterations)
		}
	}
	b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

func writeBenchTrace(b *testing.B, path string, events int) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	s := newSynth(b, false)
	s.w, err = trace.NewWriter(bw, trace.Header{Command: []string{exePath}, PID: pid,
		Modules: []trace.Module{{Path: exePath, BuildID: "ab12cd", Start: exeBase, End: exeBase + 0x100000, Base: exeBase, PID: pid}}})
	if err != nil {
		b.Fatal(err)
	}
	hIn, dIn, dOut, hOut := streamBuffers(s)
	for i := 4; i+4 <= events; i += 4 {
		s.memcpy(0x100, dIn, hIn, mib, trace.KindHostToDevice, 100_000)
		s.launch(0x110, 0)
		s.memcpy(0x120, hOut, dOut, mib, trace.KindDeviceToHost, 600_000)
		s.simple(trace.EventCUDADeviceSynchronize, 0x130, 0, 0)
	}
	if err := s.w.Close(trace.Footer{Complete: true}); err != nil {
		b.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		b.Fatal(err)
	}
}
