package report

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/plan"
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
	pid := max(prog.pid, 4242)
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
	c := testenv.NewCalls(trace.Header{Host: "gpu01", Start: start, StartMonoNS: 1_000_000, PID: pid,
		Command: prog.command, Executable: prog.exe, Modules: []trace.Module{{Path: prog.exe, BuildID: "ab12cd34",
			Start: base, End: base + 0x100000, Base: base, Size: 123456}}}, base)
	c.Call(trace.EventMalloc, 0x1100, 2_000, trace.Event{Addr: hostIn, Bytes: size})
	c.Call(trace.EventMalloc, 0x1110, 2_000, trace.Event{Addr: hostOu, Bytes: size})
	c.Call(trace.EventMalloc, 0x1120, 2_000, trace.Event{Addr: params, Bytes: 1024})
	c.Call(trace.EventCUDAMalloc, 0x1130, 50_000, trace.Event{Addr: devIn, Bytes: size})
	c.Call(trace.EventCUDAMalloc, 0x1140, 50_000, trace.Event{Addr: devOut, Bytes: size})
	c.Call(trace.EventCUDAMalloc, 0x1150, 50_000, trace.Event{Addr: devPar, Bytes: 1024})
	c.Call(trace.EventMalloc, 0x1160, 2_000, trace.Event{Addr: hostSc, Bytes: 1 << 20})
	c.Call(trace.EventCUDAMalloc, 0x1170, 50_000, trace.Event{Addr: devSc, Bytes: 1 << 20})
	for range 10 {
		c.Call(trace.EventCUDAMemcpy, 0x1200, 400_000, trace.Event{Addr: devIn, Src: hostIn, Bytes: size, Kind: trace.KindHostToDevice})
		c.Call(trace.EventCUDAMemcpy, 0x1208, 20_000, trace.Event{Addr: devPar, Src: params, Bytes: 1024, Kind: trace.KindHostToDevice})
		c.Call(trace.EventCUDAMemcpy, 0x120c, 30_000, trace.Event{Addr: devSc + 4096, Src: hostSc, Bytes: 256 << 10, Kind: trace.KindHostToDevice})
		c.Call(trace.EventCUDALaunchKernel, 0x1210, 5_000, trace.Event{Stream: stream})
		c.Call(trace.EventCUDAStreamSynchronize, 0x1220, 2_000_000, trace.Event{Addr: stream})
		c.Call(trace.EventCUDAMemcpy, 0x1230, 400_000, trace.Event{Addr: hostOu, Src: devOut, Bytes: size, Kind: trace.KindDeviceToHost})
		c.Idle(1_000_000) // host work between iterations
	}
	c.Call(trace.EventCUDAFree, 0x1300, 10_000, trace.Event{Addr: devIn})
	c.Call(trace.EventCUDAFree, 0x1310, 10_000, trace.Event{Addr: devOut})
	c.Call(trace.EventFree, 0x1320, 1_000, trace.Event{Addr: hostIn})
	c.Call(trace.EventFree, 0x1330, 1_000, trace.Event{Addr: hostOu})
	c.Write(t, path)
}

// streamPlan writes the synthetic trace and its plan into a fresh directory and returns the
// plan's path.
func streamPlan(t *testing.T, prog program) (planPath string, p *plan.Plan) {
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
