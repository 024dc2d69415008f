package tracer

import (
	"debug/elf"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
	"github.com/cilium/ebpf/rlimit"
	"golang.org/x/sys/unix"
)

// The defaults every command that traces starts from (echoctl trace, optimize, attach).
const (
	// DefaultMinHostBytes: host allocations smaller than a copy worth removing are not
	// recorded (an interpreter makes millions).
	DefaultMinHostBytes = 64 << 10
	// DefaultRingBytes is the ring buffer the BPF object declares (bpf/echo.bpf.c).
	DefaultRingBytes = 16 << 20
)

// Config is what the BPF side is told before it loads.
type Config struct {
	MinHostBytes uint64 // host allocations below this are not recorded
	HostAllocs   bool   // probe malloc & co. and operator new[]/delete[]
	// Launches probes kernel launches (cudaLaunchKernel, cuLaunchKernel and their
	// per-thread twins). A plan needs none: a launch-bound loop makes dozens per iteration,
	// and their traps were most of what tracing one cost (issue 27).
	Launches bool
	// AllDriverProbes probes the CUDA driver in every process, not only where something
	// other than the shared runtime may call it (drivercallers.go): for a caller that rule
	// does not see, and to measure what the nested probes cost.
	AllDriverProbes bool
	Follow          bool   // trace children of traced processes too
	StopForMaps     bool   // launch mode: the process waits while the tracer reads its libraries
	RingBytes       uint32 // ring buffer size, a power of two pages
	// OnePerFunction attaches one uprobe per function even where the kernel could attach a
	// program to many at once, as kernels before 6.6 must: that path stays tested.
	OnePerFunction bool
}

// Tracer owns the loaded BPF programs, the attached probes and the ring buffer.
type Tracer struct {
	cfg      Config
	multi    bool             // the kernel attaches a program to many functions at once (uprobe_multi)
	coll     *ebpf.Collection // the programs (their maps are in maps)
	maps     echoMaps         // bpf2go's typed maps: a map renamed in bpf/ fails to compile here
	links    []link.Link
	attached map[attachKey]int // functions probed per file
	// anyPID puts every probe on its file for all processes, the targets map choosing in
	// the kernel whose calls are recorded: the shared tracer's probes serve every process it
	// watches, now and later.
	anyPID bool
	log    *slog.Logger
}

type attachKey struct {
	dev, inode uint64
	kind       kind
	pid        int
}

// New loads the tracer's BPF programs. It fails with one actionable message when the
// process lacks the privileges to.
func New(cfg Config, log *slog.Logger) (*Tracer, error) {
	if err := checkPrivileges(); err != nil {
		return nil, err
	}
	if err := rlimit.RemoveMemlock(); err != nil {
		return nil, fmt.Errorf("raising the locked-memory limit for BPF maps: %w", err)
	}
	if err := kernelVersion(); err != nil {
		return nil, fmt.Errorf("loading BPF programs: %w", err)
	}
	spec, err := loadEcho()
	if err != nil {
		return nil, fmt.Errorf("reading the embedded BPF object: %w", err)
	}
	var specs echoSpecs // the spec's own maps and variables, by bpf2go's typed names
	if err := spec.Assign(&specs); err != nil {
		return nil, fmt.Errorf("reading the embedded BPF object: %w", err)
	}
	vars := map[*ebpf.VariableSpec]any{
		specs.MinHostBytes:   cfg.MinHostBytes,
		specs.FollowChildren: boolByte(cfg.Follow),
		specs.StopForMaps:    boolByte(cfg.StopForMaps),
	}
	if cfg.Follow {
		parent, child, err := forkFieldOffsets()
		if err != nil {
			return nil, fmt.Errorf("--follow needs the sched_process_fork tracepoint: %w", err)
		}
		vars[specs.ForkParentPidOff], vars[specs.ForkChildPidOff] = parent, child
	}
	for v, value := range vars {
		if err := v.Set(value); err != nil {
			return nil, fmt.Errorf("setting %s: %w", v.Name, err)
		}
	}
	if cfg.RingBytes != 0 {
		if err := CheckRingSize(uint64(cfg.RingBytes)); err != nil {
			return nil, fmt.Errorf("sizing the ring buffer: %w", err)
		}
		specs.Events.MaxEntries = cfg.RingBytes
	}
	if !cfg.HostAllocs {
		// Only the allocator probes use these; hash maps are allocated whole when created,
		// which each launch would wait for.
		specs.HostLive.MaxEntries, specs.PendingHost.MaxEntries = 1, 1
	}
	multi := !cfg.OnePerFunction && haveUprobeMulti() == nil
	keepPrograms(spec, multi)
	coll, err := ebpf.NewCollection(spec)
	if err != nil {
		// A map, a program and a BTF blob each, and the loader's feature probes.
		if fdErr := outOfFDs(err, len(spec.Maps)+len(spec.Programs)+8); fdErr != nil {
			return nil, fmt.Errorf("loading BPF programs: %w", fdErr)
		}
		var verr *ebpf.VerifierError
		if errors.As(err, &verr) {
			return nil, fmt.Errorf("loading BPF programs: the kernel's verifier refused them: %+v", verr)
		}
		return nil, fmt.Errorf("loading BPF programs: %w", err)
	}
	t := &Tracer{cfg: cfg, multi: multi, coll: coll, attached: map[attachKey]int{}, log: log}
	if err := coll.Assign(&t.maps); err != nil {
		t.Close()
		return nil, fmt.Errorf("loading BPF programs: %w", err)
	}
	if cfg.Follow {
		l, err := link.Tracepoint("sched", "sched_process_fork", coll.Programs[forkProgram], nil)
		if err != nil {
			t.Close()
			return nil, fmt.Errorf("attaching to sched_process_fork: %w", err)
		}
		t.links = append(t.links, l)
	}
	return t, nil
}

// forkProgram follows children (Config.Follow) on the sched_process_fork tracepoint.
const forkProgram = "process_fork"

func boolByte(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// AddTarget makes the probes record calls made by process pid.
func (t *Tracer) AddTarget(pid int) error {
	if err := t.maps.Targets.Put(uint32(pid), uint8(1)); err != nil {
		return fmt.Errorf("adding process %d to the traced set: %w", pid, err)
	}
	return nil
}

// RemoveTarget stops recording the calls of process pid, and frees the pending-call slots
// its threads left (a thread that died inside a probed call never returned to free its own):
// in a tracer that outlives its processes they would fill the maps.
func (t *Tracer) RemoveTarget(pid int) error {
	if err := t.maps.Targets.Delete(uint32(pid)); err != nil && !errors.Is(err, ebpf.ErrKeyNotExist) {
		return fmt.Errorf("removing process %d from the traced set: %w", pid, err)
	}
	for _, m := range []*ebpf.Map{t.maps.PendingRt, t.maps.PendingDrv, t.maps.PendingHost} {
		var stale []uint32
		var tid uint32
		var slot echoPending
		it := m.Iterate()
		for it.Next(&tid, &slot) {
			if int(slot.Ev.Pid) == pid {
				stale = append(stale, tid)
			}
		}
		if err := it.Err(); err != nil {
			return fmt.Errorf("reading %v: %w", m, err)
		}
		for _, tid := range stale {
			_ = m.Delete(tid) // gone already when its call returned meanwhile
		}
	}
	return nil
}

// Probe puts the probes for a library of the given kind on the file at path, for process
// pid (for every process when following children or shared, the targets map filtering in
// the kernel). A file already probed for that process is skipped. It returns how many
// functions were probed (for a file probed before, how many were); a symbol the library
// does not export (an optional variant) is not an error.
func (t *Tracer) Probe(path string, k kind, pid int) (int, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return 0, fmt.Errorf("opening %s: %w", path, err)
	}
	if t.cfg.Follow || t.anyPID {
		pid = 0
	}
	key := attachKey{uint64(st.Dev), st.Ino, k, pid}
	if !t.cfg.HostAllocs && (k == kindLibc || k == kindLibstdcxx) {
		return 0, nil
	}
	if n, ok := t.attached[key]; ok {
		return n, nil // probed already (for another process of the shared tracer, say)
	}
	defined, err := functions(path)
	if err != nil {
		return 0, err
	}
	ex, err := link.OpenExecutable(path)
	if err != nil {
		return 0, fmt.Errorf("opening %s: %w", path, err)
	}
	n := 0
	for fam, ps := range byFamily(probes[k]) {
		var syms []string
		var cookies []uint64
		for _, p := range ps {
			if p.launch() && !t.cfg.Launches {
				continue
			}
			for _, sym := range p.symbols {
				if !defined[sym] {
					continue
				}
				if t.multi && fam.enterMulti != "" {
					syms, cookies = append(syms, sym), append(cookies, p.cookie)
				} else if err := t.attachOne(ex, sym, p.enter, fam.leave, pid); err != nil {
					return n, fmt.Errorf("attaching uprobe %s in %s: %w", sym, path, t.perfUprobeError(err))
				}
				n++
			}
		}
		if len(syms) > 0 {
			if err := t.attachMulti(ex, syms, cookies, fam, pid); err != nil {
				return n, fmt.Errorf("attaching uprobes to %d functions in %s: %w", len(syms), path, err)
			}
		}
	}
	t.attached[key] = n
	t.log.Debug("attached", "library", path, "kind", k, "functions", n, "pid", pid, "multi", t.multi)
	return n, nil
}

func byFamily(ps []probe) map[family][]probe {
	out := map[family][]probe{}
	for _, p := range ps {
		out[p.fam] = append(out[p.fam], p)
	}
	return out
}

// The return probe goes in before the entry probe: an entry recorded without its return
// would leave the thread's pending slot taken, and every later call on that thread would
// look nested inside it and go unrecorded. (Attaching to a running process, a call can
// enter between the two attaches.)
func (t *Tracer) attachOne(ex *link.Executable, sym, enter, leave string, pid int) error {
	opts := &link.UprobeOptions{PID: pid}
	if leave != "" {
		l, err := ex.Uretprobe(sym, t.coll.Programs[leave], opts)
		if err != nil {
			return err
		}
		t.links = append(t.links, l)
	}
	if enter != "" {
		l, err := ex.Uprobe(sym, t.coll.Programs[enter], opts)
		if err != nil {
			return err
		}
		t.links = append(t.links, l)
	}
	return nil
}

func (t *Tracer) attachMulti(ex *link.Executable, syms []string, cookies []uint64, fam family, pid int) error {
	if fam.leaveMulti != "" {
		l, err := ex.UretprobeMulti(syms, t.coll.Programs[fam.leaveMulti], &link.UprobeMultiOptions{PID: uint32(pid)})
		if err != nil {
			return err
		}
		t.links = append(t.links, l)
	}
	l, err := ex.UprobeMulti(syms, t.coll.Programs[fam.enterMulti],
		&link.UprobeMultiOptions{Cookies: cookies, PID: uint32(pid)})
	if err != nil {
		return err
	}
	t.links = append(t.links, l)
	return nil
}

// keepPrograms drops the programs this kernel will not use: the per-family ones where it
// lacks uprobe_multi (they would not even load), the per-function ones where it has it.
func keepPrograms(spec *ebpf.CollectionSpec, multi bool) {
	for name, p := range spec.Programs {
		isMulti := p.AttachType == ebpf.AttachTraceUprobeMulti
		perFunction := p.Type == ebpf.Kprobe && !isMulti
		if (isMulti && !multi) || (perFunction && multi) {
			delete(spec.Programs, name)
		}
	}
}

// functions is the set of functions an ELF file defines, from its symbol tables.
func functions(path string) (map[string]bool, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	defer f.Close()
	syms, _ := f.Symbols()
	dyn, _ := f.DynamicSymbols()
	defined := map[string]bool{}
	for _, s := range append(syms, dyn...) {
		if s.Section != elf.SHN_UNDEF && elf.ST_TYPE(s.Info) == elf.STT_FUNC {
			defined[s.Name] = true
		}
	}
	return defined, nil
}

// Lost returns the failed ring-buffer reservations so far, per CPU.
func (t *Tracer) Lost() ([]uint64, error) {
	var perCPU []uint64
	if err := t.maps.Lost.Lookup(uint32(0), &perCPU); err != nil {
		return nil, fmt.Errorf("reading the lost-event counters: %w", err)
	}
	return perCPU, nil
}

// Close detaches every probe and frees the BPF objects.
func (t *Tracer) Close() {
	t.detach()
	t.coll.Close()
	t.maps.Close()
}

// CloseAside frees the BPF objects once the traced processes are gone, and leaves the
// probes' removal to a short-lived holder process (argv: a program that exits at once, with
// no output): removing uprobes waits for a kernel grace period, tens of milliseconds that
// nothing needs to wait for once the traced process has exited. The holder inherits the
// links, this process drops its references, and the kernel removes the probes as the holder
// exits. Links that cannot be handed over, or a holder that does not start, are detached
// here.
func (t *Tracer) CloseAside(holder []string) {
	if len(holder) > 0 {
		t.links = t.handOver(holder)
	}
	t.Close()
}

// handOver starts the holder with the links' descriptors and closes this process's own; it
// returns the links it could not hand over.
func (t *Tracer) handOver(holder []string) []link.Link {
	var files []*os.File
	var kept, given []link.Link
	for _, l := range t.links {
		withFD, ok := l.(interface{ FD() int })
		if !ok {
			kept = append(kept, l)
			continue
		}
		fd, err := unix.FcntlInt(uintptr(withFD.FD()), unix.F_DUPFD_CLOEXEC, 0)
		if err != nil {
			kept = append(kept, l)
			continue
		}
		files = append(files, os.NewFile(uintptr(fd), "probe link"))
		given = append(given, l)
	}
	if len(files) == 0 {
		return kept
	}
	cmd := exec.Command(holder[0], holder[1:]...)
	cmd.ExtraFiles = files // no stdin, stdout or stderr: nobody waits on its output
	err := cmd.Start()
	for _, f := range files {
		f.Close()
	}
	if err != nil {
		t.log.Debug("no holder for the probes: detaching here", "err", err)
		return t.links
	}
	go cmd.Wait() // reaped if this process outlives it
	for _, l := range given {
		l.Close() // the holder's references keep the probes until it exits
	}
	t.log.Debug("probes handed to a holder", "links", len(given), "pid", cmd.Process.Pid)
	return kept
}

// detach removes every probe; the ring buffer and the counters stay readable. Each uprobe's
// removal waits for a kernel grace period (tens of milliseconds), so the probes are closed
// side by side rather than one after another.
func (t *Tracer) detach() {
	start := time.Now()
	var wg sync.WaitGroup
	for _, l := range t.links {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.Close()
		}()
	}
	wg.Wait()
	t.log.Debug("detached", "probes", len(t.links), "took", time.Since(start))
	t.links = nil
}

// forkFieldOffsets reads where parent_pid and child_pid sit in the sched_process_fork
// tracepoint's record, from its format file, rather than assuming a kernel's layout.
func forkFieldOffsets() (uint32, uint32, error) {
	data, err := readForkFormat()
	if errors.Is(err, errNoTracefs) {
		// Many machines never mount tracefs; as root, mount it where the kernel expects it.
		if merr := unix.Mount("tracefs", tracefsDirs[0], "tracefs", 0, ""); merr == nil {
			data, err = readForkFormat()
		}
	}
	if err != nil {
		return 0, 0, err
	}
	return parseForkFormat(string(data))
}

var (
	tracefsDirs  = []string{"/sys/kernel/tracing", "/sys/kernel/debug/tracing"}
	errNoTracefs = errors.New("its format file is not under /sys/kernel/tracing or /sys/kernel/debug/tracing, " +
		"and tracefs could not be mounted")
)

func readForkFormat() ([]byte, error) {
	const file = "/events/sched/sched_process_fork/format"
	for _, dir := range tracefsDirs {
		data, err := os.ReadFile(dir + file)
		if err == nil {
			return data, nil
		}
		if errors.Is(err, os.ErrPermission) {
			// tracefs is mode 0700, root's, wherever it is mounted.
			p := CurrentPrivileges()
			return nil, &PrivilegeError{What: "reading tracefs", Need: []Capability{CapBPF, CapPerfmon, CapDACReadSearch},
				Missing: []Capability{CapDACReadSearch}, Cause: err, Root: p.Root}
		}
	}
	return nil, errNoTracefs
}
