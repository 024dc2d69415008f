package runner_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
)

// A program that forks and uses CUDA in the child merges there: run adds up what each
// process did (each reports, and the parent that exits last no longer hides the child's
// merges), and with -v lists the processes. The parent, which merged nothing itself, does
// not say the plan matched nothing.
func TestForkedChildMerges(t *testing.T) {
	testenv.RequireRoot(t)
	_, plan := testenv.PlanProgram(t, "tests/forked_loop") // the loop in the process itself
	prog := testenv.Built(t, "tests/forked_loop")
	want := testenv.Run(t, prog, nil, "--fork")
	if want.ExitCode != 0 || want.Checksum() == "" {
		t.Fatalf("forked_loop --fork: exit %d: %s", want.ExitCode, want.Stderr)
	}
	res := testenv.Echoctl(t, nil, "-v", "run", "--force", plan, "--", prog, "--fork")
	if res.ExitCode != 0 || res.Checksum() != want.Checksum() {
		t.Fatalf("run of forked_loop --fork: exit %d, checksum %q (want %s): %s", res.ExitCode, res.Checksum(), want.Checksum(), res.Stderr)
	}
	if !strings.Contains(res.Stderr, "2 of 2 pairs merged") || strings.Contains(res.Stderr, "matched nothing") {
		t.Errorf("run does not count the child's merges: %s", res.Stderr)
	}
	if n := len(regexp.MustCompile(`(?m)^echoctl:   process \d+: `).FindAllString(res.Stderr, -1)); n != 2 {
		t.Errorf("%d processes listed, want the parent and the child: %s", n, res.Stderr)
	}
}
