package check_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/echo-uma/echo/check"
	"github.com/echo-uma/echo/internal/testenv"
)

// echoctl copied alone, with no lib/ beside it, still finds a preload library: the one it
// carries, written to its cache, which then works (the device probe preloads it), and which
// `echoctl version` names by the hash of the library make built.
func TestCopiedEchoctlCarriesTheShim(t *testing.T) {
	dir := t.TempDir()
	solo := filepath.Join(dir, "bin", "echoctl")
	if err := os.MkdirAll(filepath.Dir(solo), 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(testenv.Built(t, "bin/echoctl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(solo, b, 0o755); err != nil {
		t.Fatal(err)
	}
	shim, err := os.ReadFile(testenv.Built(t, "lib/libechoshim.so"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(shim)
	want := hex.EncodeToString(sum[:])

	cache := filepath.Join(dir, "cache")
	env := []string{"ECHO_CACHE_DIR=" + cache, "LD_LIBRARY_PATH=" + filepath.Dir(testenv.Built(t, "lib/libcudart.so.12"))}
	res := testenv.Run(t, solo, env, "check", "--json")
	_, items := decode(t, res)
	pre := items["preload library"]
	if pre.Status != check.StatusOK || pre.Detail != filepath.Join(cache, "shim-"+want[:16], "libechoshim.so") {
		t.Errorf("preload library %+v: want the carried one, in %s under its hash", pre, cache)
	}
	if gpu := items["GPU"]; gpu.Status != check.StatusOK {
		t.Errorf("GPU %+v: want the emulator, probed through the carried library", gpu)
	}

	res = testenv.Run(t, solo, nil, "version", "--json")
	var v struct {
		Shim string `json:"shim_sha256"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &v); err != nil || v.Shim != want {
		t.Errorf("version --json: %q (%v): want the shim's sha256 %s", strings.TrimSpace(res.Stdout), err, want)
	}
}
