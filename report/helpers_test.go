package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/planner"
	"github.com/echo-uma/echo/trace"
)

// program is what the synthetic trace says was traced.
type program struct {
	command []string
	exe     string // the executable's path, as mapped
	pid     int    // 0: 4242
}

// writeStreamTrace writes, at path, the trace of a program that allocates a host and a
// device buffer for its input and for its output, then loops ten times: copy the input in
// (and a 1K parameter block, too small to pay, and a quarter of a scratch buffer, which links
// no pair), run a kernel on a stream of its own and
// wait for it, copy the output back.
func writeStreamTrace(t *testing.T, path string, prog program) {
	t.Helper()
	pid := uint32(max(prog.pid, 4242))
	const (
		size   = 4 << 20
		base   = 0x400000
		hostIn = 0x7f00_0000_0000
		hostOu = 0x7f00_1000_0000
		params = 0x7f00_2000_0000
		devIn  = 0x7000_0000
		devOut = 0x7100_0000
		devPar = 0x7200_0000
		stream = 0x5000
		hostSc = 0x7f00_3000_0000
		devSc  = 0x7300_0000
	)
	start := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	header := trace.Header{Host: "gpu01", Start: start, StartMonoNS: 1_000_000, PID: int(pid),
		Command: prog.command, Executable: prog.exe, Modules: []trace.Module{{Path: prog.exe, BuildID: "ab12cd34",
			Start: base, End: base + 0x100000, Base: base, Size: 123456}}}
	now := uint64(1_000_000)
	var events []trace.Event
	call := func(typ trace.EventType, caller uint64, ns uint64, e trace.Event) {
		e.Type, e.PID, e.TID, e.Caller, e.EnterNS, e.ExitNS = typ, pid, pid, base+caller, now, now+ns
		events = append(events, e)
		now += ns + 10_000
	}
	call(trace.EventMalloc, 0x1100, 2_000, trace.Event{Addr: hostIn, Bytes: size})
	call(trace.EventMalloc, 0x1110, 2_000, trace.Event{Addr: hostOu, Bytes: size})
	call(trace.EventMalloc, 0x1120, 2_000, trace.Event{Addr: params, Bytes: 1024})
	call(trace.EventCUDAMalloc, 0x1130, 50_000, trace.Event{Addr: devIn, Bytes: size})
	call(trace.EventCUDAMalloc, 0x1140, 50_000, trace.Event{Addr: devOut, Bytes: size})
	call(trace.EventCUDAMalloc, 0x1150, 50_000, trace.Event{Addr: devPar, Bytes: 1024})
	call(trace.EventMalloc, 0x1160, 2_000, trace.Event{Addr: hostSc, Bytes: 1 << 20})
	call(trace.EventCUDAMalloc, 0x1170, 50_000, trace.Event{Addr: devSc, Bytes: 1 << 20})
	for range 10 {
		call(trace.EventCUDAMemcpy, 0x1200, 400_000, trace.Event{Addr: devIn, Src: hostIn, Bytes: size, Kind: trace.KindHostToDevice})
		call(trace.EventCUDAMemcpy, 0x1208, 20_000, trace.Event{Addr: devPar, Src: params, Bytes: 1024, Kind: trace.KindHostToDevice})
		call(trace.EventCUDAMemcpy, 0x120c, 30_000, trace.Event{Addr: devSc + 4096, Src: hostSc, Bytes: 256 << 10, Kind: trace.KindHostToDevice})
		call(trace.EventCUDALaunchKernel, 0x1210, 5_000, trace.Event{Stream: stream})
		call(trace.EventCUDAStreamSynchronize, 0x1220, 2_000_000, trace.Event{Addr: stream})
		call(trace.EventCUDAMemcpy, 0x1230, 400_000, trace.Event{Addr: hostOu, Src: devOut, Bytes: size, Kind: trace.KindDeviceToHost})
		now += 1_000_000 // host work between iterations
	}
	call(trace.EventCUDAFree, 0x1300, 10_000, trace.Event{Addr: devIn})
	call(trace.EventCUDAFree, 0x1310, 10_000, trace.Event{Addr: devOut})
	call(trace.EventFree, 0x1320, 1_000, trace.Event{Addr: hostIn})
	call(trace.EventFree, 0x1330, 1_000, trace.Event{Addr: hostOu})

	var buf bytes.Buffer
	w, err := trace.NewWriter(&buf, header)
	if err != nil {
		t.Fatal(err)
	}
	for i := range events {
		if err := w.WriteEvent(&events[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(trace.Footer{End: start.Add(time.Second), EndMonoNS: now, Complete: true}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// streamPlan writes the synthetic trace and its plan into a fresh directory and returns the
// plan's path.
func streamPlan(t *testing.T, prog program) (planPath string, p *planner.Plan) {
	t.Helper()
	dir := t.TempDir()
	tracePath := filepath.Join(dir, "app.bin")
	writeStreamTrace(t, tracePath, prog)
	planPath = filepath.Join(dir, "app.bin.plan")
	return planPath, testenv.PlanFile(t, tracePath, planPath)
}

// render builds and renders the report of the plan at planPath.
func render(t *testing.T, o Options) (string, *Page) {
	t.Helper()
	pg, err := Build(o)
	if err != nil {
		t.Fatalf("building the report of %s: %v", o.PlanPath, err)
	}
	var b strings.Builder
	if err := pg.Render(&b); err != nil {
		t.Fatal(err)
	}
	return b.String(), pg
}

var plainProgram = program{command: []string{"./stream", "--n", "4"}, exe: "/opt/app/stream"}
