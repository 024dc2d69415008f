package corpus

import (
	"debug/elf"
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
)

// Small sizes keep the suite quick on two cores; the logic is the same at any size.
var workloadArgs = map[string][]string{
	"stream":       {"--size", "1M", "--iters", "6", "--warmup", "1"},
	"compute":      {"--size", "64K", "--iters", "4", "--warmup", "1"},
	"pipeline":     {"--size", "512K", "--iters", "6", "--warmup", "1"},
	"multistream":  {"--size", "1M", "--iters", "6", "--warmup", "1"},
	"framework":    {"--size", "1M", "--iters", "6", "--warmup", "1"},
	"memset":       {"--size", "1M", "--iters", "6", "--warmup", "1"},
	"async_stream": {"--size", "1M", "--iters", "6", "--warmup", "1"},
	"doublebuffer": {"--size", "1M", "--iters", "5", "--warmup", "1"},
	"chunked":      {"--size", "1M", "--iters", "6", "--warmup", "1"},
	"background":   {"--size", "1M", "--iters", "6", "--warmup", "1"},
}

var unsafeCases = []string{
	"unsafe_live_value", "unsafe_sync_wait", "unsafe_ptr_identity", "unsafe_lifetime", "unsafe_inplace",
	"unsafe_memset_read", "unsafe_stream_refill", "unsafe_doublebuffer",
	"unsafe_chunked", "unsafe_live_value-ptds",
}

// delay widens every race window: a program that is not correctly ordered gives another answer.
var delay = []string{"CUDA_EMU_KERNEL_DELAY_US=3000"}

// The hand-merged reference computes what the program as written does, whether run as the
// <name>-manual build or as the program itself with --manual (the same binary, which the
// benchmarks use so that both share their code layout).
func TestManualMatchesBaseline(t *testing.T) {
	for name, args := range workloadArgs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			base := testenv.RunWorkload(t, name, nil, args...)
			for _, strategy := range []string{"managed", "mapped"} {
				manual := testenv.RunWorkload(t, name+"-manual", nil, append(args, "--strategy", strategy)...)
				same := testenv.RunWorkload(t, name, nil, append(args, "--manual", "--strategy", strategy)...)
				if manual.Checksum() != base.Checksum() || same.Checksum() != base.Checksum() {
					t.Errorf("--strategy %s: checksum %s (%s-manual) and %s (%s --manual), baseline %s",
						strategy, manual.Checksum(), name, same.Checksum(), name, base.Checksum())
				}
				if !strings.Contains(same.Stderr, "variant=manual") {
					t.Errorf("%s --manual: stderr %q does not say variant=manual", name, same.Stderr)
				}
			}
		})
	}
}

// framework moves its tensors as PyTorch and CuPy do; its host allocators (fresh every
// iteration, a pool, pinned by hand) and its two APIs (runtime, driver) must all compute the
// baseline's bytes, also with the race windows widened.
func TestFrameworkVariants(t *testing.T) {
	args := workloadArgs["framework"]
	want := testenv.RunWorkload(t, "framework", nil, args...).Checksum()
	for _, variant := range [][]string{{"--pool"}, {"--driver"}, {"--driver", "--pool"}, {"--driver", "--manual"}} {
		for _, env := range [][]string{nil, delay} {
			got := testenv.RunWorkload(t, "framework", env, append(args, variant...)...).Checksum()
			if got != want {
				t.Errorf("framework %v (env %v): checksum %s, baseline %s", variant, env, got, want)
			}
		}
	}
}

// staging's framework stages the program's arrays through page-locked buffers of its own, or
// copies from them directly where they are page-locked (--manual, and the -manual build);
// staged both ways (--stage-out) or one, every variant computes the baseline's bytes, also
// with the race windows widened.
func TestStagingVariants(t *testing.T) {
	args := []string{"--size", "1M", "--iters", "6", "--warmup", "1"}
	want := testenv.RunWorkload(t, "staging", nil, args...).Checksum()
	for _, variant := range [][]string{{"--stage-out"}, {"--manual"}, {"--manual", "--stage-out"}} {
		for _, env := range [][]string{nil, delay} {
			got := testenv.RunWorkload(t, "staging", env, append(args, variant...)...).Checksum()
			if got != want {
				t.Errorf("staging %v (env %v): checksum %s, baseline %s", variant, env, got, want)
			}
		}
	}
	if got := testenv.RunWorkload(t, "staging-manual", delay, args...).Checksum(); got != want {
		t.Errorf("staging-manual: checksum %s, baseline %s", got, want)
	}
}

func TestSystemStrategyNeedsPageableAccess(t *testing.T) {
	args := append(workloadArgs["stream"], "--strategy", "system")
	refused := testenv.Run(t, testenv.Built(t, "workloads/stream-manual"), nil, args...)
	if refused.ExitCode != 2 || !strings.Contains(refused.Stderr, "pageable memory access") {
		t.Errorf("without pageable access: exit %d, stderr %q; want exit 2 naming the attribute",
			refused.ExitCode, refused.Stderr)
	}
	base := testenv.RunWorkload(t, "stream", nil, workloadArgs["stream"]...)
	merged := testenv.RunWorkload(t, "stream-manual", []string{"CUDA_EMU_PAGEABLE_ACCESS=1"}, args...)
	if merged.Checksum() != base.Checksum() {
		t.Errorf("system strategy: checksum %s, baseline %s", merged.Checksum(), base.Checksum())
	}
}

// Every baseline is correctly ordered: widening the race windows must not change its answer.
func TestBaselineStableUnderDelay(t *testing.T) {
	all := map[string][]string{}
	for name, args := range workloadArgs {
		all[name] = args
	}
	for _, name := range unsafeCases {
		all[name] = []string{"--iters", "3"}
	}
	for name, args := range all {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			plain := testenv.RunWorkload(t, name, nil, args...)
			slow := testenv.RunWorkload(t, name, delay, args...)
			if plain.Checksum() != slow.Checksum() {
				t.Errorf("checksum %s without delay, %s with %v", plain.Checksum(), slow.Checksum(), delay)
			}
		})
	}
}

// Each unsafe case must really be unsafe: its naive merge computes something else.
func TestNaiveMergeChangesOutput(t *testing.T) {
	for _, name := range unsafeCases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			args := []string{"--iters", "3"}
			base := testenv.RunWorkload(t, name, nil, args...)
			for _, strategy := range []string{"managed", "mapped"} {
				naive := testenv.Run(t, testenv.Built(t, "workloads/"+name+"-naive"), delay,
					append(args, "--strategy", strategy)...)
				if naive.ExitCode == 0 && naive.Checksum() == base.Checksum() {
					t.Errorf("%s-naive --strategy %s computed the baseline's checksum %s; the case does not show the hazard",
						name, strategy, base.Checksum())
				}
			}
		})
	}
}

func TestHostAllocators(t *testing.T) {
	args := workloadArgs["stream"]
	want := testenv.RunWorkload(t, "stream", nil, args...).Checksum()
	for _, host := range []string{"new", "pinned", "hostalloc"} {
		got := testenv.RunWorkload(t, "stream", nil, append(args, "--host", host)...).Checksum()
		if got != want {
			t.Errorf("--host %s: checksum %s, malloc gave %s", host, got, want)
		}
	}
}

// The static build carries the runtime inside the executable, as `nvcc -cudart static` does.
func TestStaticRuntime(t *testing.T) {
	path := testenv.Built(t, "workloads/stream-static")
	f, err := elf.Open(path)
	if err != nil {
		t.Fatalf("opening %s: %v", path, err)
	}
	defer f.Close()
	libs, err := f.ImportedLibraries()
	if err != nil {
		t.Fatalf("reading DT_NEEDED of %s: %v", path, err)
	}
	for _, lib := range libs {
		if strings.Contains(lib, "libcudart") {
			t.Errorf("stream-static needs %s; the runtime should be linked in", lib)
		}
	}
	syms, err := f.Symbols()
	if err != nil {
		t.Fatalf("reading the symbol table of %s: %v", path, err)
	}
	if !hasSymbol(syms, "cudaMemcpy") || !hasSymbol(syms, "cudaLaunchKernel") {
		t.Error("stream-static's symbol table lacks cudaMemcpy or cudaLaunchKernel")
	}
	args := workloadArgs["stream"]
	static := testenv.RunWorkload(t, "stream-static", nil, args...)
	shared := testenv.RunWorkload(t, "stream", nil, args...)
	if static.Checksum() != shared.Checksum() {
		t.Errorf("static checksum %s, shared %s", static.Checksum(), shared.Checksum())
	}
}

func hasSymbol(syms []elf.Symbol, name string) bool {
	for _, s := range syms {
		if s.Name == name && s.Section != elf.SHN_UNDEF {
			return true
		}
	}
	return false
}

func TestWorkloadRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{{"--size", "lots"}, {"--iters", "0"}, {"--host", "mmap"}, {"--bogus", "1"}, {"--size"}} {
		res := testenv.Run(t, testenv.Built(t, "workloads/stream"), nil, args...)
		if res.ExitCode != 2 || !strings.Contains(res.Stderr, "usage:") {
			t.Errorf("stream %v: exit %d, stderr %q; want exit 2 with usage", args, res.ExitCode, res.Stderr)
		}
	}
}
