package export

import (
	"fmt"
	"strings"

	"github.com/echo-uma/echo/internal/units"
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/trace"
)

// statusColours are the trace-viewer colour names ("cname") given to a pair's copies by the
// pair's status. chrome://tracing honours them; Perfetto deliberately ignores cname
// (google/perfetto#208, #624) and colours a slice by its name, which for a pair's copy
// carries the pair, so those copies stand apart there too.
var statusColours = map[plan.Status]string{
	plan.StatusCandidate:  "good",
	plan.StatusValidated:  "rail_response",
	plan.StatusCalibrated: "cq_build_running",
	plan.StatusEnabled:    "cq_build_passed",
	plan.StatusRefused:    "bad",
}

// siteKey is what matches a copy to a pair's copy site: the site the planner gave it
// (module path, offset in it, API called, bytes), without the ordinal, which is 0 for every
// copy site.
type siteKey struct {
	module string
	offset uint64
	call   trace.EventType
	bytes  uint64
}

// pairMark is how the copies at one site are marked. Several pairs share a site when one
// function copies for each (the same return address moves different buffers): a trace
// streamed without an allocation map cannot tell which, so the mark names them all.
type pairMark struct {
	ids    string // "p1", or "p1,p3"
	status string // "candidate", or "candidate,refused" in the order of ids
	label  string // appended to the slice name: " [p1 candidate]"
	cname  string
}

// pairIndex finds the pair marks of copies by site.
type pairIndex map[siteKey]*pairMark

// newPairIndex indexes the copy sites of every pair of a plan.
func newPairIndex(p *plan.Plan) pairIndex {
	calls := map[string]trace.EventType{}
	for t := range trace.EventType(0x100) {
		if t.Known() {
			calls[t.String()] = t
		}
	}
	type entry struct {
		ids, statuses, labels []string
		best                  plan.Status
	}
	entries := map[siteKey]*entry{}
	var order []siteKey
	for _, pair := range p.Pairs {
		for _, c := range pair.Copies {
			call, ok := calls[c.Site.Call]
			if !ok {
				continue // no event of the trace can match it
			}
			k := siteKey{c.Site.Module, c.Site.Offset, call, c.Site.Bytes}
			e := entries[k]
			if e == nil {
				e = &entry{}
				entries[k] = e
				order = append(order, k)
			}
			if len(e.ids) > 0 && e.ids[len(e.ids)-1] == pair.ID {
				continue // the pair copies at this site in both directions
			}
			e.ids = append(e.ids, pair.ID)
			e.statuses = append(e.statuses, string(pair.Status))
			e.labels = append(e.labels, pair.ID+" "+string(pair.Status))
			if rank(pair.Status) > rank(e.best) {
				e.best = pair.Status
			}
		}
	}
	idx := pairIndex{}
	for _, k := range order {
		e := entries[k]
		colour, ok := statusColours[e.best]
		if !ok {
			colour = statusColours[plan.StatusRefused]
		}
		idx[k] = &pairMark{
			ids:    strings.Join(e.ids, ","),
			status: strings.Join(e.statuses, ","),
			label:  " [" + strings.Join(e.labels, ", ") + "]",
			cname:  colour,
		}
	}
	return idx
}

// rank orders statuses by how far a pair got, refused (and unknown) lowest: a site shared by
// pairs is coloured by the one that got furthest.
func rank(s plan.Status) int {
	switch s {
	case plan.StatusCandidate:
		return 1
	case plan.StatusValidated:
		return 2
	case plan.StatusCalibrated:
		return 3
	case plan.StatusEnabled:
		return 4
	}
	return 0
}

// lookup finds the mark of a copy whose call site resolved to site.
func (idx pairIndex) lookup(site trace.Site, t trace.EventType, bytes uint64) *pairMark {
	if len(idx) == 0 {
		return nil
	}
	return idx[siteKey{site.Module, site.Offset, t, bytes}]
}

// pairSummary is one line about a pair for the export's metadata: what a user needs to
// read the highlighted copies without opening the plan.
func pairSummary(p plan.Pair) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s pair, %s", p.Status, p.Direction, units.AppendBytes(nil, p.Bytes))
	fmt.Fprintf(&b, ", %d copy %s", len(p.Copies), plural(len(p.Copies), "site", "sites"))
	for _, c := range p.Copies {
		site := trace.Site{Module: c.Site.Module, Offset: c.Site.Offset}
		fmt.Fprintf(&b, " (%s %s at %s)", c.Site.Call, c.Direction, site)
	}
	fmt.Fprintf(&b, ", f_copy %.1f%%, Amdahl bound %.2fx", 100*p.FCopy, p.PredictedSpeedup)
	if p.Reason != "" {
		fmt.Fprintf(&b, "; refused: %s", p.Reason)
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
