package tracer_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/trace"
)

const (
	h2d = 1 // cudaMemcpyHostToDevice
	d2h = 2 // cudaMemcpyDeviceToHost
)

// stream with malloc'd host buffers: every copy links a malloc'd buffer and a cudaMalloc'd
// one, from the workload's own code, exactly once per iteration.
func TestTraceStream(t *testing.T) {
	testenv.RequireRoot(t)
	cases := []struct {
		name, workload string
		flags          []string
	}{
		{"stream", "stream", nil},
		{"static-runtime", "stream-static", nil},
		// kernels before 6.6 attach one uprobe per function; keep that path honest too
		{"one-uprobe-per-function", "stream", []string{"--uprobe-per-function"}},
	}
	for _, c := range cases {
		name := c.workload
		t.Run(c.name, func(t *testing.T) {
			const iters, size = 6, 1 << 20
			args := append(append(c.flags, "--host-allocs", "--launches"), "--", testenv.Built(t, "workloads/"+name), "--size", "1M", "--iters", "5", "--warmup", "1")
			_, path := testenv.TraceOK(t, args...)
			tr := readTrace(t, path)
			if tr.header.PID == 0 || tr.header.Attached || len(tr.header.Command) == 0 {
				t.Errorf("header %+v: want the launched command's pid and argv, not attached", tr.header)
			}
			dev := tr.allocated(trace.EventCUDAMalloc, size)
			host := tr.allocated(trace.EventMalloc, size)
			if len(dev) != 2 || len(host) != 2 {
				t.Fatalf("cudaMalloc'd %d and malloc'd %d buffers of 1 MiB, want 2 each", len(dev), len(host))
			}
			in := tr.copies(trace.EventCUDAMemcpy, h2d, size)
			out := tr.copies(trace.EventCUDAMemcpy, d2h, size)
			if len(in) != iters || len(out) != iters {
				t.Fatalf("%d H2D and %d D2H copies of 1 MiB, want %d each", len(in), len(out), iters)
			}
			for _, e := range append(in, out...) {
				dst, src := e.Addr, e.Src
				if e.Kind == d2h {
					dst, src = src, dst
				}
				if !host[src] || !dev[dst] {
					t.Errorf("copy %#x -> %#x (kind %d) does not link a traced host and device buffer", e.Src, e.Addr, e.Kind)
				}
				tr.siteIn(t, e, name)
			}
			if n := tr.count(trace.EventCUDALaunchKernel); n != iters {
				t.Errorf("%d launches, want %d", n, iters)
			}
			for _, e := range tr.of(trace.EventCUDALaunchKernel) {
				gridX, blockX := uint32(e.Arg[0]), uint32(e.Arg[2])
				if gridX != size/4/256 || blockX != 256 || e.Arg[1] != 1 || e.Arg[3] != 1 {
					t.Errorf("launch grid (%d,%d) block (%d,%d), want (1024,1) (256,1): stack arguments misread?",
						gridX, e.Arg[1], blockX, e.Arg[3])
				}
			}
			frees := map[uint64]bool{}
			for _, e := range tr.of(trace.EventCUDAFree) {
				frees[e.Addr] = true
			}
			for p := range dev {
				if !frees[p] {
					t.Errorf("device buffer %#x was never freed in the trace", p)
				}
			}
			if n := tr.count(trace.EventFree); n < 2 {
				t.Errorf("%d frees of large host buffers, want at least 2", n)
			}
		})
	}
}

// The other workloads: call counts follow from their loops.
func TestTraceWorkloads(t *testing.T) {
	testenv.RequireRoot(t)
	const n = 5 // iterations: --iters 4 --warmup 1
	args := []string{"--iters", "4", "--warmup", "1"}
	type workload struct {
		name string
		args []string
		want map[trace.EventType]int
	}
	cases := []workload{
		{"compute", []string{"--size", "64K"}, map[trace.EventType]int{
			trace.EventCUDAMemcpy: 1 + 2*n, trace.EventCUDALaunchKernel: n, trace.EventCUDAMalloc: 3,
			trace.EventCUDAMallocHost: 3, trace.EventCUDAFreeHost: 3, trace.EventCUDAFree: 3,
		}},
		{"pipeline", []string{"--size", "256K"}, map[trace.EventType]int{
			trace.EventCUDAMemcpy: 1 + 4*n, trace.EventCUDALaunchKernel: 3 * n, trace.EventCUDAMalloc: 7,
			trace.EventCUDAMallocHost: 1, trace.EventCUDAHostAlloc: 1, trace.EventNewArray: 1,
			trace.EventDeleteArray: 1,
		}},
		{"multistream", []string{"--size", "1M"}, map[trace.EventType]int{
			trace.EventCUDAMemcpyAsync: 4 * n, trace.EventCUDALaunchKernel: 3 * n,
			trace.EventCUDAEventRecord: 2 * n, trace.EventCUDAStreamWaitEvent: n,
			trace.EventCUDAStreamSynchronize: 2 * n, trace.EventCUDAStreamCreate: 2,
			trace.EventCUDAStreamDestroy: 2, trace.EventCUDAHostAlloc: 4,
		}},
	}
	// The unsafe cases: one copy in and one out per iteration, two device buffers (one, used
	// in place, for unsafe_inplace).
	for _, name := range []string{"unsafe_live_value", "unsafe_sync_wait", "unsafe_ptr_identity", "unsafe_lifetime"} {
		cases = append(cases, workload{name, nil, map[trace.EventType]int{trace.EventCUDAMemcpy: 2 * n, trace.EventCUDAMalloc: 2}})
	}
	cases = append(cases, workload{"unsafe_inplace", nil, map[trace.EventType]int{trace.EventCUDAMemcpy: 2 * n, trace.EventCUDAMalloc: 1}},
		workload{"unsafe_memset_read", nil, map[trace.EventType]int{
			trace.EventCUDAMemcpy: 2 * n, trace.EventCUDAMalloc: 2, trace.EventCUDAMemset: n, trace.EventCUDADeviceSynchronize: n,
		}},
		workload{"unsafe_stream_refill", nil, map[trace.EventType]int{
			trace.EventCUDAMemcpyAsync: 2 * n, trace.EventCUDAMalloc: 2, trace.EventCUDAEventRecord: n,
			trace.EventCUDAStreamWaitEvent: n, trace.EventCUDAEventSynchronize: n, trace.EventCUDAStreamSynchronize: n,
			trace.EventCUDAStreamCreate: 2, trace.EventCUDAHostAlloc: 2,
		}})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, path := testenv.TraceOK(t, append([]string{"--host-allocs", "--launches", "--", testenv.Built(t, "workloads/"+c.name)}, append(c.args, args...)...)...)
			tr := readTrace(t, path)
			for typ, want := range c.want {
				if got := tr.count(typ); got != want {
					t.Errorf("%v: %d calls, want %d", typ, got, want)
				}
			}
		})
	}
}

// operator new[] calls malloc inside libstdc++: the allocation is recorded once, as new[].
func TestTraceNewArrayNotDoubleCounted(t *testing.T) {
	testenv.RequireRoot(t)
	_, path := testenv.TraceOK(t, "--host-allocs", "--", testenv.Built(t, "workloads/stream"), "--host", "new",
		"--size", "1M", "--iters", "2", "--warmup", "0")
	tr := readTrace(t, path)
	arrays := tr.allocated(trace.EventNewArray, 1<<20)
	if len(arrays) != 2 {
		t.Fatalf("%d new[] of 1 MiB, want 2", len(arrays))
	}
	for p := range tr.allocated(trace.EventMalloc, 1<<20) {
		if arrays[p] {
			t.Errorf("%#x recorded as both new[] and the malloc inside it", p)
		}
	}
	if n := tr.count(trace.EventDeleteArray); n != 2 {
		t.Errorf("%d delete[], want 2", n)
	}
}

// The runtime loaded with dlopen after start is probed before its first call returns.
func TestTraceDlopen(t *testing.T) {
	testenv.RequireRoot(t)
	const copies = 3
	_, path := testenv.TraceOK(t, "--", testenv.Built(t, "tests/dlopen_runtime"), strconv.Itoa(copies))
	tr := readTrace(t, path)
	if got := len(tr.copies(trace.EventCUDAMemcpy, h2d, 1<<20)); got != copies || len(tr.copies(trace.EventCUDAMemcpy, 3, 1<<20)) != copies {
		t.Errorf("%d H2D copies (and D2D), want %d", got, copies)
	}
	if got := tr.count(trace.EventCUDAMalloc); got != 2 {
		t.Errorf("%d cudaMalloc, want 2: the first call into the new library was missed?", got)
	}
}

// Sites keep their module whatever else the process maps: a data file mapped just below
// and just above the executable (as the driver maps /dev/nvidia* and programs map data
// files) and a runtime opened with dlopen after it, and every copy still resolves to the
// executable.
func TestTraceSitesSurviveDataMappings(t *testing.T) {
	testenv.RequireRoot(t)
	data := filepath.Join(t.TempDir(), "data.bin")
	if err := os.WriteFile(data, make([]byte, 4096), 0o644); err != nil {
		t.Fatal(err)
	}
	res, path := testenv.Trace(t, "--", testenv.Built(t, "tests/scattered_maps"), data, "4")
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "copies=8") {
		t.Fatalf("echoctl trace: exit %d, stdout %q: %s", res.ExitCode, res.Stdout, res.Stderr)
	}
	tr := readTrace(t, path)
	copies := tr.of(trace.EventCUDAMemcpy)
	if len(copies) != 8 {
		t.Fatalf("%d copies traced, want 8", len(copies))
	}
	for _, e := range copies {
		tr.siteIn(t, e, "scattered_maps")
	}
}

// The host-allocation filter is applied in the kernel: with --host-allocs, below
// --min-host-bytes nothing is recorded; by default (and with the old --no-host-allocs) no
// host allocation is recorded at all, and the header says so.
func TestTraceHostAllocFilter(t *testing.T) {
	testenv.RequireRoot(t)
	stream := testenv.Built(t, "workloads/stream")
	run := func(flags ...string) traced {
		res, path := testenv.Trace(t, append(flags, "--", stream, "--size", "32K", "--iters", "2", "--warmup", "0")...)
		if res.ExitCode != 0 {
			t.Fatalf("echoctl trace %v: exit %d: %s", flags, res.ExitCode, res.Stderr)
		}
		return readTrace(t, path)
	}
	if n := len(run("--host-allocs").allocated(trace.EventMalloc, 32<<10)); n != 0 {
		t.Errorf("default 64K filter: %d mallocs of 32 KiB recorded, want 0", n)
	}
	if n := len(run("--host-allocs", "--min-host-bytes", "16K").allocated(trace.EventMalloc, 32<<10)); n != 2 {
		t.Errorf("--min-host-bytes 16K: %d mallocs of 32 KiB recorded, want 2", n)
	}
	for _, flags := range [][]string{{"--min-host-bytes", "1"}, {"--no-host-allocs", "--min-host-bytes", "1"}} {
		none := run(flags...)
		for _, e := range none.events {
			if e.Type.IsHostAlloc() || e.Type == trace.EventFree || e.Type == trace.EventDeleteArray {
				t.Fatalf("%v recorded %v", flags, e.Type)
			}
		}
		if none.count(trace.EventCUDAMemcpy) != 4 || !none.header.NoHostAllocs {
			t.Errorf("%v: %d copies, header no_host_allocs %v; want 4, true", flags, none.count(trace.EventCUDAMemcpy), none.header.NoHostAllocs)
		}
	}
}

// A #! script runs another program, which a trace could not name as the plan's executable:
// trace refuses it and says which program to trace instead, rather than failing on its ELF.
func TestTraceRefusesScript(t *testing.T) {
	testenv.RequireRoot(t)
	script := filepath.Join(t.TempDir(), "wrapper")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nexec "+testenv.Built(t, "workloads/stream")+" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	res, _ := testenv.Trace(t, "--", script, "--iters", "1")
	if res.ExitCode == 0 || !strings.Contains(res.Stderr, "is a script (#!/bin/sh), which runs another program: trace that program itself") {
		t.Errorf("exit %d, stderr %q; want the script refused, saying why", res.ExitCode, res.Stderr)
	}
}

// Kernel launches are probed only when asked: by default the trace has none and its header
// says they were not probed; --launches records each one.
func TestTraceLaunchesOnlyAsked(t *testing.T) {
	testenv.RequireRoot(t)
	const n = 3 // --iters 2 --warmup 1
	for _, c := range []struct {
		flags    []string
		launches int
	}{{nil, 0}, {[]string{"--launches"}, n}} {
		t.Run(fmt.Sprint(c.flags), func(t *testing.T) {
			args := append(c.flags, "--", testenv.Built(t, "workloads/compute"), "--size", "64K", "--iters", "2", "--warmup", "1")
			_, path := testenv.TraceOK(t, args...)
			tr := readTrace(t, path)
			if got := tr.count(trace.EventCUDALaunchKernel); got != c.launches {
				t.Errorf("%d cudaLaunchKernel recorded, want %d", got, c.launches)
			}
			if tr.header.NoLaunches != (c.launches == 0) {
				t.Errorf("header no_launches %v, want %v", tr.header.NoLaunches, c.launches == 0)
			}
			if got := tr.count(trace.EventCUDAMemcpy); got != 1+2*n {
				t.Errorf("%d cudaMemcpy recorded, want %d: copies are traced either way", got, 1+2*n)
			}
		})
	}
}
