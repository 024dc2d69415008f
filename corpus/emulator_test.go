package corpus

import (
	"debug/elf"
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
)

// TestEmulatorSemantics runs each case of testdata/emulator/selftest.c in a process of its
// own, with the knobs the case asks for (`emu_selftest --list` prints NAME<TAB>ENV).
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
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			res := testenv.Run(t, selftest, strings.Fields(env), name)
			if res.ExitCode != 0 {
				t.Errorf("exit %d\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
			}
		})
	}
}

// The emulator must look like the real runtime to a tracer or a preload library: same
// soname, same versioned symbol names, nothing of its own exported but the kernel registry.
func TestEmulatorExports(t *testing.T) {
	f, err := elf.Open(testenv.Built(t, "lib/libcudart.so.12"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sonames, err := f.DynString(elf.DT_SONAME)
	if err != nil || len(sonames) != 1 || sonames[0] != "libcudart.so.12" {
		t.Errorf("soname %v (%v), want libcudart.so.12", sonames, err)
	}
	syms, err := f.DynamicSymbols()
	if err != nil {
		t.Fatal(err)
	}
	exported := map[string]bool{}
	for _, s := range syms {
		if s.Section == elf.SHN_UNDEF || elf.ST_TYPE(s.Info) != elf.STT_FUNC {
			continue
		}
		if s.Version != "libcudart.so.12" {
			t.Errorf("%s has version %q, want libcudart.so.12", s.Name, s.Version)
		}
		if !strings.HasPrefix(s.Name, "cuda") && s.Name != "emuRegisterKernel" {
			t.Errorf("%s is exported; only the runtime API should be", s.Name)
		}
		exported[s.Name] = true
	}
	for _, name := range runtimeAPI {
		if !exported[name] {
			t.Errorf("%s is not exported", name)
		}
	}
}

var runtimeAPI = []string{
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
