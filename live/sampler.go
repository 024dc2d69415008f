package live

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/echo-uma/echo/internal/procfs"
	"github.com/echo-uma/echo/symbols"
	"github.com/echo-uma/echo/tracer"
)

// DefaultWindow is how many recent events of each process the live planner reads: at 112
// bytes an event, 0.45 MB a process once full, so that a node watching a hundred processes
// keeps each under 2 MB (BENCHMARKS.md, "one shared tracer"); enough for a few iterations
// even of a loop of hundreds of calls, which is what a plan needs, and for hundreds of a
// copy loop's.
const DefaultWindow = 4000

// Options say what to sample.
type Options struct {
	PIDs     []int         // these processes; none: every process that maps a CUDA library
	Interval time.Duration // how often processes are scanned for (and, with Once, how long to sample)
	Config   tracer.Config // the probes; host allocations are off by default, as they cost the most
	Window   int           // recent events per process the live planner reads (default DefaultWindow)
	Version  string        // echoctl's, for the traces' headers
}

func (o *Options) defaults() {
	if o.Interval <= 0 {
		o.Interval = time.Second
	}
	if o.Window <= 0 {
		o.Window = DefaultWindow
	}
}

// Sampler traces processes in the background, all with one shared tracer; Sample reads
// what they did since it last did.
type Sampler struct {
	opts   Options
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	shared *tracer.Shared

	mu    sync.Mutex
	procs map[int]*process
	names *symbols.Resolver // names the copy sites of the detail pane, each module read once
}

// Start checks the privileges, starts tracing the processes and, without PIDs, keeps
// scanning /proc for new CUDA processes until ctx ends or Close. Given PIDs, it returns once
// each has joined the shared tracer or failed to, and fails when none joined: each gone, not
// this user's to trace, without a CUDA library, or refused by the kernel. (Those that fail
// while others join show as error rows.)
func Start(ctx context.Context, opts Options) (*Sampler, error) {
	opts.defaults()
	if err := tracer.CheckPrivileges(); err != nil {
		return nil, err
	}
	ok, refused := checkTargets(opts.PIDs)
	if len(opts.PIDs) > 0 && len(ok) == 0 {
		return nil, nothingTraced(len(opts.PIDs), sortedErrors(opts.PIDs, refused))
	}
	sh, err := tracer.NewShared(opts.Config, opts.Version, nil)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &Sampler{opts: opts, ctx: ctx, cancel: cancel, shared: sh, procs: map[int]*process{},
		names: symbols.NewResolver()}
	for pid, err := range refused {
		s.procs[pid] = failed(pid, err)
	}
	s.scan()
	if len(opts.PIDs) > 0 {
		if err := s.waitAttached(ok, refused); err != nil {
			s.Close()
			return nil, err
		}
	}
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
				s.reap()
				if len(opts.PIDs) == 0 {
					s.scan()
				}
			}
		}
	}()
	return s, nil
}

// waitAttached waits until each process of pids has joined the shared tracer (its probes in
// place) or failed to, and fails when none joined (refused are the PIDs turned away before).
func (s *Sampler) waitAttached(pids []int, refused map[int]error) error {
	why := sortedErrors(s.opts.PIDs, refused)
	attached := 0
	for _, pid := range pids {
		s.mu.Lock()
		p := s.procs[pid]
		s.mu.Unlock()
		if p == nil {
			continue
		}
		select {
		case <-p.started:
		case <-s.ctx.Done():
			return s.ctx.Err()
		}
		if done, err := p.outcome(); done && err != nil {
			why = append(why, failure(pid, p.comm(), err))
		} else {
			attached++
		}
	}
	if attached == 0 {
		return nothingTraced(len(s.opts.PIDs), why)
	}
	return nil
}

// Close stops watching (probes detached, the processes run on untraced).
func (s *Sampler) Close() {
	s.cancel()
	s.wg.Wait()
	if err := s.shared.Close(); err != nil {
		slog.Debug("closing the tracer", "err", err)
	}
}

// Lost is how many events the tracer's ring buffer had no room for since it started, every
// process together (one buffer cannot tell whose they were); 0 where it cannot be read.
func (s *Sampler) Lost() uint64 {
	n, _ := s.shared.Lost()
	return n
}

// reap lets the processes that exited leave the tracer, and drops what was kept for them.
// (A process that could not be watched stays, as an error row, for as long as it lives.)
func (s *Sampler) reap() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for pid, p := range s.procs {
		p.mu.Lock()
		settled := p.header != nil || p.done // joined, or could not
		p.mu.Unlock()
		if settled && !tracer.Alive(pid) {
			s.shared.Leave(pid)
			delete(s.procs, pid)
		}
	}
}

// scan starts watching every process to trace that is not watched yet.
func (s *Sampler) scan() {
	pids := s.opts.PIDs
	if len(pids) == 0 {
		pids = cudaProcesses()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, pid := range pids {
		// A process that exited was reaped from procs; the same PID later is another
		// process, watched anew.
		if s.procs[pid] != nil || pid == os.Getpid() || !tracer.Alive(pid) {
			continue
		}
		p := newProcess(pid, s.opts.Window)
		s.procs[pid] = p
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			p.watch(s.shared)
		}()
	}
}

// Sample returns a row per traced process for the interval since the last call, sorted by
// PID, and starts a planner run for each process whose last one finished. A process that
// exited is left out; one that could not be watched shows why while it lives.
func (s *Sampler) Sample() []Row {
	s.reap()
	now := time.Now()
	lost := s.Lost()
	s.mu.Lock()
	defer s.mu.Unlock()
	var rows []Row
	for pid, p := range s.procs {
		p.mu.Lock()
		switch {
		case p.done:
			rows = append(rows, errorRow(pid, p.comm(), p.err))
		case p.sum != nil:
			rows = append(rows, p.row(p.interval(), seconds(p.since, now), lost, s.names))
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

// Once samples the processes for one interval and returns their rows, sorted by PID, with
// the planner run over everything each did in it. Without PIDs, processes that exit
// meanwhile are left out, and finding no CUDA process at all gives no rows and no error. It
// fails (ErrNothingTraced, and tracer.ErrPrivileges when that was why) when it traced none
// of the processes it was given or found: each gone, not this user's to trace, without a
// CUDA library, or refused by the kernel.
func Once(ctx context.Context, opts Options) ([]Row, error) {
	opts.defaults()
	if err := tracer.CheckPrivileges(); err != nil {
		return nil, err
	}
	pids, refused := cudaProcesses(), map[int]error{}
	if len(opts.PIDs) > 0 {
		pids, refused = checkTargets(opts.PIDs)
	}
	sh, err := tracer.NewShared(opts.Config, opts.Version, nil)
	if err != nil {
		return nil, err
	}
	defer sh.Close()
	procs := make([]*process, 0, len(pids))
	var wg sync.WaitGroup
	for _, pid := range pids {
		if pid == os.Getpid() || !tracer.Alive(pid) {
			continue
		}
		p := newProcess(pid, opts.Window)
		procs = append(procs, p)
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.watch(sh)
		}()
	}
	wg.Wait()
	select {
	case <-ctx.Done():
	case <-time.After(opts.Interval):
	}
	end := time.Now()
	lost, _ := sh.Lost()
	for _, p := range procs {
		if !p.done {
			p.noCUDA = sh.FoundCUDA(p.pid)
		}
		sh.Leave(p.pid) // nothing more comes while the rows are made
	}
	var rows []Row
	why := sortedErrors(opts.PIDs, refused)
	for _, pid := range opts.PIDs {
		if err, ok := refused[pid]; ok && tracer.Alive(pid) {
			rows = append(rows, errorRow(pid, newProcess(pid, 0).comm(), err))
		}
	}
	traced, names := 0, symbols.NewResolver()
	for _, p := range procs {
		given := len(opts.PIDs) > 0
		switch {
		case !tracer.Alive(p.pid) && !given, errors.Is(p.noCUDA, tracer.ErrNoCUDA) && !given:
			continue
		case !tracer.Alive(p.pid):
			why = append(why, fmt.Errorf("process %d (%s) exited while it was sampled", p.pid, p.comm()))
		case p.err != nil || p.sum == nil || p.noCUDA != nil:
			err := cmpErr(errors.Join(p.err, p.noCUDA))
			rows = append(rows, errorRow(p.pid, p.comm(), err))
			why = append(why, failure(p.pid, p.comm(), err))
		default:
			h, events := p.snapshot()
			p.plan = runPlanner(h, events)
			rows = append(rows, p.row(p.interval(), seconds(p.since, end), lost, names))
			traced++
		}
	}
	if traced == 0 && len(why) > 0 {
		return nil, nothingTraced(len(why), why)
	}
	slices.SortFunc(rows, func(a, b Row) int { return a.PID - b.PID })
	return rows, nil
}

func cmpErr(err error) error {
	if err == nil {
		return errors.New("it never joined the tracer")
	}
	return err
}

// cudaProcesses lists the processes that map a CUDA runtime or driver library.
func cudaProcesses() []int {
	all, err := procfs.PIDs()
	if err != nil {
		return nil
	}
	var pids []int
	for _, pid := range all {
		if tracer.UsesCUDA(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}
