package live

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/echo-uma/echo/tracer"
)

// Options say what to sample.
type Options struct {
	PIDs     []int         // these processes; none: every process that maps a CUDA library
	Interval time.Duration // how often processes are scanned for (and, with Once, how long to sample)
	Config   tracer.Config // the probes; host allocations are off by default, as they cost the most
	Window   int           // recent events per process the live planner reads (default 100000)
	Version  string        // echoctl's, for the traces' headers
}

func (o *Options) defaults() {
	if o.Interval <= 0 {
		o.Interval = time.Second
	}
	if o.Window <= 0 {
		o.Window = 100000
	}
}

// Sampler traces processes in the background; Sample reads what they did since it last did.
type Sampler struct {
	opts   Options
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu    sync.Mutex
	procs map[int]*process
}

// Start checks the privileges, starts tracing the processes and, without PIDs, keeps
// scanning /proc for new CUDA processes until ctx ends or Close.
func Start(ctx context.Context, opts Options) (*Sampler, error) {
	opts.defaults()
	if err := tracer.CheckPrivileges(); err != nil {
		return nil, err
	}
	for _, pid := range opts.PIDs {
		if !tracer.Alive(pid) {
			return nil, fmt.Errorf("no process %d", pid)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &Sampler{opts: opts, ctx: ctx, cancel: cancel, procs: map[int]*process{}}
	s.scan()
	if len(opts.PIDs) == 0 {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			tick := time.NewTicker(opts.Interval)
			defer tick.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
					s.scan()
				}
			}
		}()
	}
	return s, nil
}

// Close ends every tracing session (probes detached) and waits for them.
func (s *Sampler) Close() {
	s.cancel()
	s.wg.Wait()
}

// scan starts a session for every process to trace that has none.
func (s *Sampler) scan() {
	pids := s.opts.PIDs
	if len(pids) == 0 {
		pids = cudaProcesses()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, pid := range pids {
		// A process whose session ended is gone from the scan too; the same PID later is
		// another process, traced anew.
		if s.procs[pid] != nil || pid == os.Getpid() || !tracer.Alive(pid) {
			continue
		}
		p := newProcess(pid, s.opts.Window)
		s.procs[pid] = p
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			p.trace(s.ctx, s.opts.Config, 0, s.opts.Version)
		}()
	}
}

// Sample returns a row per traced process for the interval since the last call, sorted by
// PID, and starts a planner run for each process whose last one finished. A process that
// exited is left out; one whose session failed while it lives shows why.
func (s *Sampler) Sample() []Row {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	var rows []Row
	for pid, p := range s.procs {
		p.mu.Lock()
		switch {
		case p.done && (p.err == nil || !tracer.Alive(pid)):
			delete(s.procs, pid)
		case p.done:
			rows = append(rows, errorRow(pid, p.comm(), p.err))
		case p.sum != nil:
			rows = append(rows, p.row(p.sum.Interval(), seconds(p.since, now)))
			p.since = now
			if !p.planBusy {
				p.planBusy = true
				h, events := p.snapshot()
				go p.replan(h, events)
			}
		}
		p.mu.Unlock()
	}
	slices.SortFunc(rows, func(a, b Row) int { return a.PID - b.PID })
	return rows
}

// Once samples the processes for one interval and returns their rows, with the planner run
// over everything each did in it. Processes that exit meanwhile are left out.
func Once(ctx context.Context, opts Options) ([]Row, error) {
	opts.defaults()
	if err := tracer.CheckPrivileges(); err != nil {
		return nil, err
	}
	pids := opts.PIDs
	if len(pids) == 0 {
		pids = cudaProcesses()
	}
	procs := make([]*process, 0, len(pids))
	var wg sync.WaitGroup
	for _, pid := range pids {
		if pid == os.Getpid() {
			continue
		}
		if !tracer.Alive(pid) {
			if len(opts.PIDs) > 0 {
				return nil, fmt.Errorf("no process %d", pid)
			}
			continue
		}
		p := newProcess(pid, opts.Window)
		procs = append(procs, p)
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.trace(ctx, opts.Config, opts.Interval, opts.Version)
		}()
	}
	wg.Wait()
	var rows []Row
	for _, p := range procs {
		if !tracer.Alive(p.pid) || errors.Is(p.err, tracer.ErrNoCUDA) && len(opts.PIDs) == 0 {
			continue
		}
		if p.err != nil || p.sum == nil {
			rows = append(rows, errorRow(p.pid, p.comm(), cmpErr(p.err)))
			continue
		}
		h, events := p.snapshot()
		p.plan = runPlanner(h, events)
		secs := opts.Interval.Seconds()
		if p.footer != nil && p.footer.EndMonoNS > h.StartMonoNS {
			secs = float64(p.footer.EndMonoNS-h.StartMonoNS) / 1e9
		}
		rows = append(rows, p.row(p.sum.Interval(), secs))
	}
	return rows, nil
}

func cmpErr(err error) error {
	if err == nil {
		return errors.New("the trace ended before its header")
	}
	return err
}

// cudaProcesses lists the processes that map a CUDA runtime or driver library.
func cudaProcesses() []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err == nil && tracer.UsesCUDA(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}
