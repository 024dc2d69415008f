package tracer

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/echo-uma/echo/internal/procfs"
	"github.com/echo-uma/echo/trace"
)

// Shared traces many running processes with one tracer: one BPF collection and one ring
// buffer for all of them. Each library file (device and inode) is probed once, for every
// process, and the targets map chooses in the kernel whose calls are recorded; a process
// joins by its tgid going into that map (and its libraries not yet probed getting their
// probes) and leaves by its tgid going out. One reader takes the events off the ring buffer
// and hands each to its process's sink. `echoctl attach` watches its processes this way; a
// session of its own per process cost a collection and a 16 MiB ring buffer each.
//
// A process that maps a probed library but is not watched still takes the probes' traps
// (the BPF program returns at once): the price of one probe per file rather than one per
// process.
type Shared struct {
	t       *Tracer
	version string
	log     *slog.Logger
	er      *eventReader
	loop    chan error

	probeMu sync.Mutex // the tracer's probes and the module cache: joins and the loader's notices
	mods    *modules

	mu      sync.Mutex
	members map[int]*member
}

// Sink receives one watched process's records in order: a module before the events whose
// call sites lie in it. It is called from the reader's goroutine (and, for the events that
// came while the process joined, from Join's) and must not block; the record's event is
// reused after the call, so a sink copies what it keeps.
type Sink func(trace.Record)

// member is one watched process.
type member struct {
	pid  int
	sink Sink

	mu    sync.Mutex // taken before probeMu, never after
	p     *prober    // under probeMu
	ready bool       // its libraries were read and its header handed out
	left  bool       // Leave was called: nothing more goes to the sink
	held  []trace.Event
}

// NewShared loads the tracer for processes to join later (cfg.Follow and cfg.StopForMaps
// have no meaning here and are ignored). version goes into the processes' headers.
func NewShared(cfg Config, version string, log *slog.Logger) (*Shared, error) {
	if log == nil {
		log = slog.Default()
	}
	cfg.Follow, cfg.StopForMaps = false, false
	t, err := New(cfg, log)
	if err != nil {
		return nil, err
	}
	t.anyPID = true
	er, err := t.newEventReader()
	if err != nil {
		t.Close()
		return nil, err
	}
	s := &Shared{t: t, version: version, log: log, er: er, loop: make(chan error, 1), mods: newModules(),
		members: map[int]*member{}}
	go func() { s.loop <- s.read() }()
	return s, nil
}

// Join starts watching process pid: its libraries are read and probed where no other
// watched process probed them already, start is called with its trace header (the modules
// mapped now), then sink with its records until Leave. A process without a CUDA library is
// watched on, in case it loads one (FoundCUDA says whether it did).
func (s *Shared) Join(pid int, start func(trace.Header), sink Sink) error {
	if !alive(pid) {
		return fmt.Errorf("no process %d", pid)
	}
	if err := checkTraceable(pid); err != nil {
		return err
	}
	m := &member{pid: pid, sink: sink, p: newProber(s.t, s.mods, func(string, ...any) {}, s.log)}
	s.mu.Lock()
	if s.members[pid] != nil {
		s.mu.Unlock()
		return fmt.Errorf("process %d is watched already", pid)
	}
	s.members[pid] = m
	s.mu.Unlock()
	exe, _, _ := procfs.Exe(pid)
	h := newHeader(s.t.cfg, s.version, pid, exe, cmdline(pid), true)
	// In the targets map before its libraries are read: a library it loads meanwhile sends
	// the loader's notice, which is held with its other events until the header is out.
	if err := s.t.AddTarget(pid); err != nil {
		s.drop(pid)
		return err
	}
	s.probeMu.Lock()
	mods, err := m.p.rescan(pid)
	if err == nil {
		err = m.p.attachStatic(procfs.ExePath(pid), pid)
	}
	s.probeMu.Unlock()
	if err != nil {
		s.Leave(pid)
		return fmt.Errorf("probing the libraries of process %d: %w", pid, err)
	}
	h.Modules = mods
	start(h)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.left {
		return nil
	}
	for i := range m.held {
		s.deliver(m, &m.held[i])
	}
	m.held, m.ready = nil, true
	return nil
}

// Leave stops watching process pid (gone, or no longer wanted) and drops what was kept
// for it; events of its still in the ring buffer are dropped as they come.
func (s *Shared) Leave(pid int) {
	m := s.drop(pid)
	if m == nil {
		return
	}
	m.mu.Lock()
	m.left = true // the reader may have looked it up just before it was dropped
	m.mu.Unlock()
	if err := s.t.RemoveTarget(pid); err != nil {
		s.log.Debug("leaving", "pid", pid, "err", err)
	}
}

func (s *Shared) drop(pid int) *member {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.members[pid]
	delete(s.members, pid)
	return m
}

// FoundCUDA is nil when a CUDA runtime or driver was probed for process pid, and otherwise
// says (ErrNoCUDA) where one was looked for.
func (s *Shared) FoundCUDA(pid int) error {
	s.mu.Lock()
	m := s.members[pid]
	s.mu.Unlock()
	if m == nil {
		return fmt.Errorf("process %d is not watched", pid)
	}
	s.probeMu.Lock()
	defer s.probeMu.Unlock()
	if len(m.p.cudaLibs) > 0 {
		return nil
	}
	return m.p.noCUDA()
}

// Lost is how many events the ring buffer had no room for since the tracer started, all
// processes together: one buffer cannot tell whose they would have been.
func (s *Shared) Lost() (uint64, error) {
	perCPU, err := s.t.Lost()
	return trace.SumLost(perCPU), err
}

// Probes is how many probe links the tracer holds, for every process together.
func (s *Shared) Probes() int {
	s.probeMu.Lock()
	defer s.probeMu.Unlock()
	return len(s.t.links)
}

// Close stops the reader, removes every probe and frees the BPF objects; the processes run
// on untraced.
func (s *Shared) Close() error {
	err := s.er.close()
	if lerr := <-s.loop; lerr != nil {
		err = lerr
	}
	s.t.Close()
	return err
}

// read hands the ring buffer's events to their processes until the reader is closed.
func (s *Shared) read() error {
	s.er.start()
	var ev trace.Event
	for {
		raw, err := s.er.next()
		switch {
		case errors.Is(err, errDrained):
			return nil
		case errors.Is(err, errIdle):
			continue
		case err != nil:
			return err
		}
		s.mu.Lock()
		m := s.members[raw.pid()]
		s.mu.Unlock()
		if m == nil {
			continue // left already, or an event from before a PID was reused
		}
		if err := ev.UnmarshalBinary(raw); err != nil {
			return err
		}
		m.mu.Lock()
		switch {
		case m.left:
		case m.ready:
			s.deliver(m, &ev)
		default:
			m.held = append(m.held, ev)
		}
		m.mu.Unlock()
	}
}

// deliver hands one event to its process (m.mu held); the loader's notice first reads the
// process's libraries again, so the new modules come before the calls into them.
func (s *Shared) deliver(m *member, ev *trace.Event) {
	if ev.Type == trace.EventDlopen {
		s.probeMu.Lock()
		fresh, err := m.p.rescan(m.pid)
		s.probeMu.Unlock()
		if err != nil {
			s.log.Warn("probing newly loaded libraries", "pid", m.pid, "err", err)
		}
		for i := range fresh {
			m.sink(trace.Record{Module: &fresh[i]})
		}
	}
	m.sink(trace.Record{Event: ev})
}
