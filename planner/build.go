package planner

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/trace"
)

const needsValidation = "needs validation: host reads and writes between the copies, and kernels " +
	"writing an input in place, are invisible to a trace"

// plan assembles the plan from what the pass gathered.
func (a *analysis) plan(path string, footer trace.Footer, tool string) *plan.Plan {
	a.settleChunks()
	found := a.loop()
	iterations, msPerIter, marker := found.iterations, found.ms, found.marker
	program := a.programPID(marker)
	p := &plan.Plan{
		Version: plan.Version, Created: time.Now().UTC(), Tool: tool,
		Trace: plan.Source{Path: path, Command: a.header.Command, PID: a.header.PID, Host: a.header.Host,
			Start: a.header.Start, Attached: a.header.Attached},
		Context:  a.context(program),
		Loop:     plan.Loop{Iterations: iterations, MS: msPerIter, Span: found.span, Confidence: found.confidence},
		Pairs:    []plan.Pair{},
		Rejected: []plan.Rejection{},
	}
	if marker != nil {
		site := marker.site
		p.Loop.Marker = &site
		p.Loop.MarkerEvery = a.markerEvery(marker, iterations)
	}
	sharing := map[int][]*pairAcc{} // device id, or -1-host id, to the pairs using it
	for _, pa := range a.order {
		sharing[pa.device.id] = append(sharing[pa.device.id], pa)
		sharing[-1-pa.host.id] = append(sharing[-1-pa.host.id], pa)
	}
	for _, pa := range a.order {
		pair := a.pairOf(pa, iterations, msPerIter)
		merge, pin := a.refusal(pa, iterations, sharing), a.pinRefusal(pa, iterations)
		if merge != "" && pin != "" && a.stageRefusal(pa, iterations) == "" {
			stage(&pair, merge) // a framework's own page-locked buffer, perhaps: staging.go
		} else {
			judge(&pair, merge, pin)
		}
		if pair.Merges() {
			a.nameByChain(&pair, pa) // a site several threads allocate at: screen.go
		}
		if other := a.otherProgram(int(pa.host.pid), p.Context.Executable); other != "" {
			pair.Refuse(plan.StagePlan, other)
		}
		p.Pairs = append(p.Pairs, pair)
	}
	Recount(p)
	for _, r := range a.rejected {
		p.Rejected = append(p.Rejected, *r)
	}
	slices.SortFunc(p.Rejected, func(x, y plan.Rejection) int { return cmp.Compare(y.Count, x.Count) })
	p.Notes = a.notes(footer, iterations)
	return p
}

// Recount sums the plan's share of the loop over the pairs that still count (plan.SumPairs),
// after their statuses changed, and predicts each strategy again. Where a pair needs it and the
// plan has none, it measures this host's first-touch rate (hostFirstTouch) and keeps it in
// the plan: the one host benchmark the plan's figures rest on lives here, not in plan/.
func Recount(p *plan.Plan) {
	p.SumPairs()
	if p.Context.FirstTouch == nil && needsFirstTouch(p) {
		p.Context.FirstTouch = new(hostFirstTouch()) // this host's, kept with the plan
	}
	p.Estimates = Predict(p, MachineFor(p.Context))
}

// pairOf fills in a pair's buffers, copies and share of the loop.
func (a *analysis) pairOf(pa *pairAcc, iterations int, msPerIter float64) plan.Pair {
	pair := plan.Pair{
		ID: pa.id(), Bytes: pa.host.size,
		Host:   plan.Buffer{Site: pa.host.site, Kind: pa.host.kind, Unresolved: pa.host.unresolved},
		Device: plan.Buffer{Site: pa.device.site, Kind: pa.device.kind, Unresolved: pa.device.unresolved},
		Copies: []plan.Copy{},
	}
	if len(pa.blocks) > 0 {
		pair.Device.Block, pair.Device.Offset = true, slices.Min(slices.Collect(maps.Keys(pa.blocks)))
	}
	in, out := false, false
	for _, c := range pa.order {
		ms, estimated, call := a.transferMS(c)
		perIter := 0.0
		if iterations > 0 {
			perIter = float64(c.count) / float64(iterations)
		}
		pair.Copies = append(pair.Copies, plan.Copy{Site: c.site, Offset: c.offset, Direction: plan.CopyDirection(c.dir), Stream: StreamName(c.stream),
			Count: c.count, PerIteration: perIter, MS: ms, Estimated: estimated, Waited: float64(c.waited) / float64(c.count),
			CallMS: call, Repair: plan.RepairOf(c.site.Call, c.dir, pa.host.kind)})
		pair.BytesPerIteration += uint64(perIter * float64(c.bytesEachCopy))
		in, out = in || c.dir == "h2d", out || c.dir == "d2h"
		if c.waited > 0 && c.dir == "d2h" {
			pair.Evidence = append(pair.Evidence, fmt.Sprintf("%s at %s is also the program's wait for the GPU: "+
				"a merge must keep that wait (DESIGN.md S2)", c.site.Call, c.site.Name()))
		}
	}
	if len(pa.order) == 0 { // only partial copies: the direction they went
		in, out = pa.partialDirs[0], pa.partialDirs[1]
	}
	pair.Direction = map[[2]bool]plan.PairDirection{{true, false}: "input", {false, true}: "output", {true, true}: "both"}[[2]bool{in, out}]
	pair.SumCopies(msPerIter)
	if pair.Estimated {
		pair.Evidence = append(pair.Evidence, "copy time partly estimated from bytes and the bandwidth of copies that waited for nothing")
	}
	if pa.async {
		pair.Evidence = append(pair.Evidence, "copied asynchronously: validation watches the host buffer in stream time, "+
			"until the host has waited for every launch that may follow the copy")
	}
	if m := pa.device.deviceMemset; m != "" && !in {
		pair.Evidence = append(pair.Evidence, fmt.Sprintf("the device buffer is also set with %s: merged, the host "+
			"buffer holds the memset's values from then until the copy, so validation keeps the host out from the "+
			"memset on", m))
	}
	return pair
}

// transferMS is how long one copy at this site moves data: its own duration where it waited
// for nothing, otherwise no more than its bytes take at the bandwidth seen elsewhere; and
// its mean call, wait included (Copy.CallMS).
func (a *analysis) transferMS(c *copyAcc) (ms float64, estimated bool, call float64) {
	clean, cleanNS, waited, waitedNS := c.clean, float64(c.cleanNS), c.waited, float64(c.waitedNS)
	if c.count >= minWarmCopies+1 { // leave out the first copy, which ran cold
		if c.firstWaited {
			waited, waitedNS = waited-1, waitedNS-float64(c.firstDuration)
		} else {
			clean, cleanNS = clean-1, cleanNS-float64(c.firstDuration)
		}
	}
	call = (cleanNS + waitedNS) / float64(clean+waited) / 1e6
	total := cleanNS
	if waited > 0 && a.clock.unwaitedSite(c.pid, c.caller, c.dir) {
		total, clean, waited = total+waitedNS, clean+waited, 0 // its copies waited for nothing after all
	}
	if waited > 0 {
		perCopy := waitedNS / float64(waited)
		if est, ok := a.clock.bw.nsFor(c.dir, c.bytesEachCopy); ok && est < perCopy {
			perCopy, estimated = est, true
		}
		total += perCopy * float64(waited)
	}
	return total / float64(clean+waited) / 1e6, estimated, call
}

func (a *analysis) notes(footer trace.Footer, iterations int) []string {
	var notes []string
	if a.header.Attached {
		notes = append(notes, "attached trace: allocations made before the attach are missing, so pairs are "+
			"identified by pointers, sizes and copy sites (sites unresolved); `echoctl validate` resolves them")
	}
	if n := a.failures.note(); n != "" {
		notes = append(notes, n)
	}
	if lost := footer.TotalLost(); lost > 0 {
		notes = append(notes, fmt.Sprintf("the trace lost %d events: pairs that look unstable or too rare may "+
			"only look so; trace again with a larger --ring-size", lost))
	}
	if iterations == 0 && len(a.order) > 0 {
		notes = append(notes, "no loop found: no linking copy recurs, so no copy share can be estimated")
	}
	if len(a.order) == 0 {
		notes = append(notes, "no copy links a host buffer and a device buffer as a whole: nothing to merge")
	}
	if len(a.pids) > 1 {
		notes = append(notes, fmt.Sprintf("the trace holds %d processes; buffers and pairs are per process", len(a.pids)))
	}
	if a.clock.bw.empty() && len(a.order) > 0 {
		notes = append(notes, "every copy waited for GPU work, so copy times include those waits and f_copy is an upper bound")
	}
	return notes
}
