package live

import "github.com/echo-uma/echo/trace"

// Totals are what a process did since it was attached. The row's rates forget each interval;
// a counter (echoctl attach --metrics) must not, so every interval the sampler reads is
// added here too.
type Totals struct {
	Copies   trace.PerDirection `json:"copies"`   // successful copy calls
	Bytes    trace.PerDirection `json:"bytes"`    // moved by successful copies
	CopyNS   trace.PerDirection `json:"copy_ns"`  // inside successful copy calls, entry to return
	Launches uint64             `json:"launches"` // kernel launches, runtime and driver
}

// add counts one interval's statistics.
func (t *Totals) add(st *trace.Stats) {
	t.Copies = t.Copies.Plus(st.Copies)
	t.Bytes = t.Bytes.Plus(st.Bytes)
	t.CopyNS = t.CopyNS.Plus(st.CopyNS)
	t.Launches += launches(st)
}

// interval ends the process's current interval and returns its statistics, added to the
// totals. The caller holds p.mu.
func (p *process) interval() *trace.Stats {
	st := p.sum.Interval()
	p.totals.add(st)
	return st
}
