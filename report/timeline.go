package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/echo-uma/echo/internal/units"
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/planner"
	"github.com/echo-uma/echo/trace"
)

// What a bar of the timeline is.
const (
	kindCopy   = "copy"
	kindKernel = "kernel"
	kindMemset = "memset"
	kindSync   = "sync"
	kindKept   = "kept" // what an elided copy keeps: its wait for earlier GPU work
)

// How the plan treats a pair's copies.
const (
	treatElide = "elide" // a merge: the copies go
	treatPin   = "pin"   // pinned: the copies stay, their host side page-locked
)

// Bar is one call on the timeline, in nanoseconds from the iteration's start.
type Bar struct {
	Lane       string
	Start, End uint64
	Kind       string
	Label      string // what a tooltip says
	Pairs      string // the pairs copying at the call's site, space-separated: "p1 p3"
	Pinned     bool   // a copy whose host side the plan pins
	Elided     bool   // a copy the plan removes (drawn before only, or as the wait it keeps)
}

// Timeline is one iteration of the loop, as traced and as the plan leaves it.
type Timeline struct {
	Index, Of     int // which iteration (from 1) of how many the trace holds
	Before, After []Bar
	BeforeNS      uint64
	AfterNS       uint64
	Elided, Kept  int    // copies the plan removes, and of them those that keep a wait
	Pinned        int    // copies the plan keeps with a pinned host side
	What          string // what "after" shows: the deployed plan, or the prediction
	// Predicted is the forecast's headline for "after" (planner.ForecastFor): AfterNS is then
	// BeforeNS over its speed-up, the plan's one estimate scaled to this iteration, not the
	// picture's own length (which knows nothing of the link time a merged kernel's reads take
	// or of a pool's first touches). nil where nothing is served: AfterNS is the picture's.
	Predicted        *plan.Estimate
	Missing          string // why there is no timeline, when there is none
	SharedSiteCopies int    // copies left as they are because their site also serves pairs the plan keeps
	// NoLaunches: the trace did not probe kernel launches (traced without --launches), so
	// the lanes have none to draw whatever the program launched.
	NoLaunches bool
}

// siteKey matches a traced copy to a plan's copy site (as export does): module, offset, API
// and bytes; the ordinal is 0 for every copy site.
type siteKey struct {
	module string
	offset uint64
	call   string
	bytes  uint64
}

// sitePairs is what the plan says about the copies at one site.
type sitePairs struct {
	ids     []string
	treat   []string // per pair, treatElide, treatPin or ""
	waited  bool     // a copy here also waited for earlier GPU work: its transfer time is msEach
	msEach  float64  // the transfer time of one copy, as the plan estimates it
	repairs []plan.Repair
}

// treatment says what the plan does to a pair's copies: once calibrated, what deploy does
// (the enabled pairs, by the chosen strategy); before, what the plan's prediction assumes:
// the pairs its headline strategy (planner.ForecastFor) serves, merged or pinned as it serves them,
// so that the picture is of the strategy whose estimate the page states.
func treatment(p *plan.Plan, pair plan.Pair) string {
	s := p.Context.Strategy
	if calibrated(p) {
		if pair.Status != plan.StatusEnabled {
			return ""
		}
	} else if h := planner.ForecastFor(p).Headline; h != nil {
		s = h.Strategy
	}
	switch {
	case s == "" || pair.Status == plan.StatusRefused || !pair.Allows(s):
		return ""
	case s == plan.StrategyPinned:
		return treatPin
	}
	return treatElide
}

// calibrated reports whether calibration has decided the plan: it records the device it ran
// on, and moves every pair it measured on from validated.
func calibrated(p *plan.Plan) bool {
	if p.Context.GPU != "" || p.Context.Strategy != "" {
		return true
	}
	return slices.ContainsFunc(p.Pairs, func(pair plan.Pair) bool {
		return pair.Status == plan.StatusCalibrated || pair.Status == plan.StatusEnabled
	})
}

// copySites indexes the plan's copy sites.
func copySites(p *plan.Plan) map[siteKey]*sitePairs {
	out := map[siteKey]*sitePairs{}
	for _, pair := range p.Pairs {
		for _, c := range pair.Copies {
			k := siteKey{c.Site.Module, c.Site.Offset, c.Site.Call, c.Site.Bytes}
			sp := out[k]
			if sp == nil {
				sp = &sitePairs{}
				out[k] = sp
			}
			sp.waited = sp.waited || c.Estimated
			sp.msEach = max(sp.msEach, c.MS)
			sp.repairs = append(sp.repairs, c.Repair)
			if n := len(sp.ids); n > 0 && sp.ids[n-1] == pair.ID {
				continue // the pair copies at this site both ways
			}
			sp.ids = append(sp.ids, pair.ID)
			sp.treat = append(sp.treat, treatment(p, pair))
		}
	}
	return out
}

// site's treatment: elided only when every pair copying there is (the shim elides a copy
// between a pair's own buffers; a trace without the buffers cannot tell which pair a copy
// at a shared site served, so such a copy is drawn as it was).
func (sp *sitePairs) treatment() (treat string, shared bool) {
	first := sp.treat[0]
	for _, t := range sp.treat[1:] {
		if t != first {
			return "", true
		}
	}
	return first, false
}

// lanes: one per stream a call names, then one for the waits on the whole device or on an
// event, which belong to no stream.
const waitLane = "device and event waits"

func laneOf(e *trace.Event) string {
	switch e.Type {
	case trace.EventCUDADeviceSynchronize, trace.EventCUCtxSynchronize, trace.EventCUDAEventSynchronize:
		return waitLane
	case trace.EventCUDAStreamSynchronize, trace.EventCUStreamSynchronize:
		return streamLane(e.Addr) // the stream synchronized is the call's argument
	}
	return streamLane(e.Stream)
}

// streamLane names a stream's lane as the plan names the stream ("legacy", "0x55d0…").
func streamLane(s uint64) string {
	name := planner.StreamName(s)
	if strings.HasPrefix(name, "0x") {
		return "stream " + name
	}
	return name + " stream"
}

// label is what a bar's tooltip says about a call.
func label(c call) string {
	var b strings.Builder
	b.WriteString(c.Type.String())
	switch {
	case c.Type.IsCopy():
		fmt.Fprintf(&b, " %s %s", trace.Direction(c.Kind), units.Bytes(c.Bytes))
	case c.Type == trace.EventCUDAMemset || c.Type == trace.EventCUDAMemsetAsync:
		fmt.Fprintf(&b, " %s", units.Bytes(c.Bytes))
	case c.Type == trace.EventCUDALaunchKernel || c.Type == trace.EventCULaunchKernel:
		fmt.Fprintf(&b, " kernel %#x", c.Addr)
	}
	if c.Site.Module != "" || c.Site.Offset != 0 {
		fmt.Fprintf(&b, " at %s", c.Site)
	}
	return b.String()
}

// timeline draws the calls of one iteration, starting at start and lasting length, before
// and after the plan. After: each copy the plan elides is gone, except, where the copy also
// waited for earlier GPU work (the plan's estimated copies), the wait, which the shim keeps
// (DESIGN.md S2); every later call moves earlier by the time removed. This is a picture of
// what goes, not a second estimate: the iteration's length after is the plan's one estimate
// (Timeline.Predicted), and calibration measures.
func timeline(p *plan.Plan, calls []call, start, length uint64) *Timeline {
	sites := copySites(p)
	tl := &Timeline{BeforeNS: length}
	var removed [][2]uint64
	type planned struct {
		bar   Bar
		elide bool
		keep  uint64 // of an elided copy: the wait kept, from its start
	}
	bars := make([]planned, 0, len(calls))
	for _, c := range calls {
		kind, _ := drawn(c.Type)
		end := min(c.ExitNS, start+length)
		if c.ExitNS < c.EnterNS {
			end = c.EnterNS // clocks out of order: a mark
		}
		b := planned{bar: Bar{Lane: laneOf(&c.Event), Start: c.EnterNS - start, End: end - start, Kind: kind, Label: label(c)}}
		if sp := sites[siteKey{c.Site.Module, c.Site.Offset, c.Type.String(), c.Bytes}]; kind == kindCopy && sp != nil {
			b.bar.Pairs = strings.Join(sp.ids, " ")
			treat, shared := sp.treatment()
			b.bar.Label += " [" + strings.Join(sp.ids, ", ") + "]"
			switch {
			case shared:
				tl.SharedSiteCopies++
			case treat == treatElide:
				b.elide, b.bar.Elided = true, true
				dur := b.bar.End - b.bar.Start
				if transfer := uint64(sp.msEach * 1e6); sp.waited && transfer < dur {
					b.keep = dur - transfer
				}
				removed = append(removed, [2]uint64{b.bar.Start + b.keep, b.bar.End})
			case treat == treatPin:
				b.bar.Pinned = true
				tl.Pinned++
			}
		}
		bars = append(bars, b)
	}
	shift := shifter(removed)
	for _, b := range bars {
		tl.Before = append(tl.Before, b.bar)
		after := b.bar
		after.Start, after.End = shift(b.bar.Start), shift(b.bar.End)
		if b.elide {
			tl.Elided++
			if b.keep == 0 {
				continue
			}
			tl.Kept++
			after.Kind, after.Pinned, after.Elided = kindKept, false, false
			after.Label = "wait kept where the copy went: " + b.bar.Label
		} else if b.bar.Pinned {
			after.Label += " (host side pinned)"
		}
		tl.After = append(tl.After, after)
	}
	tl.AfterNS = shift(length)
	if f := planner.ForecastFor(p); f.Headline != nil && tl.Elided+tl.Pinned > 0 {
		tl.Predicted = f.Headline
		tl.AfterNS = uint64(float64(length) / f.Headline.Speedup)
	}
	return tl
}

// shifter maps a time of the iteration as traced to the time after the removed intervals
// are cut out: every time moves earlier by the removed time before it. Intervals of calls on
// different threads may overlap, and are merged first, so time is not removed twice.
func shifter(removed [][2]uint64) func(uint64) uint64 {
	slices.SortFunc(removed, func(a, b [2]uint64) int {
		switch {
		case a[0] < b[0]:
			return -1
		case a[0] > b[0]:
			return 1
		}
		return 0
	})
	var merged [][2]uint64
	for _, r := range removed {
		if n := len(merged); n > 0 && r[0] <= merged[n-1][1] {
			merged[n-1][1] = max(merged[n-1][1], r[1])
			continue
		}
		merged = append(merged, r)
	}
	return func(t uint64) uint64 {
		cut := uint64(0)
		for _, r := range merged {
			if r[0] >= t {
				break
			}
			cut += min(t, r[1]) - r[0]
		}
		return t - cut
	}
}
