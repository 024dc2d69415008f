package validate

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/planner"
	"github.com/echo-uma/echo/runner"
)

// maxResolved is how many pairs one resolve run takes (the shim's MAX_PAIRS): the ones with
// the most copy time first.
const maxResolved = 64

// toResolve are the candidates a resolve run has something to learn of: a side the trace
// did not see allocated, or an asynchronous copy whose transfer the trace could not time
// (untimedAsync), which only a run that times it alone can price.
func toResolve(p *plan.Plan) []plan.Pair {
	var out []plan.Pair
	for _, pair := range Candidates(p) {
		if pair.Host.Unresolved || pair.Device.Unresolved || slices.ContainsFunc(pair.Copies, untimedAsync) {
			out = append(out, pair)
		}
	}
	slices.SortStableFunc(out, func(a, b plan.Pair) int { return cmp.Compare(b.CopyMSPerIteration, a.CopyMSPerIteration) })
	return out[:min(len(out), maxResolved)]
}

// Resolves reports whether validating p starts with a resolve run (toResolve).
func Resolves(p *plan.Plan) bool { return len(toResolve(p)) > 0 }

// untimedAsync: an asynchronous copy no run has timed alone, whose call's time in the trace
// is not its transfer. One that returned before its copy ran (RepairNone) held only the
// issue. One to pageable memory returned once done (RepairEventWait), so its call also held
// the wait for its stream's earlier work, which the trace times whole: ResNet-50's 128 kB
// logits copy took 1.8 ms on the H200, the end of the forward pass it waited for. (A
// synchronous copy's wait the planner tells apart itself, from launches or the rates of
// copies that waited for nothing: copyclock.go.)
func untimedAsync(c plan.Copy) bool {
	async := c.Repair == plan.RepairNone || c.Repair == plan.RepairEventWait && c.AsyncCall()
	return async && !c.Timed
}

// resolve runs the program once with the shim noting where the buffers of pairs (toResolve)
// were allocated and timing their linking copies alone (shim/resolve.c), and folds that into
// the plan.
func resolve(ctx context.Context, p *plan.Plan, pairs []plan.Pair, argv []string, stdio runner.IO) (runner.Result, error) {
	res, err := shimRun(ctx, p, pairs, plan.ModeResolve, argv, stdio, "while its buffers were resolved", "resolving buffers")
	if err != nil {
		return res, err
	}
	ApplyResolved(p, res.Report, sameRun(p, argv))
	return res, nil
}

// sameRun reports whether argv runs the program as it was traced from its start: then the
// copies the trace saw are the copies the resolve run makes.
func sameRun(p *plan.Plan, argv []string) bool {
	cmd := p.Trace.Command
	return !p.Trace.Attached && len(cmd) == len(argv) && filepath.Base(cmd[0]) == filepath.Base(argv[0]) &&
		slices.Equal(cmd[1:], argv[1:])
}

// ApplyResolved gives each unresolved side the allocation site its copies pointed at, and
// narrows the pair's strategies by what the run saw: a fresh buffer each iteration, or a
// block of a larger allocation, is for pinned alone; a host buffer that is no allocation of
// its own is for none. When the run was the traced one (same, the same arguments from the
// start), a pair whose copies the shim saw fewer of than the trace did is refused.
func ApplyResolved(p *plan.Plan, report runner.Report, same bool) {
	seen := map[string]runner.PairReport{}
	for _, r := range report.Pairs {
		if len(r.Resolved) == 2 {
			seen[r.ID] = r
		}
	}
	traced := siteCounts(p)
	timed, declined := false, 0.0
	for i := range p.Pairs {
		pair := &p.Pairs[i]
		r, ok := seen[pair.ID]
		if !ok || pair.Status != plan.StatusCandidate {
			continue
		}
		if r.Copies == 0 {
			pair.Evidence = append(pair.Evidence, "not resolved: the run never made this pair's linking copies")
			continue
		}
		if want := traced.of(pair); same && 10*r.Copies < 9*want {
			// Copies the shim does not see, it can neither elide nor wait for.
			pair.Refuse(plan.StageResolve, fmt.Sprintf("resolve: the shim saw %d of the %d copies the trace saw at this pair's sites: "+
				"the others go through an entry point it does not hook", r.Copies, want))
			continue
		}
		if pair.Pending() && !resolveStaging(pair, r, p.Loop.MS) {
			continue
		}
		if pair.Host.Unresolved {
			resolveSide(pair, &pair.Host, "host", r.Resolved[0])
		}
		if pair.Device.Unresolved && pair.Status == plan.StatusCandidate {
			resolveSide(pair, &pair.Device, "device", r.Resolved[1])
		}
		declined += learnWaits(pair, r.CopyWaits, report.Launches, p.Loop.MS)
		timed = timed || slices.ContainsFunc(r.CopyWaits, func(w runner.CopyWaits) bool { return w.Timed > 0 })
		if pair.Status == plan.StatusCandidate && !pair.Merges() && !pair.Host.Unresolved {
			pair.Validate(fmt.Sprintf("pinned: its host buffers are allocated at %s; pinned keeps every copy and "+
				"changes nothing the program reads, so no watch run is needed", pair.Host.Site.Name()))
		}
	}
	if rest := medianMS(report.UntimedNS); timed && rest > 0 {
		p.Loop.RestMS = rest + declined
		p.Loop.DrainMS = min(medianMS(report.DrainedNS), rest)
		p.Loop.DrainOverlap = drainOverlap(report)
	}
	planner.Recount(p)
}

// drainOverlap is how many streams' worth of kernels the run's drains waited for (their
// total over the iterations the run marked but the first, over their longest chain on one
// stream): chunked's four streams, one kernel each, drained one at a time, 4; multistream's
// fold, which waits for its first stream's scale on the second's, 1.5 (three kernels, two of
// them in a chain). 0 where no drain waited, or the run did not say (a shim from before it
// did).
func drainOverlap(report runner.Report) float64 {
	var total uint64
	for _, ns := range report.DrainedNS[min(1, len(report.DrainedNS)):] {
		total += ns
	}
	if total == 0 || report.DrainedChainNS == 0 {
		return 0
	}
	return max(float64(total)/float64(report.DrainedChainNS), 1)
}

// medianMS is the median of the iterations the run timed, in ms; 0 for fewer than three
// (the first, cold, would be half of them).
func medianMS(ns []uint64) float64 {
	if len(ns) < 3 {
		return 0
	}
	s := slices.Sorted(slices.Values(ns))
	return float64(s[len(s)/2]) / 1e6
}

// learnWaits takes from the resolve run how long each of the pair's copy sites takes alone,
// where it timed them, and which waited for no GPU work: those whose every copy the shim
// saw made with none outstanding. The latter only from a run that saw device work at all:
// launches through an entry point the shim does not hook it cannot count, and a run that saw
// none tells nothing. A synchronous copy that waited for nothing keeps the trace's time: its
// calls held their transfer and nothing else, in the traced run, whose iteration the
// prediction divides (stream's 64 MiB upload on the H200: 10.28 ms a call in the trace, 9.47
// alone in the resolve run, a run apart).
// The report's waits follow the run's copy lines (plan.ResolveSites): each goes to every
// copy of the pair at its site (a chunked pair's chunks, which share one). It returns the
// time an iteration of the run spent in copies it timed whose timing the plan did not take
// (TimedAlone keeps a synchronous copy's trace time): the run's rest left them out, and the
// plan prices them as copies the rest still holds (Loop.RestMS).
func learnWaits(pair *plan.Pair, waits []runner.CopyWaits, launches int, msPerIteration float64) (declined float64) {
	sites := plan.ResolveSites(*pair)
	for k, w := range waits[:min(len(waits), len(sites))] {
		site := pair.Copies[sites[k]].Site
		for i := range pair.Copies {
			if pair.Copies[i].Site != site {
				continue
			}
			clean := launches > 0 && w.Clean > 0 && w.Busy == 0
			if clean {
				pair.WaitedForNothing(i, msPerIteration)
			}
			if w.Timed > 0 && w.TransferNS > 0 {
				// A synchronous copy that waited for nothing keeps its call's time: the call
				// was all transfer, in the run whose iteration the prediction divides.
				if !clean || pair.Copies[i].AsyncCall() {
					pair.TimedAlone(i, w.TransferNS/1e6, msPerIteration)
				}
				if c := pair.Copies[i]; !c.Timed {
					declined += w.TransferNS / 1e6 * c.PerIteration
				}
			}
		}
	}
	return declined
}

// copyCounts are the copies the trace saw at each copy site, over every pair.
type copyCounts map[plan.Site]int

func siteCounts(p *plan.Plan) copyCounts {
	counts := copyCounts{}
	for _, pair := range p.Pairs {
		for _, c := range pair.Copies {
			counts[c.Site] += c.Count
		}
	}
	return counts
}

// of is how many copies the trace saw at the pair's sites (the shim, which sees no
// direction, counts a pair's copies at every one of its sites).
func (cs copyCounts) of(pair *plan.Pair) int {
	n, seen := 0, map[plan.Site]bool{}
	for _, c := range pair.Copies {
		if !seen[c.Site] {
			seen[c.Site] = true
			n += cs[c.Site]
		}
	}
	return n
}

// resolveStaging takes what the run saw of a staged pair's staging (planner/staging.go): the
// host-to-host copy between the framework's page-locked buffer and the program's, whose
// buffer the run resolved as the host side (resolveSide takes it from there). Without one,
// the page-locked buffer is the program's own, already pinned, and the pair is refused.
func resolveStaging(pair *plan.Pair, r runner.PairReport, msPerIteration float64) bool {
	via := pair.Staging.Via
	st := r.Staging
	if st == nil || st.Copies == 0 {
		refuse(pair, fmt.Sprintf("no host-to-host copy of its size filled or emptied its page-locked host buffer (%s at %s) "+
			"around the %d linking copies the run saw: the program fills that buffer itself, so it is already pinned memory, "+
			"and a merge is refused too (%s)", via.Call, via.Name(), r.Copies, pair.MergeRefused))
		return false
	}
	copySite := site(runner.ResolvedSide{Module: st.Module, Path: st.Path, Offset: st.Offset, Call: st.Call, Bytes: pair.Bytes})
	pair.StagedBy(copySite, st.Copies, r.Copies, st.NS/1e6, msPerIteration)
	missing := ""
	if st.Missing > 0 {
		missing = fmt.Sprintf("; %d went without one (the framework copied those from or to page-locked memory directly)", st.Missing)
	}
	pair.Evidence = append(pair.Evidence, fmt.Sprintf("staged by %s at %s: %d of the %d linking copies the run saw went "+
		"through the framework's buffer (%s at %s), %.3f ms each on the CPU%s; the pair is the program's buffer and the "+
		"device's", copySite.Call, copySite.Name(), st.Copies, r.Copies, via.Call, via.Name(), st.NS/1e6, missing))
	return true
}

// resolveSide fills in one side from what the run saw of it.
func resolveSide(pair *plan.Pair, b *plan.Buffer, side string, r runner.ResolvedSide) {
	if !r.Found {
		why := fmt.Sprintf("the %s side is no allocation of its own: its copies point inside a larger buffer, "+
			"or at static or stack memory", side)
		if side == "device" {
			b.Block = true
			drop(pair, plan.MergeStrategies, why)
			return
		}
		refuse(pair, why)
		return
	}
	b.Site = site(r)
	b.Unresolved = false
	b.Allocations = r.Allocations
	b.SiteAllocations = r.SiteAllocations
	b.FreshAllocations = r.SiteFresh
	b.SmallPages = r.SmallPages
	b.Kind = kindOf(r.Call, side)
	where := b.Site.Name()
	switch {
	case r.Allocations > 1:
		pair.Evidence = append(pair.Evidence, fmt.Sprintf("the %s side is a fresh allocation at %s each time (%d linked in one run)",
			side, where, r.Allocations))
		drop(pair, plan.MergeStrategies, fmt.Sprintf("the %s side is allocated afresh at %s (%d allocations linked in one run): "+
			"one merged buffer cannot stand for them", side, where, r.Allocations))
	case r.OtherSites:
		drop(pair, plan.MergeStrategies, fmt.Sprintf("the %s buffers its copies link come from more than one allocation site", side))
	case r.Threads && (r.ChainThreads || len(r.Chain) == 0 || r.ChainOrdinal >= r.ChainCalls):
		drop(pair, plan.MergeStrategies, fmt.Sprintf("%s at %s allocates from several threads, and so does its call chain: "+
			"which call is which depends on how the threads interleave, so neither can name one buffer", b.Site.Call, where))
	case r.Threads:
		// One thread calls this chain: it names the buffer whatever the other threads do
		// at the site, and the validate run and the deployed one match the slot by it.
		b.Identity = &plan.Identity{Ordinal: r.ChainOrdinal, Calls: r.ChainCalls}
		for _, f := range r.Chain {
			b.Identity.Chain = append(b.Identity.Chain, plan.Frame{Module: f.Module, Offset: f.Offset})
		}
		pair.Evidence = append(pair.Evidence, fmt.Sprintf("%s at %s allocates from several threads, but one thread alone "+
			"calls it from the %s buffer's call chain, which names it", b.Site.Call, where, side))
	}
	if side == "host" && b.Kind != plan.KindPageable {
		drop(pair, []plan.Strategy{plan.StrategyPinned}, "the host side is already "+string(b.Kind)+" memory")
	}
}

// drop takes strategies from the pair, refusing it when none is left.
func drop(pair *plan.Pair, strategies []plan.Strategy, why string) {
	keep := slices.DeleteFunc(slices.Clone(pair.Strategies), func(s plan.Strategy) bool { return slices.Contains(strategies, s) })
	if len(keep) == 0 {
		refuse(pair, why)
		return
	}
	if !slices.ContainsFunc(keep, func(s plan.Strategy) bool { return slices.Contains(plan.MergeStrategies, s) }) {
		pair.OnlyPinned(why)
	}
	pair.Strategies = keep
}

func refuse(pair *plan.Pair, why string) {
	pair.Refuse(plan.StageResolve, "resolve: "+why)
}

// site is the planner's site for what the shim reported: its module is a build-id, or
// size:N:NAME for a file without one.
func site(r runner.ResolvedSide) plan.Site {
	s := plan.Site{Module: r.Path, Offset: r.Offset, Call: r.Call, Bytes: r.Bytes, Ordinal: r.Ordinal}
	if rest, ok := strings.CutPrefix(r.Module, "size:"); ok {
		size, _, _ := strings.Cut(rest, ":")
		s.ModuleSize, _ = strconv.ParseInt(size, 10, 64)
	} else {
		s.BuildID = r.Module
	}
	if s.Call == "operatornew[]" {
		s.Call = "operator new[]"
	}
	return s
}

// kindOf is the memory a resolved side's allocating call hands out (planner.KindOf); a
// device side's call the planner does not know as managed memory is device memory.
func kindOf(call, side string) plan.MemKind {
	k := planner.KindOf(call)
	if side == "device" && k != plan.KindManaged {
		return plan.KindDevice
	}
	return k
}
