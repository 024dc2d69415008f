package planner

import (
	"testing"

	"github.com/echo-uma/echo/plan"
)

// A resolve run saw no GPU work outstanding at a site's copies: the part of its call the
// trace took for a wait was transfer. An estimated copy gets its call's time back; one whose
// time was its call's already keeps it and loses only the wait's share.
func TestWaitedForNothing(t *testing.T) {
	pair := plan.Pair{Copies: []plan.Copy{
		{Site: plan.Site{Call: "cudaMemcpy", Bytes: 4 << 20}, Direction: "h2d", PerIteration: 1, MS: 0.65, CallMS: 0.85, Estimated: true, Waited: 1},
		{Site: plan.Site{Call: "cudaMemcpy", Bytes: 4 << 20}, Direction: "d2h", PerIteration: 1, MS: 0.5, CallMS: 0.5, Waited: 1},
	}}
	pair.SumCopies(3)
	pair.WaitedForNothing(0, 3)
	if c := pair.Copies[0]; c.MS != 0.85 || c.Estimated || c.Waited != 0 {
		t.Errorf("estimated copy after: %+v; want its call's 0.85 ms, not estimated, no wait", c)
	}
	if !near(pair.CopyMSPerIteration, 1.35) || !near(pair.FCopy, 1.35/3) || pair.Estimated {
		t.Errorf("pair after: %.3f ms of copies, f_copy %.3f, estimated %v; want 1.35 ms, %.3f, false",
			pair.CopyMSPerIteration, pair.FCopy, pair.Estimated, 1.35/3)
	}
	pair.WaitedForNothing(1, 3)
	if c := pair.Copies[1]; c.MS != 0.5 || c.Waited != 0 {
		t.Errorf("copy timed by its call after: %+v; want 0.5 ms, no wait", c)
	}
	if len(pair.Evidence) != 2 {
		t.Errorf("evidence %q; want a line for each copy", pair.Evidence)
	}
}

// A copy timed alone by the resolve run takes that time: a synchronous one whose trace time
// held a wait for kernels (or an estimate of the transfer short of it), an asynchronous one
// whose call returned before its transfer ran. A synchronous copy timed longer alone than
// its calls took in the trace keeps the trace's time: its stream's drain did not cover all
// it waits for.
func TestTimedAlone(t *testing.T) {
	pair := plan.Pair{Copies: []plan.Copy{
		{Site: plan.Site{Call: "cudaMemcpy", Bytes: 4 << 20}, Direction: "d2h", PerIteration: 1, MS: 3.4, CallMS: 3.4, Waited: 1},
		{Site: plan.Site{Call: "cudaMemcpyAsync", Bytes: 4 << 20}, Direction: "h2d", PerIteration: 1, MS: 0.02, CallMS: 0.02},
		{Site: plan.Site{Call: "cudaMemcpy", Bytes: 4 << 20}, Direction: "h2d", PerIteration: 1, MS: 2.7, CallMS: 2.75},
		{Site: plan.Site{Call: "cudaMemcpy", Bytes: 4 << 20}, Direction: "h2d", PerIteration: 1, MS: 0.61, CallMS: 3, Estimated: true, Waited: 1},
	}}
	pair.SumCopies(10)
	pair.TimedAlone(0, 2.1, 10)
	pair.TimedAlone(1, 2.2, 10)
	pair.TimedAlone(2, 3.5, 10)
	pair.TimedAlone(3, 0.76, 10)
	for i, want := range []struct {
		ms    float64
		timed bool
	}{{2.1, true}, {2.2, true}, {2.7, false}, {0.76, true}} {
		if c := pair.Copies[i]; c.MS != want.ms || c.Timed != want.timed {
			t.Errorf("copy %d (%s) after: %.3f ms, timed %v; want %.3f, %v", i, c.Site.Call, c.MS, c.Timed, want.ms, want.timed)
		}
	}
	if !near(pair.CopyMSPerIteration, 2.1+2.2+2.7+0.76) || pair.Estimated {
		t.Errorf("pair's copies: %.3f ms an iteration, estimated %v; want %.3f, not estimated",
			pair.CopyMSPerIteration, pair.Estimated, 2.1+2.2+2.7+0.76)
	}
}
