package live

import (
	"time"

	"github.com/echo-uma/echo/internal/procfs"
	"github.com/echo-uma/echo/internal/shell"
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/symbols"
	"github.com/echo-uma/echo/trace"
)

// topSites is how many copy sites a row's detail lists.
const topSites = 5

// row turns an interval's statistics into the process's row; secs is the interval's length;
// lost the events the tracer lost, every process together; names names its copy sites.
func (p *process) row(st *trace.Stats, secs float64, lost uint64, names *symbols.Resolver) Row {
	// Quoted: a command line is whatever the program was given, and the view, the table and
	// a terminal reading the JSON must not receive its escape sequences raw.
	r := Row{PID: p.pid, Comm: p.comm(), Command: shell.Join(p.command),
		Lost: lost, Events: st.Events, Totals: p.totals, Libraries: p.libraries(), NoLaunches: st.NoLaunches}
	r.Detail = Detail{PairList: p.plan.pairs, PredictedSpeedup: p.plan.speedup, Optimize: optimizeHint(p.command, p.cwd, p.plan.iterMS, p.timings)}
	for _, pair := range p.plan.pairs {
		if pair.Status == plan.StatusCandidate {
			r.Pairs++
		}
	}
	if secs <= 0 {
		return r
	}
	copies := st.Copies.H2D + st.Copies.D2H + st.Copies.D2D + st.Copies.H2H
	bytes := st.Bytes.H2D + st.Bytes.D2H + st.Bytes.D2D + st.Bytes.H2H
	r.CopiesPerS = float64(copies) / secs
	r.CopyBytesPerS = float64(bytes) / secs
	r.H2DBytesPerS = float64(st.Bytes.H2D) / secs
	r.D2HBytesPerS = float64(st.Bytes.D2H) / secs
	// The summary's share is of the time from its first event to its last; the row's is of
	// the whole interval. It counts what copies spent moving data, not the time a
	// synchronous copy waited for earlier kernels (the planner's estimate): a kernel-bound
	// program is not copy-bound because its copies wait.
	share := st.CopyShare
	if st.MovingShare != nil {
		share = *st.MovingShare
	}
	r.CopyShare = min(1, share*float64(st.WallNS)/1e9/secs)
	r.LaunchesPerS = float64(launches(st)) / secs
	for _, s := range st.TopSites[:min(topSites, len(st.TopSites))] {
		ns := s.NS
		if s.MovingNS != nil {
			ns = *s.MovingNS // as COPY%: moving data, not waiting for kernels
		}
		r.Detail.TopSites = append(r.Detail.TopSites, Site{Site: s.Site, API: s.API, Direction: s.Direction,
			BytesPerCopy: s.Bytes / max(1, s.Count), PerS: float64(s.Count) / secs, Share: float64(ns) / 1e9 / secs,
			Symbol: p.siteSymbol(names, s)})
	}
	return r
}

// siteSymbol names a copy site's code. The module is opened through the process's root, as
// the tracer finds it: a process in a container maps its own files.
func (p *process) siteSymbol(names *symbols.Resolver, s trace.SiteStats) symbols.Symbol {
	if s.Module == "" {
		return symbols.Symbol{}
	}
	m := symbols.Module{Path: procfs.RootPath(p.pid, s.Module), BuildID: s.BuildID, Size: s.ModuleSize}
	sym, _ := names.Return(m, s.Offset)
	return sym
}

// launches counts the kernel launches of an interval, runtime and driver.
func launches(st *trace.Stats) uint64 {
	return st.Calls["cudaLaunchKernel"] + st.Calls["cuLaunchKernel"]
}

// errorRow is the row of a process that could not be traced.
func errorRow(pid int, comm string, err error) Row {
	return Row{PID: pid, Comm: comm, Error: err.Error(), Detail: Detail{PredictedSpeedup: 1}}
}

// seconds is the length of an interval.
func seconds(from, to time.Time) float64 { return to.Sub(from).Seconds() }
