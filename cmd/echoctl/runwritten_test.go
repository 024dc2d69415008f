package main

import (
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
)

// A plan made for another executable runs the program as written, as `run --help` and the
// README say: one line on stderr saying why, the program's own output and exit status.
// --dry-run, which runs nothing, still refuses it.
func TestRunMismatchedPlanRunsAsWritten(t *testing.T) {
	_, planPath := testenv.Plan(t, "stream", "--size", "256K", "--iters", "3", "--warmup", "1")
	res := testenv.Echoctl(t, nil, "run", planPath, "--", "/bin/sh", "-c", "echo as written; exit 3")
	lines := strings.Split(strings.TrimSpace(res.Stderr), "\n")
	if res.ExitCode != 3 || res.Stdout != "as written\n" || len(lines) != 1 ||
		!strings.Contains(lines[0], "running the program as written: plan is for") {
		t.Errorf("exit %d, stdout %q, stderr %q: want the program's status 3 and output, and one line saying why",
			res.ExitCode, res.Stdout, res.Stderr)
	}
	res = testenv.Echoctl(t, nil, "run", "--dry-run", planPath, "--", "/bin/sh", "-c", "exit 3")
	if res.ExitCode != 1 || !strings.Contains(res.Stderr, "plan is for") {
		t.Errorf("--dry-run: exit %d, stderr %q: want the refusal", res.ExitCode, res.Stderr)
	}
}
