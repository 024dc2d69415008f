package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/symbols"
	"github.com/echo-uma/echo/trace"
)

// SiteRow is the copy share of one copy site, in one direction.
type SiteRow struct {
	Site      string // module+offset
	API       string
	Direction string
	Calls     uint64
	Bytes     uint64 // moved by all its calls
	// TraceShare: of the traced run's wall time, the share a thread spent inside copy calls at
	// this site, waits for earlier GPU work included (what the trace measures); -1 without
	// a trace.
	TraceShare float64
	TraceMS    float64
	// PlanShare: of one iteration, the share the plan gives this site's copies (transfer
	// time only: a copy that also waited has its time estimated from its bytes); -1 where
	// the site links no pair.
	PlanShare float64
	Pairs     string // the pairs copying here
	Rejected  string // why the plan rejects the copies here, when it does
}

// directionKey finds a site's row: a trace summary's site is module+offset, API, direction.
type directionKey struct {
	module   string
	offset   uint64
	api, dir string
}

// siteRows joins the trace's copy statistics (when there is a trace) with what the plan
// says about each site: its share of an iteration, its pairs, or why its copies were
// rejected. Rows come most time first: the trace's order, or the plan's share without one.
func siteRows(p *plan.Plan, st *trace.Stats, names *symbols.Resolver) []SiteRow {
	var rows []SiteRow
	at := map[directionKey]int{}
	row := func(k directionKey, site string) *SiteRow {
		if i, ok := at[k]; ok {
			return &rows[i]
		}
		at[k] = len(rows)
		rows = append(rows, SiteRow{Site: site, API: k.api, Direction: k.dir, TraceShare: -1, PlanShare: -1})
		return &rows[len(rows)-1]
	}
	if st != nil {
		for _, s := range st.TopSites {
			r := row(directionKey{s.Module, s.Offset, s.API, s.Direction}, statSiteName(names, s))
			r.Calls, r.Bytes, r.TraceMS = s.Count, s.Bytes, float64(s.NS)/1e6
			r.TraceShare = 0
			if st.WallNS > 0 {
				r.TraceShare = float64(s.NS) / float64(st.WallNS)
			}
		}
	}
	for _, pair := range p.Pairs {
		for _, c := range pair.Copies {
			r := row(directionKey{c.Site.Module, c.Site.Offset, c.Site.Call, string(c.Direction)}, siteName(names, c.Site))
			if st == nil {
				r.Calls += uint64(c.Count)
				r.Bytes += uint64(c.Count) * c.Site.Bytes
			}
			if p.Loop.MS > 0 {
				r.PlanShare = max(r.PlanShare, 0) + c.MS*c.PerIteration/p.Loop.MS
			}
			if !slices.Contains(strings.Fields(r.Pairs), pair.ID) {
				r.Pairs = strings.TrimSpace(r.Pairs + " " + pair.ID)
			}
		}
	}
	for _, rej := range p.Rejected {
		r := row(directionKey{rej.Site.Module, rej.Site.Offset, rej.Site.Call, string(rej.Direction)}, siteName(names, rej.Site))
		if st == nil {
			r.Calls += uint64(rej.Count)
			r.Bytes += uint64(rej.Count) * rej.Site.Bytes
		}
		if !strings.Contains(r.Rejected, rej.Reason) {
			r.Rejected = strings.TrimPrefix(r.Rejected+"; "+rej.Reason, "; ")
		}
	}
	if st == nil {
		slices.SortStableFunc(rows, func(a, b SiteRow) int { return cmp.Compare(b.PlanShare, a.PlanShare) })
	}
	return rows
}

// siteName is a plan's site as a user reads it, like the trace's: "stream+0x1c8a", and
// with names (nil: none) the function and line its module names there.
func siteName(names *symbols.Resolver, s plan.Site) string {
	site := s.Name()
	if names == nil {
		return site
	}
	sym, _ := names.Return(symbols.Module{Path: s.Module, BuildID: s.BuildID, Size: s.ModuleSize}, s.Offset)
	return symbols.Label(site, sym)
}

// statSiteName is siteName for a copy site of the trace's statistics.
func statSiteName(names *symbols.Resolver, s trace.SiteStats) string {
	if names == nil {
		return s.Site
	}
	sym, _ := names.Return(symbols.Module{Path: s.Module, BuildID: s.BuildID, Size: s.ModuleSize}, s.Offset)
	return symbols.Label(s.Site, sym)
}

// percent formats a share; "–" for none.
func percent(share float64) string {
	if share < 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f%%", 100*share)
}
