package live_test

import (
	"context"
	"testing"
	"time"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/live"
)

// The live sampler reports each interval on its own, keeps finding the pairs, and drops a
// process once it exited.
func TestSamplerIntervals(t *testing.T) {
	testenv.RequireRoot(t)
	target := testenv.LongStream(t, "256K")
	s, err := live.Start(context.Background(), live.Options{PIDs: []int{target.Process.Pid}, Interval: 500 * time.Millisecond})
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
