package runner_test

import (
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
)

// The shim falls back to dlsym at its architecture's base glibc version where glibc predates
// 2.34 (JetPack 5); that version must name a dlsym on the architecture the shim was built
// for, or every dlsym in a preloaded process answers NULL (make test-arm64 runs this on
// arm64, where x86-64's GLIBC_2.2.5 would not).
func TestShimBaseGlibcHasDlsym(t *testing.T) {
	res := testenv.Run(t, testenv.Built(t, "tests/glibc_base"), nil)
	if res.ExitCode != 0 {
		t.Errorf("tests/glibc_base: exit %d: %s%s", res.ExitCode, res.Stdout, res.Stderr)
	}
}
