package live_test

import (
	"context"
	"testing"
	"time"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/live"
	"github.com/echo-uma/echo/tracer"
)

// The live sampler reports each interval on its own, keeps finding the pairs, and drops a
// process once it exited.
func TestSamplerIntervals(t *testing.T) {
	testenv.RequireRoot(t)
	target := testenv.LongStream(t, "256K")
	s, err := live.Start(context.Background(), live.Options{PIDs: []int{target.Process.Pid}, Interval: 500 * time.Millisecond,
		Config: tracer.Config{Launches: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var last *live.Row
	for i := 0; i < 20 && (last == nil || last.Pairs < 2); i++ {
		time.Sleep(500 * time.Millisecond)
		if r := find(s.Sample(), target.Process.Pid); r != nil && r.Events > 0 {
			last = r
		}
	}
	if last == nil {
		t.Fatal("no row with events for the workload in 10 s")
	}
	checkStream(t, last)
	// A second interval right away holds (almost) nothing: the counts are per interval.
	if r := find(s.Sample(), target.Process.Pid); r == nil || r.Events > last.Events/2 {
		t.Errorf("an immediate second sample %+v: want the process with few events (last interval %d)", r, last.Events)
	}
	target.Process.Kill()
	target.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for find(s.Sample(), target.Process.Pid) != nil {
		if time.Now().After(deadline) {
			t.Fatal("the exited process still has a row after 5 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Watching every CUDA process, the sampler picks up one that starts after it began, through
// the same tracer as the one it found at its start.
func TestSamplerPicksUpNewProcess(t *testing.T) {
	testenv.RequireRoot(t)
	first := testenv.LongStream(t, "64K")
	s, err := live.Start(context.Background(), live.Options{Interval: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	later := testenv.LongStream(t, "128K")
	deadline := time.Now().Add(10 * time.Second)
	for {
		rows := s.Sample()
		a, b := find(rows, first.Process.Pid), find(rows, later.Process.Pid)
		if a != nil && b != nil && a.Events > 0 && b.Events > 0 {
			for _, c := range []struct {
				r    *live.Row
				size uint64
			}{{a, 64 << 10}, {b, 128 << 10}} {
				if len(c.r.Detail.TopSites) == 0 || c.r.Detail.TopSites[0].BytesPerCopy != c.size {
					t.Errorf("process %d: top sites %+v: want its own copies of %d bytes", c.r.PID, c.r.Detail.TopSites, c.size)
				}
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s: row of the first %+v, of the later %+v: want both with events", a, b)
		}
		time.Sleep(300 * time.Millisecond)
	}
}
