package runner_test

import (
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
)

// A program whose CUDA library lacks the functions it calls (here: no library at all) runs
// under the shim with every real function NULL: each hook must answer its documented error,
// never call through the NULL pointer (shim.h, SHIM_CALL).
func TestShimMissingRealFunction(t *testing.T) {
	shim := testenv.Built(t, "lib/libechoshim.so")
	res := testenv.Run(t, testenv.Built(t, "tests/missing_runtime"), []string{"LD_PRELOAD=" + shim})
	if res.ExitCode != 0 {
		t.Fatalf("tests/missing_runtime under the shim: exit %d: %s%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	if !strings.Contains(res.Stdout, "cudaLaunchKernel=3") {
		t.Errorf("cudaLaunchKernel did not answer cudaErrorInitializationError: %s", res.Stdout)
	}
}
