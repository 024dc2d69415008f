package plan

import (
	"fmt"
)

// WaitedForNothing records that a run with the shim saw every copy at the pair's copy site i
// made with no GPU work outstanding (shim/busy.c): none of its calls waited, so each moved
// data from start to end. A trace without launch events cannot tell a call's wait from its
// transfer (bandwidth.go): where it took part of the call for a wait, it estimated the
// transfer from other copies' rate, which for a large pageable copy, slower per byte than a
// small one, is far too short. The copy's time is then its call's, and the pair's copy time
// and share of the loop are counted again (SumCopies sums them).
func (pair *Pair) WaitedForNothing(i int, msPerIteration float64) {
	cp := &pair.Copies[i]
	if cp.Waited == 0 && !cp.Estimated {
		return
	}
	cp.Waited = 0
	if cp.Estimated && cp.CallMS > cp.MS {
		cp.MS, cp.Estimated = cp.CallMS, false
	}
	pair.SumCopies(msPerIteration)
	pair.Evidence = append(pair.Evidence, fmt.Sprintf("%s at %s waited for no GPU work in the resolve run "+
		"(none outstanding at any of its copies): its whole call, %.3f ms, moves data", cp.Site.Call, cp.Site.Name(), cp.MS))
}

// TimedAlone records a resolve run's timing of the pair's copy site i alone (shim/resolve.c):
// ms, its transfer. It replaces the trace's figure, which for a call that also waited for
// kernels holds the wait (or an estimate from other copies' rate), and for an asynchronous
// copy only the call's return (its transfer runs on the stream after it). A synchronous copy
// timed longer alone than its calls took in the trace keeps the trace's figure: its call
// held the transfer whole, and a timing alone, after the device drained, adds what waking
// from the drain costs (the emulator's `background` D2H, timed after its own stream alone,
// waited for the legacy stream's blocking streams too).
func (pair *Pair) TimedAlone(i int, ms, msPerIteration float64) {
	cp := &pair.Copies[i]
	before, call := cp.MS, cp.CallMS
	if call == 0 { // a plan from before Copy.CallMS
		call = before
	}
	if !cp.AsyncCall() && ms >= call {
		return
	}
	cp.MS, cp.Estimated, cp.Timed = ms, false, true
	pair.SumCopies(msPerIteration)
	pair.Evidence = append(pair.Evidence, fmt.Sprintf("%s at %s timed alone in the resolve run (its stream drained "+
		"first): %.3f ms a copy, against %.3f ms from the trace", cp.Site.Call, cp.Site.Name(), ms, before))
}
