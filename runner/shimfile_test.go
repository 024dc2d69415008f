package runner

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
)

// Only the preload library itself passes: not a missing file, not junk, not another shared
// library, not the library built for another architecture.
func TestCheckShim(t *testing.T) {
	junk := filepath.Join(t.TempDir(), "libechoshim.so")
	if err := os.WriteFile(junk, []byte("not a library\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CheckShim(testenv.Built(t, "lib/libechoshim.so")); err != nil {
		t.Errorf("the built preload library: %v", err)
	}
	for _, c := range []struct{ name, path, want string }{
		{"missing", "/nonexistent/libechoshim.so", "no such file"},
		{"junk", junk, "not a preload library"},
		{"another library", testenv.Built(t, "lib/libcudart.so.12"), "does not define echo_shim_marker"},
	} {
		if err := CheckShim(c.path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s (%s): %v; want an error saying %q", c.name, c.path, err, c.want)
		}
	}
	// make cross's arm64 build, where there is one, from amd64.
	other := filepath.Join(testenv.Root(t), "build", "arm64", "lib", "libechoshim.so")
	if _, err := os.Stat(other); err == nil && runtime.GOARCH == "amd64" {
		if err := CheckShim(other); err == nil || !strings.Contains(err.Error(), "not this machine's") {
			t.Errorf("the arm64 build of the library: %v; want it refused for its architecture", err)
		}
	}
}
