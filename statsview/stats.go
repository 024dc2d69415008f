// Package statsview lays out a trace's statistics as echoctl stats prints them: warnings
// first (events lost, a truncated trace, calls that failed), then the calls, the copies by
// direction, the copy share and the top copy sites.
package statsview

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/echo-uma/echo/internal/shell"
	"github.com/echo-uma/echo/internal/texttable"
	"github.com/echo-uma/echo/internal/units"
	"github.com/echo-uma/echo/planview"
	"github.com/echo-uma/echo/trace"
)

// Print writes a trace's statistics (echoctl stats) as a few tables, warnings first.
func Print(out io.Writer, path string, r *trace.Reader, st *trace.Stats, readErr error) {
	h := r.Header()
	footer, hasFooter := r.Footer()
	ran := time.Duration(st.WallNS)
	if hasFooter && footer.EndMonoNS > h.StartMonoNS && h.StartMonoNS > 0 {
		ran = time.Duration(footer.EndMonoNS - h.StartMonoNS)
	}
	fmt.Fprintf(out, "%s: %s (pid %d) on %s, started %s, ran %s, %d events\n", path,
		shell.Join(h.Command), h.PID, h.Host, h.Start.Format("2006-01-02 15:04:05 MST"),
		texttable.FormatDuration(ran), st.Events)
	if st.Lost > 0 {
		cpus := 0
		for _, n := range st.LostPerCPU {
			if n > 0 {
				cpus++
			}
		}
		fmt.Fprintf(out, "WARNING: %d EVENTS LOST (the ring buffer was full, on %d of %d CPUs): every number "+
			"below is short; trace again with a larger --ring-size\n", st.Lost, cpus, len(st.LostPerCPU))
	}
	switch {
	case readErr != nil:
		fmt.Fprintf(out, "WARNING: the trace is incomplete (%v): the numbers below cover what was readable\n", readErr)
	case footer.Truncated != "":
		fmt.Fprintf(out, "WARNING: THE TRACE IS TRUNCATED (%s): recording stopped while the program ran on; "+
			"the numbers below cover its beginning only\n", footer.Truncated)
	case !footer.Complete:
		fmt.Fprintln(out, "WARNING: the tracer did not stop cleanly: events at the end may be missing")
	}
	for _, line := range failedLines(st) {
		fmt.Fprintf(out, "WARNING: %s\n", line)
	}
	if h.Attached {
		fmt.Fprintln(out, "note: attached to a running process: allocations made before the attach are missing")
	}

	apis := make([]string, 0, len(st.Calls))
	for api := range st.Calls {
		apis = append(apis, api)
	}
	slices.SortFunc(apis, func(a, b string) int { return cmp.Or(cmp.Compare(st.Calls[b], st.Calls[a]), cmp.Compare(a, b)) })
	calls := texttable.Columns{Headers: []string{"API", "CALLS"}}
	for _, api := range apis {
		calls.Rows = append(calls.Rows, []string{api, strconv.FormatUint(st.Calls[api], 10)})
	}
	fmt.Fprint(out, "\n"+calls.Render())
	if st.NoLaunches {
		fmt.Fprintln(out, "kernel launches: not traced (trace with --launches to count them)")
	}

	copies := texttable.Columns{Headers: []string{"COPIES", "CALLS", "BYTES", "TIME"}}
	for _, kind := range []uint32{trace.KindHostToDevice, trace.KindDeviceToHost, trace.KindDeviceToDevice, trace.KindHostToHost} {
		copies.Rows = append(copies.Rows, []string{trace.Direction(kind), strconv.FormatUint(st.Copies.Get(kind), 10),
			units.Bytes(st.Bytes.Get(kind)), texttable.FormatDuration(time.Duration(st.CopyNS.Get(kind)))})
	}
	fmt.Fprint(out, "\n"+copies.Render())

	fmt.Fprintf(out, "\ncopy share: %.1f%% of %s wall time inside copy calls", 100*st.CopyShare,
		texttable.FormatDuration(time.Duration(st.WallNS)))
	if st.MovingShare != nil && *st.MovingShare < st.CopyShare-0.0005 {
		fmt.Fprintf(out, ", %.1f%% moving data (the rest waited for earlier GPU work)", 100**st.MovingShare)
	}
	fmt.Fprintln(out)
	fmt.Fprintf(out, "threads: %d in %d %s\n", st.Threads, st.Processes, texttable.Plural(st.Processes, "process", "processes"))

	if len(st.TopSites) > 0 {
		sites := texttable.Columns{Headers: []string{"TOP COPY SITES", "API", "DIR", "CALLS", "BYTES", "TIME"}}
		for _, s := range st.TopSites {
			sites.Rows = append(sites.Rows, []string{planview.CopySiteLabel(s), s.API, s.Direction, strconv.FormatUint(s.Count, 10),
				units.Bytes(s.Bytes), texttable.FormatDuration(time.Duration(s.NS))})
		}
		fmt.Fprint(out, "\n"+sites.Render())
	}
}

// failedLines say, per CUDA API that returned errors, how many of its calls failed and with
// what: `cudaMemcpy: 79 of 80 calls failed (cudaErrorInvalidValue)`. A program whose calls
// fail does not run as written, and a plan of it would optimize the failure.
func failedLines(st *trace.Stats) []string {
	var lines []string
	for api, f := range st.Failed {
		errs := make([]string, 0, len(f.Errors))
		for name, n := range f.Errors {
			errs = append(errs, fmt.Sprintf("%s ×%d", name, n))
		}
		slices.Sort(errs)
		lines = append(lines, fmt.Sprintf("%s: %d of %d calls failed (%s)", api, f.Calls, st.Calls[api], strings.Join(errs, ", ")))
	}
	slices.Sort(lines)
	return lines
}
