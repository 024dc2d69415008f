package tracer_test

import (
	"path/filepath"
	"regexp"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/trace"
)

// driverEvents are the driver API's event types.
var driverEvents = []trace.EventType{
	trace.EventCUMemAlloc, trace.EventCUMemAllocHost, trace.EventCUMemHostAlloc, trace.EventCUMemAllocManaged,
	trace.EventCUMemFree, trace.EventCUMemFreeHost, trace.EventCUMemcpyHtoD, trace.EventCUMemcpyDtoH,
	trace.EventCUMemcpyDtoD, trace.EventCUMemcpyHtoDAsync, trace.EventCUMemcpyDtoHAsync,
	trace.EventCUMemcpyDtoDAsync, trace.EventCULaunchKernel, trace.EventCUStreamSynchronize,
	trace.EventCUCtxSynchronize,
}

// A program written against the driver API (the emulator's libcuda.so.1): its calls are
// recorded as driver events, with their sizes, pointers and directions; its launch at entry
// (no return probe), with its grid and block.
func TestTraceDriverAPI(t *testing.T) {
	testenv.RequireRoot(t)
	const copies, size = 5, 1 << 20
	res, path := testenv.TraceOK(t, "--launches", "--", testenv.Built(t, "tests/driver_api"), "5")
	if !probedDriver.MatchString(res.Stderr) {
		t.Errorf("the driver was not probed in a driver-API program; stderr:\n%s", res.Stderr)
	}
	tr := readTrace(t, path)
	want := map[trace.EventType]int{
		trace.EventCUMemAlloc: 1, trace.EventCUMemcpyHtoD: copies, trace.EventCUMemcpyDtoH: 1,
		trace.EventCUCtxSynchronize: 1, trace.EventCUMemFree: 1, trace.EventCULaunchKernel: 1,
	}
	for _, typ := range driverEvents {
		if got := tr.count(typ); got != want[typ] {
			t.Errorf("%d %v, want %d", got, typ, want[typ])
		}
	}
	if n := tr.count(trace.EventCUDAMalloc) + tr.count(trace.EventCUDAMemcpy); n != 0 {
		t.Errorf("%d runtime calls recorded: the driver must not go through the runtime's entry points", n)
	}
	dev := tr.allocated(trace.EventCUMemAlloc, size)
	if len(dev) != 1 {
		t.Fatalf("cuMemAlloc returned %v, want one 1 MiB buffer", dev)
	}
	in := tr.copies(trace.EventCUMemcpyHtoD, h2d, size)
	out := tr.copies(trace.EventCUMemcpyDtoH, d2h, size)
	if len(in) != copies || len(out) != 1 {
		t.Fatalf("%d H2D and %d D2H copies of 1 MiB, want %d and 1", len(in), len(out), copies)
	}
	for _, e := range in {
		if !dev[e.Addr] || e.Src == 0 {
			t.Errorf("cuMemcpyHtoD %#x -> %#x: want the host buffer into the cuMemAlloc'd one", e.Src, e.Addr)
		}
		tr.siteIn(t, e, "driver_api")
	}
	if !dev[out[0].Src] {
		t.Errorf("cuMemcpyDtoH from %#x, want the cuMemAlloc'd buffer", out[0].Src)
	}
	if launch := tr.of(trace.EventCULaunchKernel); len(launch) == 1 {
		e := launch[0]
		if e.Addr == 0 || e.Arg[0] != size/256|1<<32 || e.Arg[1] != 1 || e.Arg[2] != 256|1<<32 || e.Arg[3] != 1 ||
			e.ExitNS != e.EnterNS || e.Ret != 0 {
			t.Errorf("cuLaunchKernel: function %#x, args %v, enter %d exit %d, ret %d; want a function, grid 4096x1x1, "+
				"block 256x1x1, recorded at entry", e.Addr, e.Arg, e.EnterNS, e.ExitNS, e.Ret)
		}
		tr.siteIn(t, e, "driver_api")
	}
	if free := tr.of(trace.EventCUMemFree); len(free) == 1 && !dev[free[0].Addr] {
		t.Errorf("cuMemFree of %#x, want the cuMemAlloc'd buffer", free[0].Addr)
	}
}

// probedDriver and unprobedDriver are what echoctl trace says as it probes the driver or
// leaves it alone.
var (
	probedDriver   = regexp.MustCompile(`probing \S*libcuda\.so\.1 \(CUDA driver, [1-9][0-9]* functions\)`)
	unprobedDriver = regexp.MustCompile(`not probing \S*libcuda\.so\.1 \(CUDA driver\)`)
)

// A runtime that calls the driver (the emulator with CUDA_EMU_DRIVER=1 dlopens libcuda.so.1
// and makes cudaMalloc, cudaFree, cudaMemcpy, cudaDeviceSynchronize and cudaLaunchKernel
// through it, as the real runtime does): only the runtime calls are recorded, each copy once,
// cuLaunchKernel's entry-only probe included. Nothing but the shared runtime calls the driver
// there, so by default it gets no probe at all (their traps were the nested calls' cost,
// issue 27); with --all-driver-probes it is probed and its calls are dropped as nested.
func TestTraceRuntimeOverDriver(t *testing.T) {
	testenv.RequireRoot(t)
	t.Setenv("CUDA_EMU_DRIVER", "1")
	for _, all := range []bool{false, true} {
		name := map[bool]string{false: "default", true: "all-driver-probes"}[all]
		t.Run(name, func(t *testing.T) { testRuntimeOverDriver(t, all) })
	}
}

func testRuntimeOverDriver(t *testing.T, all bool) {
	const iters, size = 6, 1 << 20
	args := []string{"--launches", "--", testenv.Built(t, "workloads/stream"), "--size", "1M", "--iters", "5", "--warmup", "1"}
	if all {
		args = append([]string{"--all-driver-probes"}, args...)
	}
	res, path := testenv.TraceOK(t, args...)
	if probed := probedDriver.MatchString(res.Stderr); probed != all || unprobedDriver.MatchString(res.Stderr) == all {
		t.Errorf("driver probed: %v, want %v; stderr:\n%s", probed, all, res.Stderr)
	}
	tr := readTrace(t, path)
	driverLoaded := false
	for _, m := range tr.modules.List() {
		driverLoaded = driverLoaded || filepath.Base(m.Path) == "libcuda.so.1"
	}
	if !driverLoaded {
		t.Fatalf("libcuda.so.1 is not among the traced process's modules: the runtime did not go through the driver")
	}
	if in, out := tr.copies(trace.EventCUDAMemcpy, h2d, size), tr.copies(trace.EventCUDAMemcpy, d2h, size); len(in) != iters || len(out) != iters {
		t.Errorf("%d H2D and %d D2H cudaMemcpy of 1 MiB, want %d each", len(in), len(out), iters)
	}
	if n := tr.count(trace.EventCUDAMalloc); n != 2 {
		t.Errorf("%d cudaMalloc, want 2", n)
	}
	if n := tr.count(trace.EventCUDALaunchKernel); n != iters {
		t.Errorf("%d cudaLaunchKernel, want %d", n, iters)
	}
	for _, typ := range driverEvents {
		if n := tr.count(typ); n != 0 {
			t.Errorf("%d %v recorded: driver calls under a runtime call must not be", n, typ)
		}
	}
}

// A program that dlopens the driver and calls it through pointers from dlsym, or from the
// driver's cuGetProcAddress (ctypes, cuda-python, a static runtime): it imports no driver
// function, yet the driver is probed and each of its copies recorded once.
func TestTraceDlopenDriver(t *testing.T) {
	testenv.RequireRoot(t)
	const iters, size = 4, 1 << 16
	for _, mode := range []string{"dlsym", "proc"} {
		t.Run(mode, func(t *testing.T) {
			args := []string{"--", testenv.Built(t, "tests/dlopen_driver"), "4", "65536"}
			if mode == "proc" {
				args = append(args, "proc")
			}
			res, path := testenv.TraceOK(t, args...)
			if !probedDriver.MatchString(res.Stderr) {
				t.Errorf("the driver was not probed; stderr:\n%s", res.Stderr)
			}
			tr := readTrace(t, path)
			in := tr.copies(trace.EventCUMemcpyHtoDAsync, h2d, size)
			out := tr.copies(trace.EventCUMemcpyDtoHAsync, d2h, size)
			if len(in) != iters || len(out) != iters {
				t.Errorf("%d cuMemcpyHtoDAsync and %d cuMemcpyDtoHAsync of 64 KiB, want %d each", len(in), len(out), iters)
			}
		})
	}
}
