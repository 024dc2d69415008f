package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
)

// Every file echoctl writes beside a plan is named so that the one .gitignore line the
// README gives (*.plan.*) covers it, and the plan (*.plan) stays out of that pattern: run
// the commands that write them, as a user would, in a fresh directory.
func TestSideFilesMatchOneIgnoreLine(t *testing.T) {
	testenv.RequireRoot(t)
	dir := t.TempDir()
	echoctl, stream := testenv.Built(t, "bin/echoctl"), testenv.Built(t, "workloads/stream")
	program := []string{"--", stream, "--size", "256K", "--iters", "4", "--warmup", "1"}
	for _, args := range [][]string{
		append([]string{"optimize", "--rounds", "3", "--ignore", "^iter_ms="}, program...), // stream.plan, its trace and calibration
		append([]string{"run", "--print-env", "stream.plan"}, program...),
		{"report", "stream.plan"},
	} {
		cmd := exec.Command(echoctl, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "CUDA_EMU_COPY_DELAY_US=3000") // copies dear enough that a merge surely wins
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("echoctl %v: %v\n%s", args[0], err, out)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var side int
	for _, e := range entries {
		plan, _ := filepath.Match("*.plan", e.Name())
		ignored, _ := filepath.Match("*.plan.*", e.Name())
		switch {
		case plan && !ignored:
		case ignored && !plan:
			side++
		default:
			t.Errorf("%s: neither the plan nor a side file *.plan.* covers", e.Name())
		}
	}
	if side < 4 { // trace, calibration, deployment, report
		t.Errorf("%d side files in %v, want the trace, calibration record, deployment and report", side, entries)
	}
}
