package live

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/echo-uma/echo/internal/procfs"
	"github.com/echo-uma/echo/internal/shell"
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/planner"
	"github.com/echo-uma/echo/trace"
	"github.com/echo-uma/echo/tracer"
)

// process is one watched process: the shared tracer hands it its header when it joins,
// then its records, into the interval's summary and the window of recent events the live
// planner reads.
type process struct {
	pid     int
	command []string
	cwd     string // the process's working directory, for the optimize hint
	timings string // the hint's --ignore: what the executable's timing lines start with (timingIgnore)
	window  int    // events kept for the planner

	mu       sync.Mutex
	header   *trace.Header // nil until the process joined
	modules  []trace.Module
	sum      *trace.Summarizer
	totals   Totals        // every interval's statistics added up
	recent   []trace.Event // a ring of the last window events
	next     int           // where the ring's next event goes
	since    time.Time     // start of the current interval
	err      error         // why it could not be watched
	done     bool          // it could not be watched
	noCUDA   error         // Once: why no CUDA library was probed for it, nil when one was
	started  chan struct{} // closed once it joined (its probes are in place), or could not
	start    sync.Once
	plan     planResult
	planBusy bool
}

// planResult is what the last live planner run found.
type planResult struct {
	pairs   []Pair
	speedup float64
	iterMS  float64 // the loop's period, 0 when none was found
}

func newProcess(pid int, window int) *process {
	command := tracer.Cmdline(pid)
	// argv[0] may be relative to the process's directory: name the executable absolutely,
	// so that the optimize hint runs from anywhere.
	if exe, deleted, err := procfs.Exe(pid); err == nil && len(command) > 0 && !deleted {
		command[0] = exe
	}
	cwd, _ := procfs.Cwd(pid) // "" where it cannot be read: the hint leaves out the cd
	// The executable as the process maps it, whatever mount namespace it runs in.
	var timings string
	if len(command) > 0 {
		timings = timingIgnore("/proc/"+strconv.Itoa(pid)+"/exe", command[0])
	}
	return &process{pid: pid, command: command, cwd: cwd, timings: timings, window: window, plan: planResult{speedup: 1},
		started: make(chan struct{})}
}

// failed is a process the shared tracer cannot watch, with why: it shows as an error row for
// as long as it lives.
func failed(pid int, err error) *process {
	p := newProcess(pid, 0)
	p.done, p.err = true, err
	p.markStarted()
	return p
}

func (p *process) markStarted() { p.start.Do(func() { close(p.started) }) }

// outcome is whether the process could not be watched (it failed to join the shared tracer,
// or was refused before), and why; a process that joined is never done: it leaves on exit.
func (p *process) outcome() (done bool, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.done, p.err
}

// comm is the process's short name: its executable's base name.
func (p *process) comm() string {
	if len(p.command) == 0 {
		return ""
	}
	return shell.Quote(filepath.Base(p.command[0])) // shown in a terminal: no raw escapes
}

// watch joins the process to the shared tracer; when it cannot, it is done, with why.
func (p *process) watch(sh *tracer.Shared) {
	if err := sh.Join(p.pid, p.begin, p.add); err != nil {
		p.mu.Lock()
		p.done, p.err = true, err
		p.mu.Unlock()
	}
	p.markStarted()
}

// begin takes the process's header: the modules it mapped when it joined.
func (p *process) begin(h trace.Header) {
	p.mu.Lock()
	p.header, p.modules, p.since = &h, h.Modules, h.Start
	p.sum = trace.NewSummarizer(h, planner.NewTransferTimer(h))
	p.mu.Unlock()
}

func (p *process) add(rec trace.Record) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sum.Add(rec)
	switch {
	case rec.Module != nil:
		p.modules = append(p.modules, *rec.Module)
	case rec.Event != nil && len(p.recent) < p.window:
		p.recent = append(p.recent, *rec.Event)
	case rec.Event != nil:
		p.recent[p.next] = *rec.Event
		p.next = (p.next + 1) % p.window
	}
}

// libraries are the CUDA libraries the process maps, from the trace's modules.
func (p *process) libraries() []string {
	var libs []string
	for _, m := range p.modules {
		if strings.HasPrefix(filepath.Base(m.Path), "libcuda") && !slices.Contains(libs, m.Path) {
			libs = append(libs, m.Path)
		}
	}
	return libs
}

// snapshot returns what the planner needs: the header with the modules seen so far and the
// recent events in order. Nil before the header was read.
func (p *process) snapshot() (*trace.Header, []trace.Event) {
	if p.header == nil {
		return nil, nil
	}
	h := *p.header
	h.Modules = append([]trace.Module(nil), p.modules...)
	events := make([]trace.Event, 0, len(p.recent))
	events = append(events, p.recent[p.next:]...)
	events = append(events, p.recent[:p.next]...)
	return &h, events
}

// replan runs the planner over the recent events and keeps what it found.
func (p *process) replan(h *trace.Header, events []trace.Event) {
	res := runPlanner(h, events)
	p.mu.Lock()
	p.plan, p.planBusy = res, false
	p.mu.Unlock()
}

// runPlanner plans from an attached trace made of the header and events: the pairs it finds
// are identified by pointers and copy sites, as for any trace taken by attaching.
func runPlanner(h *trace.Header, events []trace.Event) planResult {
	none := planResult{speedup: 1}
	if len(events) == 0 {
		return none
	}
	plan, err := planner.Analyze(&recentRecords{header: *h, events: events}, "live", planner.DefaultOptions(), "echoctl attach")
	if err != nil {
		return none
	}
	res := planResult{speedup: liveSpeedup(plan)}
	if plan.Loop.Iterations > 0 {
		res.iterMS = plan.Loop.MS
	}
	for _, pair := range plan.Pairs {
		res.pairs = append(res.pairs, Pair{Direction: pair.Direction, Bytes: pair.Bytes,
			Speedup: pair.PredictedSpeedup, Status: pair.Status, Reason: pair.Reason})
	}
	return res
}

// liveSpeedup is the figure attach shows: the plan's forecast, as optimize, plan and the
// report print it (planner.ForecastFor), not the Amdahl bound, which showed 15–22× on loops that
// gained 1.1×; 1 when nothing is predicted.
func liveSpeedup(p *plan.Plan) float64 {
	if h := planner.ForecastFor(p).Headline; h != nil {
		return h.Speedup
	}
	return 1
}
