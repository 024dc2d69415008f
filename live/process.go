package live

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/echo-uma/echo/internal/procfs"
	"github.com/echo-uma/echo/planner"
	"github.com/echo-uma/echo/trace"
	"github.com/echo-uma/echo/tracer"
)

// process is one traced process: a tracer session in attach mode writes its trace into a
// pipe, and read() takes the records off it as they come, into the interval's summary and
// the window of recent events the live planner reads.
type process struct {
	pid     int
	command []string
	cwd     string // the process's working directory, for the optimize hint
	window  int    // events kept for the planner

	lost atomic.Uint64

	mu       sync.Mutex
	header   *trace.Header // nil until the trace's header was read
	modules  []trace.Module
	sum      *trace.Summarizer
	totals   Totals        // every interval's statistics added up
	recent   []trace.Event // a ring of the last window events
	next     int           // where the ring's next event goes
	since    time.Time     // start of the current interval
	footer   *trace.Footer // set when the session ended cleanly
	err      error         // why the session ended, nil while it runs or when it ended cleanly
	done     bool
	started  chan struct{} // closed once the session's probes are in place (its header came), or it ended
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
	return &process{pid: pid, command: command, cwd: cwd, window: window, plan: planResult{speedup: 1},
		started: make(chan struct{})}
}

// failed is a process no session could start on, with why: it shows as an error row for as
// long as it lives.
func failed(pid int, err error) *process {
	p := newProcess(pid, 0)
	p.done, p.err = true, err
	p.markStarted()
	return p
}

func (p *process) markStarted() { p.start.Do(func() { close(p.started) }) }

// outcome is why the session ended, nil while it runs or when it ended well.
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
	return filepath.Base(p.command[0])
}

// trace runs the tracer session (for duration d, 0: until ctx ends or the process exits)
// and reads what it writes; it returns when both are over.
func (p *process) trace(ctx context.Context, cfg tracer.Config, d time.Duration, version string) {
	pr, pw := io.Pipe()
	recorded := make(chan error, 1)
	go func() {
		_, err := tracer.Record(ctx, pw, tracer.Options{
			Config: cfg, PID: p.pid, Duration: d, Version: version,
			Stdout: io.Discard, Stderr: io.Discard, Lost: p.lost.Store,
		})
		pw.CloseWithError(err)
		recorded <- err
	}()
	err := p.read(pr)
	pr.CloseWithError(err) // the session's writes fail from here on, and it ends
	// The session's own error is the cause when there is one: the reader's then only says
	// that the trace stopped.
	if rerr := <-recorded; rerr != nil {
		err = rerr
	}
	p.mu.Lock()
	p.done, p.err = true, err
	p.mu.Unlock()
	p.markStarted()
}

func (p *process) read(r io.Reader) error {
	tr, err := trace.NewReader(r)
	if err != nil {
		return err
	}
	h := tr.Header()
	p.mu.Lock()
	p.header, p.modules, p.since = &h, h.Modules, h.Start
	p.sum = trace.NewSummarizer(h, planner.NewTransferTimer())
	p.mu.Unlock()
	p.markStarted()
	for {
		rec, err := tr.Next()
		if errors.Is(err, io.EOF) {
			if f, ok := tr.Footer(); ok {
				p.mu.Lock()
				p.footer = &f
				p.mu.Unlock()
			}
			return nil
		}
		if err != nil {
			return err
		}
		p.add(rec)
	}
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
	res := planResult{speedup: plan.PredictedSpeedup}
	if plan.Loop.Iterations > 0 {
		res.iterMS = plan.Loop.MS
	}
	for _, pair := range plan.Pairs {
		res.pairs = append(res.pairs, Pair{Direction: pair.Direction, Bytes: pair.Bytes,
			Speedup: pair.PredictedSpeedup, Status: string(pair.Status), Reason: pair.Reason})
	}
	return res
}
