package tracer_test

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/trace"
	"github.com/echo-uma/echo/tracer"
)

// gated is a gated_copies process: it copies on a go from its stdin.
type gated struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	iters  int
	bytes  uint64
}

func startGated(t *testing.T, iters int, bytes uint64) *gated {
	t.Helper()
	cmd := exec.Command(testenv.Built(t, "tests/gated_copies"), strconv.Itoa(iters), strconv.FormatUint(bytes, 10))
	stdin, stdout := testenv.StartPiped(t, cmd)
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	g := &gated{cmd: cmd, stdin: stdin, stdout: stdout, iters: iters, bytes: bytes}
	g.expect(t, "ready")
	return g
}

func (g *gated) expect(t *testing.T, line string) {
	t.Helper()
	if got, err := g.stdout.ReadString('\n'); strings.TrimSpace(got) != line {
		t.Fatalf("gated_copies %d said %q (%v), want %q", g.cmd.Process.Pid, got, err, line)
	}
}

// seen is what one process's sink received.
type seen struct {
	mu        sync.Mutex
	header    trace.Header
	mods      *trace.Modules
	copies    map[uint32]int    // by kind: 1 host to device, 2 device to host
	bytes     map[uint32]uint64 // by kind
	sites     map[string]bool   // the copies' sites, resolved in the process's own modules
	foreign   int               // events of another process
	unordered bool              // a record before the header
}

func watch(t *testing.T, s *tracer.Shared, pid int) *seen {
	t.Helper()
	w := &seen{copies: map[uint32]int{}, bytes: map[uint32]uint64{}, sites: map[string]bool{}}
	start := func(h trace.Header) {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.header, w.mods = h, trace.NewModules(h.Modules)
	}
	sink := func(rec trace.Record) {
		w.mu.Lock()
		defer w.mu.Unlock()
		switch {
		case w.mods == nil:
			w.unordered = true
		case rec.Module != nil:
			w.mods.Add(*rec.Module)
		case int(rec.Event.PID) != pid:
			w.foreign++
		case rec.Event.Type == trace.EventCUDAMemcpy:
			w.copies[rec.Event.Kind]++
			w.bytes[rec.Event.Kind] += rec.Event.Bytes
			site, _ := w.mods.Resolve(pid, rec.Event.Caller)
			w.sites[fmt.Sprintf("%s+%#x", filepath.Base(site.Module), site.Offset)] = true
		}
	}
	if err := s.Join(pid, start, sink); err != nil {
		t.Fatalf("joining process %d: %v", pid, err)
	}
	return w
}

func (w *seen) count(kind uint32) (int, uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.copies[kind], w.bytes[kind]
}

// One shared tracer watches several processes at once, probing their common libraries once:
// each process's sink gets its own copies, all of them and no other's, with sites resolved
// in its own address space; a process that joins after the others is watched the same way.
// With uprobe_multi links and with a probe per function.
func TestSharedTracer(t *testing.T) {
	testenv.RequireRoot(t)
	for _, c := range []struct {
		name string
		cfg  tracer.Config
	}{
		{"uprobe_multi where the kernel has it", tracer.Config{}},
		{"one probe per function", tracer.Config{OnePerFunction: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := tracer.NewShared(c.cfg, "test", nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			procs := []*gated{startGated(t, 40, 64<<10), startGated(t, 70, 96<<10)}
			seens := []*seen{watch(t, s, procs[0].cmd.Process.Pid)}
			probes := s.Probes()
			seens = append(seens, watch(t, s, procs[1].cmd.Process.Pid))
			if s.Probes() != probes || probes == 0 {
				t.Errorf("%d probe links for one process, %d for two mapping the same files: want them probed once",
					probes, s.Probes())
			}
			// Started after the tracer: it joins as the others did.
			late := startGated(t, 90, 160<<10)
			procs = append(procs, late)
			seens = append(seens, watch(t, s, late.cmd.Process.Pid))

			var wg sync.WaitGroup
			for _, g := range procs { // all at once, their events mixed in the one ring buffer
				wg.Add(1)
				go func() {
					defer wg.Done()
					io.WriteString(g.stdin, "go\n")
				}()
			}
			wg.Wait()
			for _, g := range procs {
				g.expect(t, "done")
			}
			deadline := time.Now().Add(10 * time.Second)
			for i, g := range procs {
				w := seens[i]
				for {
					h2d, _ := w.count(1)
					d2h, _ := w.count(2)
					if (h2d >= g.iters && d2h >= g.iters) || time.Now().After(deadline) {
						break
					}
					time.Sleep(50 * time.Millisecond)
				}
				w.mu.Lock()
				pid := g.cmd.Process.Pid
				if w.header.PID != pid || !w.header.Attached || filepath.Base(w.header.Executable) != "gated_copies" {
					t.Errorf("process %d: header %+v: want its own, attached", pid, w.header)
				}
				for kind := uint32(1); kind <= 2; kind++ {
					if w.copies[kind] != g.iters || w.bytes[kind] != uint64(g.iters)*g.bytes {
						t.Errorf("process %d, kind %d: %d copies of %d bytes: want %d of %d", pid, kind,
							w.copies[kind], w.bytes[kind], g.iters, uint64(g.iters)*g.bytes)
					}
				}
				if w.foreign > 0 || w.unordered {
					t.Errorf("process %d: %d events of other processes, a record before the header: %v", pid, w.foreign, w.unordered)
				}
				// Two call sites in its executable, the same in every process wherever the
				// executable was mapped.
				if len(w.sites) != 2 {
					t.Errorf("process %d: copy sites %v: want gated_copies' two", pid, w.sites)
				}
				for site := range w.sites {
					if !strings.HasPrefix(site, "gated_copies+0x") || !seens[0].sites[site] {
						t.Errorf("process %d: copy site %s: want one of gated_copies' (the first process's %v)", pid, site, seens[0].sites)
					}
				}
				w.mu.Unlock()
			}
			if lost, err := s.Lost(); err != nil || lost != 0 {
				t.Errorf("lost %d events (%v): want none", lost, err)
			}
		})
	}
}

// A process that left gets nothing more, while the others are still watched.
func TestSharedTracerLeave(t *testing.T) {
	testenv.RequireRoot(t)
	s, err := tracer.NewShared(tracer.Config{}, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	gone, stays := startGated(t, 30, 64<<10), startGated(t, 30, 64<<10)
	wGone, wStays := watch(t, s, gone.cmd.Process.Pid), watch(t, s, stays.cmd.Process.Pid)
	s.Leave(gone.cmd.Process.Pid)
	for _, g := range []*gated{gone, stays} {
		io.WriteString(g.stdin, "go\n")
		g.expect(t, "done")
	}
	deadline := time.Now().Add(10 * time.Second)
	for n, _ := wStays.count(1); n < stays.iters && time.Now().Before(deadline); n, _ = wStays.count(1) {
		time.Sleep(50 * time.Millisecond)
	}
	if n, _ := wStays.count(1); n != stays.iters {
		t.Errorf("the process still watched: %d copies to the device, want %d", n, stays.iters)
	}
	if n, _ := wGone.count(1); n != 0 {
		t.Errorf("the process that left: %d copies seen after it left, want none", n)
	}
	if err := s.Join(gone.cmd.Process.Pid, func(trace.Header) {}, func(trace.Record) {}); err != nil {
		t.Errorf("joining again after leaving: %v", err)
	}
}
