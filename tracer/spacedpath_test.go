package tracer_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/trace"
)

// A CUDA runtime under a directory whose name holds spaces ("/opt/my cuda/lib") is found and
// probed: /proc/PID/maps prints such a path as several words, and reading only the first
// once made the library invisible (no copy traced, "no CUDA runtime").
func TestTraceRuntimeUnderPathWithSpaces(t *testing.T) {
	testenv.RequireRoot(t)
	dir := filepath.Join(t.TempDir(), "my cuda", "lib  64")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, lib := range []string{"libcudart.so.12", "libcuda.so.1"} {
		data, err := os.ReadFile(testenv.Built(t, "lib/"+lib))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, lib), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	runtime := filepath.Join(dir, "libcudart.so.12")

	const iters, size = 4, 1 << 20
	out := filepath.Join(t.TempDir(), "trace.bin")
	// LD_LIBRARY_PATH is searched before the workload's RUNPATH ($ORIGIN/../lib), so the
	// copy is the runtime it loads.
	testenv.EchoctlOK(t, []string{"LD_LIBRARY_PATH=" + dir}, "trace", "-o", out, "--",
		testenv.Built(t, "workloads/stream"), "--size", "1M", "--iters", "3", "--warmup", "1")
	tr := readTrace(t, out)
	var paths []string
	found := false
	for _, m := range tr.modules.List() {
		paths = append(paths, m.Path)
		found = found || m.Path == runtime
	}
	if !found {
		t.Fatalf("the trace's modules do not name %q:\n%s", runtime, strings.Join(paths, "\n"))
	}
	in := tr.copies(trace.EventCUDAMemcpy, h2d, size)
	back := tr.copies(trace.EventCUDAMemcpy, d2h, size)
	if len(in) != iters || len(back) != iters {
		t.Fatalf("%d H2D and %d D2H copies of 1 MiB traced, want %d each", len(in), len(back), iters)
	}
	for _, e := range append(in, back...) {
		tr.siteIn(t, e, "stream")
	}
}
