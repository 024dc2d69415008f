package check_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/echo-uma/echo/check"
	"github.com/echo-uma/echo/internal/testenv"
)

// check says the preload library is there only when it is one: ECHO_SHIM naming a missing
// file or junk is missing (and check exits 1), and junk at lib/libechoshim.so beside a copied
// echoctl is passed over for the library echoctl carries.
func TestCheckPreloadLibraryIsOne(t *testing.T) {
	dir := t.TempDir()
	bin, lib := filepath.Join(dir, "bin"), filepath.Join(dir, "lib")
	for _, d := range []string{bin, lib} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(testenv.Built(t, "bin/echoctl"))
	if err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(bin, "echoctl")
	junk := filepath.Join(lib, "libechoshim.so")
	if os.WriteFile(copied, b, 0o755) != nil || os.WriteFile(junk, []byte("junk\n"), 0o644) != nil {
		t.Fatal("writing the copy")
	}
	cache := filepath.Join(dir, "cache")
	for _, c := range []struct {
		name string
		env  []string
		ok   bool
	}{
		{"ECHO_SHIM missing", []string{"ECHO_SHIM=/nonexistent"}, false},
		{"ECHO_SHIM junk", []string{"ECHO_SHIM=" + junk}, false},
		{"junk beside echoctl", nil, true},
	} {
		res := testenv.Run(t, copied, append([]string{"ECHO_CACHE_DIR=" + cache}, c.env...), "check", "--json")
		rep, items := decode(t, res)
		pre := items["preload library"]
		if !c.ok {
			if pre.Status != check.StatusMissing || !strings.Contains(pre.Detail, "ECHO_SHIM") || rep.OK || res.ExitCode != 1 {
				t.Errorf("%s: preload library %+v, ok %v, exit %d: want missing, naming ECHO_SHIM, and exit 1",
					c.name, pre, rep.OK, res.ExitCode)
			}
			continue
		}
		if pre.Status != check.StatusOK || !strings.HasPrefix(pre.Detail, cache+"/") {
			t.Errorf("%s: preload library %+v: want the carried one, in %s", c.name, pre, cache)
		}
	}
}
