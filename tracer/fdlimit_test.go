package tracer_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
)

// A tracer that runs out of file descriptors while it loads says so, whichever of its
// descriptors was the one refused: not a verifier refusal with the kernel's BTF dump, not a
// kernel feature reported missing. Each limit below runs out at another step of the load.
func TestOutOfFileDescriptors(t *testing.T) {
	testenv.RequireRoot(t)
	echoctl, stream := testenv.Built(t, "bin/echoctl"), testenv.Built(t, "workloads/stream")
	out := t.TempDir() + "/trace.bin"
	loads := 0
	for limit := 14; limit <= 40; limit++ {
		// ulimit -n lowers the hard limit too, so Go cannot raise the soft one back at start.
		res := testenv.Run(t, "sh", nil, "-c", `ulimit -n `+strconv.Itoa(limit)+` && exec "$@"`, "sh",
			echoctl, "trace", "-o", out, "--", stream, "--iters", "2")
		if !strings.Contains(res.Stderr, "loading BPF programs") {
			continue // ran out before the load (starting) or after it (reading the program), or had enough
		}
		loads++
		if !strings.Contains(res.Stderr, "out of file descriptors (ulimit -n "+strconv.Itoa(limit)+",") ||
			strings.Contains(res.Stderr, "verifier") || strings.Contains(res.Stderr, "not supported") ||
			strings.Count(res.Stderr, "\n") > 3 {
			t.Errorf("ulimit -n %d: the load failed without saying it ran out of file descriptors:\n%s", limit, res.Stderr)
		}
	}
	if loads == 0 {
		t.Fatal("no limit made the load itself fail: the test no longer covers it")
	}
}
