package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/plan"
)

// A trace that follows a shell to the CUDA program it starts makes a plan for that program,
// not for the shell: its executable is the program's (the shell is its launcher), and
// validate, calibrate and run take the shell's command line and apply the plan in the
// program's process. (The plan named the shell, and validate refused it by build-id.)
func TestFollowPlanIsForTheProgram(t *testing.T) {
	testenv.RequireRoot(t)
	t.Setenv("CUDA_EMU_COPY_DELAY_US", "20000") // slow copies: merging wins by far, traced as calibrated
	stream := testenv.Built(t, "workloads/stream")
	script := stream + " --size 1M --iters 5 --warmup 1; true"
	shell := []string{"/bin/sh", "-c", script}
	want := testenv.RunWorkload(t, "stream", nil, "--size", "1M", "--iters", "5", "--warmup", "1").Checksum()
	res, tracePath := testenv.TraceOK(t, append([]string{"--follow", "--"}, shell...)...)
	planPath := filepath.Join(t.TempDir(), "stream.plan")
	testenv.EchoctlOK(t, nil, "plan", "-o", planPath, tracePath)
	p := testenv.ReadPlan(t, planPath)
	if filepath.Base(p.Context.Executable.Path) != "stream" || p.Context.Launcher == nil ||
		!strings.Contains(filepath.Base(p.Context.Launcher.Path), "sh") {
		t.Fatalf("context %+v, launcher %+v: want the plan for stream, launched by the shell", p.Context, p.Context.Launcher)
	}
	if n := len(p.PairsIn(plan.StatusCandidate)); n != 2 {
		t.Errorf("%d candidate pairs, want stream's 2", n)
	}
	res = testenv.EchoctlOK(t, nil, append([]string{"validate", planPath, "--"}, shell...)...)
	res = testenv.EchoctlOK(t, nil, append([]string{"calibrate", "--rounds", "2",
		"--ignore", "^iter_ms=", planPath, "--"}, shell...)...)
	p = testenv.ReadPlan(t, planPath)
	if n := len(p.PairsIn(plan.StatusEnabled)); n != 2 {
		t.Fatalf("%d pairs enabled, want 2: %s", n, res.Stdout)
	}
	res = testenv.Echoctl(t, nil, append([]string{"-v", "run", planPath, "--"}, shell...)...)
	if res.ExitCode != 0 || res.Checksum() != want || !strings.Contains(res.Stderr, " of 2 pairs ") {
		t.Errorf("run through the shell: exit %d, checksum %s (want %s), stderr %q", res.ExitCode, res.Checksum(), want, res.Stderr)
	}
	// Another program: the plan is for stream only, so the shell is not enough.
	res = testenv.Echoctl(t, nil, "validate", planPath, "--", testenv.Built(t, "workloads/compute"))
	if res.ExitCode == 0 || !strings.Contains(res.Stderr, "the command it was traced through") {
		t.Errorf("validate of another program: exit %d, stderr %q; want a refusal naming both", res.ExitCode, res.Stderr)
	}
}

// Two CUDA programs under one followed shell: the plan is for the one whose copies make the
// loop, and the other's pairs are refused, saying whose they are: the shim never applies the
// plan in a process that runs another executable.
func TestFollowPlanRefusesAnotherProgramsPairs(t *testing.T) {
	testenv.RequireRoot(t)
	script := testenv.Built(t, "workloads/stream") + " --size 1M --iters 8 --warmup 1; " +
		testenv.Built(t, "workloads/compute") + " --size 1M --iters 2 --warmup 0"
	_, tracePath := testenv.TraceOK(t, "--follow", "--", "/bin/sh", "-c", script)
	planPath := filepath.Join(t.TempDir(), "two.plan")
	testenv.EchoctlOK(t, nil, "plan", "-o", planPath, tracePath)
	p := testenv.ReadPlan(t, planPath)
	program, other := filepath.Base(p.Context.Executable.Path), "compute"
	if program == "compute" {
		other = "stream"
	}
	if program != "stream" && program != "compute" {
		t.Fatalf("the plan is for %s, want stream or compute", p.Context.Executable.Path)
	}
	others := 0
	for _, pair := range p.Pairs {
		whose := filepath.Base(pair.Device.Site.Module)
		refused := strings.Contains(pair.Reason, "made by another program of the trace ("+other)
		switch {
		case whose == other && refused:
			others++
		case whose == other, whose == program && refused:
			t.Errorf("%s, %s's: %s %q", pair.ID, whose, pair.Status, pair.Reason)
		}
	}
	if others == 0 {
		t.Errorf("no pair of %s refused as another program's", other)
	}
}
