package plantest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// shim/thp.c reads whether a mapping may have transparent huge pages as the kernel's setting
// has it: under "always" every anonymous mapping, under "madvise" only one that asked
// (numpy's large arrays), under "never" (or without THP) none.
func TestTHPEligible(t *testing.T) {
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	out := filepath.Join(t.TempDir(), "thp_check")
	if msg, err := exec.Command(cc, "-std=c11", "-D_GNU_SOURCE", "-O1", "-Wall", "-Wextra", "-Werror",
		"testdata/thp_check.c", "../thp.c", "-o", out).CombinedOutput(); err != nil {
		t.Fatalf("building the harness: %v\n%s", err, msg)
	}
	got, err := exec.Command(out).Output()
	if err != nil {
		t.Fatal(err)
	}
	mode := "never"
	if b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled"); err == nil {
		if m := regexp.MustCompile(`\[(\w+)\]`).FindSubmatch(b); m != nil {
			mode = string(m[1])
		}
	}
	eligible := map[string][2]int{"always": {1, 1}, "madvise": {0, 1}}[mode] // plain, madvised; none otherwise
	if want := fmt.Sprintf("plain=%d madvised=%d", eligible[0], eligible[1]); strings.TrimSpace(string(got)) != want {
		t.Errorf("THP %q: %q; want %q", mode, strings.TrimSpace(string(got)), want)
	}
}
