package corpus

import (
	"debug/elf"
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
)

// TestEmulatorSemantics runs each case of testdata/emulator/selftest.c in a process of its
// own, with the knobs the case asks for (`emu_selftest --list` prints NAME<TAB>ENV), then
// again with the runtime going through the emulated driver (CUDA_EMU_DRIVER=1), which must
// not change any of it.
func TestEmulatorSemantics(t *testing.T) {
	selftest := testenv.Built(t, "tests/emu_selftest")
	list := testenv.Run(t, selftest, nil, "--list")
	if list.ExitCode != 0 {
		t.Fatalf("emu_selftest --list: exit %d: %s", list.ExitCode, list.Stderr)
	}
	cases := strings.Split(strings.TrimSpace(list.Stdout), "\n")
	if len(cases) < 20 {
		t.Fatalf("emu_selftest lists %d cases, want the full suite", len(cases))
	}
	for _, line := range cases {
		name, env, _ := strings.Cut(line, "\t")
		for _, via := range []string{"", "CUDA_EMU_DRIVER=1"} {
			label := name
			if via != "" {
				label += "/via-driver"
			}
			t.Run(label, func(t *testing.T) {
				t.Parallel()
				res := testenv.Run(t, selftest, append(strings.Fields(env), strings.Fields(via)...), name)
				if res.ExitCode != 0 {
					t.Errorf("exit %d\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
				}
			})
		}
	}
}

// The emulator must look like the real runtime to a tracer or a preload library: same
// soname, same versioned symbol names, nothing of its own exported but the kernel registry
// and the entry points the emulated driver uses (emu_drv_*, no probe's name).
func TestEmulatorExports(t *testing.T) {
	exported := exportedFunctions(t, "lib/libcudart.so.12", "libcudart.so.12")
	for name, version := range exported {
		if version != "libcudart.so.12" {
			t.Errorf("%s has version %q, want libcudart.so.12", name, version)
		}
		// __cuda*: what nvcc's generated code calls (CUDA 13's <<<>>> lowering among them)
		if !strings.HasPrefix(name, "cuda") && !strings.HasPrefix(name, "__cuda") && name != "emuRegisterKernel" &&
			!strings.HasPrefix(name, "emu_drv_") {
			t.Errorf("%s is exported; only the runtime API should be", name)
		}
	}
	requireExported(t, "lib/libcudart.so.12", exported, runtimeAPI)
}

// The emulated driver likewise: libcuda.so.1 exporting the driver API's names, the _v2 ones
// where the real <cuda.h> maps the plain names to them, and nothing else.
func TestEmulatedDriverExports(t *testing.T) {
	exported := exportedFunctions(t, "lib/libcuda.so.1", "libcuda.so.1")
	for name := range exported {
		if !strings.HasPrefix(name, "cu") || strings.HasPrefix(name, "cuda") {
			t.Errorf("%s is exported; only the driver API should be", name)
		}
	}
	requireExported(t, "lib/libcuda.so.1", exported, driverAPI)
}

// exportedFunctions checks a built library's soname and returns the functions it defines
// and exports, with their symbol versions.
func exportedFunctions(t *testing.T, lib, soname string) map[string]string {
	t.Helper()
	f, err := elf.Open(testenv.Built(t, lib))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sonames, err := f.DynString(elf.DT_SONAME)
	if err != nil || len(sonames) != 1 || sonames[0] != soname {
		t.Errorf("%s: soname %v (%v), want %s", lib, sonames, err, soname)
	}
	syms, err := f.DynamicSymbols()
	if err != nil {
		t.Fatal(err)
	}
	exported := map[string]string{}
	for _, s := range syms {
		if s.Section != elf.SHN_UNDEF && elf.ST_TYPE(s.Info) == elf.STT_FUNC {
			exported[s.Name] = s.Version
		}
	}
	return exported
}

// requireExported checks that each of names is among a library's exported functions.
func requireExported(t *testing.T, lib string, exported map[string]string, names []string) {
	t.Helper()
	for _, name := range names {
		if _, ok := exported[name]; !ok {
			t.Errorf("%s: %s is not exported", lib, name)
		}
	}
}

var driverAPI = []string{
	"cuInit", "cuDriverGetVersion", "cuDeviceGetCount", "cuDeviceGet", "cuDevicePrimaryCtxRetain",
	"cuDevicePrimaryCtxRelease_v2", "cuCtxSetCurrent", "cuCtxSynchronize", "cuGetErrorName",
	"cuMemAlloc_v2", "cuMemAllocHost_v2", "cuMemHostAlloc", "cuMemAllocManaged", "cuMemFree_v2",
	"cuMemFreeHost", "cuMemcpyHtoD_v2", "cuMemcpyDtoH_v2", "cuMemcpyDtoD_v2", "cuMemcpyHtoDAsync_v2",
	"cuMemcpyDtoHAsync_v2", "cuMemcpyDtoDAsync_v2", "cuStreamCreate", "cuStreamDestroy_v2",
	"cuStreamSynchronize",
}

var runtimeAPI = []string{
	"__cudaGetKernel", "__cudaLaunchKernel", "__cudaLaunchKernel_ptsz",
	"cudaMalloc", "cudaFree", "cudaMallocHost", "cudaHostAlloc", "cudaFreeHost",
	"cudaHostGetDevicePointer", "cudaHostRegister", "cudaHostUnregister", "cudaMallocManaged",
	"cudaMemcpy", "cudaMemcpyAsync", "cudaMemcpy2D", "cudaMemcpy2DAsync", "cudaMemset",
	"cudaMemsetAsync", "cudaMemGetInfo", "cudaPointerGetAttributes", "cudaStreamCreate",
	"cudaStreamCreateWithFlags", "cudaStreamDestroy", "cudaStreamSynchronize", "cudaStreamQuery",
	"cudaStreamWaitEvent", "cudaDeviceSynchronize", "cudaEventCreate", "cudaEventCreateWithFlags",
	"cudaEventRecord", "cudaEventSynchronize", "cudaEventQuery", "cudaEventElapsedTime",
	"cudaEventDestroy", "cudaLaunchKernel", "cudaGetDevice", "cudaSetDevice", "cudaGetDeviceCount",
	"cudaGetDeviceProperties", "cudaGetDeviceProperties_v2", "cudaDeviceGetAttribute",
	"cudaRuntimeGetVersion", "cudaDriverGetVersion", "cudaGetLastError", "cudaPeekAtLastError",
	"cudaGetErrorString", "cudaGetErrorName",
}

// A malformed knob is reported on stderr and ignored, never silently taken for another value.
func TestEmulatorRejectsBadKnobs(t *testing.T) {
	for _, env := range []string{
		"CUDA_EMU_MEM_LIMIT=M", "CUDA_EMU_MEM_LIMIT=20000000000G", "CUDA_EMU_MEM_LIMIT=-1",
		"CUDA_EMU_KERNEL_DELAY_US=soon", "CUDA_EMU_MANAGED_SLOWDOWN=0.5", "CUDA_EMU_CC=nine",
		"CUDA_EMU_INTEGRATED=2",
	} {
		res := testenv.RunWorkload(t, "stream", []string{env}, workloadArgs["stream"]...)
		if want := "cuda-emu: ignoring " + env; !strings.Contains(res.Stderr, want) {
			t.Errorf("%s: stderr %q lacks %q", env, res.Stderr, want)
		}
	}
}

// CUDA_EMU_FAIL_ALLOC fails exactly the N-th runtime allocation.
func TestEmulatorFailAlloc(t *testing.T) {
	stream := testenv.Built(t, "workloads/stream")
	args := workloadArgs["stream"]
	failed := testenv.Run(t, stream, []string{"CUDA_EMU_FAIL_ALLOC=2"}, args...)
	if failed.ExitCode != 1 || !strings.Contains(failed.Stderr, "cudaErrorMemoryAllocation") || !strings.Contains(failed.Stderr, "d_out") {
		t.Errorf("CUDA_EMU_FAIL_ALLOC=2: exit %d, stderr %q; want the second cudaMalloc (d_out) to fail", failed.ExitCode, failed.Stderr)
	}
	testenv.RunWorkload(t, "stream", []string{"CUDA_EMU_FAIL_ALLOC=99"}, args...)
}
