package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// NeedClang skips a test that runs clang when there is none; CI installs it (.ci/run).
func NeedClang(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("clang"); err != nil {
		t.Skip("clang is not installed (apt-get install clang): the source path parses with it")
	}
}

// Tool is the path of Debian's program name (its package of the same name), or the test is
// skipped saying why it needs it (purpose: "to load the report"); with ECHO_REQUIRE_NAME=1
// (CI, which installs it) its absence fails the test instead.
func Tool(t testing.TB, name, purpose string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	require := "ECHO_REQUIRE_" + strings.ToUpper(name)
	if os.Getenv(require) == "1" {
		t.Fatalf("%s is not installed, and %s=1 requires it: apt-get install %s", name, require, name)
	}
	t.Skipf("needs Debian's %s %s (apt-get install %s; CI has it)", name, purpose, name)
	return ""
}

// SourceFixture copies testdata/source/<rel> to dir/name, making the directories it needs,
// and returns the copy's path.
func SourceFixture(t testing.TB, rel, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(Root(t), "testdata", "source", rel))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
