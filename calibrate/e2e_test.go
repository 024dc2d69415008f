package calibrate_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/planner"
	"github.com/echo-uma/echo/runner"
)

// Calibration finds the strategy that wins, refuses the one the managed-slowdown knob makes
// lose, and `echoctl run` then deploys the plan with the program's output unchanged.
func TestCalibrateThenRun(t *testing.T) {
	testenv.RequireRoot(t)
	// 8 MiB: the copies then take well over the few hundred microseconds a thread handoff
	// can cost on a loaded two-core machine, which at 1 MiB made rounds differ by 2×.
	args := []string{"--size", "8M", "--iters", "10", "--warmup", "1"}
	_, planPath := testenv.Plan(t, "stream", args...)
	stream := testenv.Built(t, "workloads/stream")
	want := testenv.RunWorkload(t, "stream", nil, args...).Checksum()

	res := testenv.Echoctl(t, nil, append([]string{"run", planPath, "--", stream}, args...)...)
	if res.ExitCode == 0 || !strings.Contains(res.Stderr, "never calibrated") {
		t.Errorf("run before calibrate: exit %d, stderr %q; want a refusal naming calibrate", res.ExitCode, res.Stderr)
	}
	slow := []string{"CUDA_EMU_MANAGED_SLOWDOWN=6"}
	res = testenv.Echoctl(t, slow, append([]string{"calibrate", "--unvalidated", "--rounds", "3", "--ignore", "^iter_ms=",
		"--strategy", "mapped,managed", planPath, "--", stream}, args...)...)
	if res.ExitCode != 0 {
		t.Fatalf("calibrate: exit %d: %s", res.ExitCode, res.Stderr)
	}
	p, err := planner.ReadFile(planPath)
	if err != nil {
		t.Fatal(err)
	}
	if p.Context.Strategy != "mapped" || p.Context.GPU != "Echo UMA Emulator" || p.Context.Runtime == 0 {
		t.Errorf("context %+v: want mapped chosen on the emulated device", p.Context)
	}
	for _, pair := range p.Pairs {
		if pair.Status != planner.StatusEnabled || !strings.Contains(strings.Join(pair.Evidence, " "), "calibrated over 3 rounds") {
			t.Errorf("%s: %s %v; want enabled with the calibration as evidence", pair.ID, pair.Status, pair.Evidence)
		}
	}
	res = testenv.Echoctl(t, []string{"CUDA_EMU_KERNEL_DELAY_US=2000"}, append([]string{"-v", "run", planPath, "--", stream}, args...)...)
	if res.ExitCode != 0 || res.Checksum() != want || !strings.Contains(res.Stderr, "2 of 2 pairs merged (mapped)") {
		t.Errorf("run: exit %d, checksum %s (want %s), stderr %q", res.ExitCode, res.Checksum(), want, res.Stderr)
	}
	// A plan calibrated on another device runs the program untouched.
	res = testenv.Echoctl(t, []string{"CUDA_EMU_DEVICE_NAME=Other GPU"}, append([]string{"-v", "run", planPath, "--", stream}, args...)...)
	if res.ExitCode != 0 || res.Checksum() != want || !strings.Contains(res.Stderr, `echo-shim: running the program untouched: the plan is for GPU "Echo UMA Emulator"`) {
		t.Errorf("run on another GPU: exit %d, checksum %s, stderr %q; want an untouched run saying why", res.ExitCode, res.Checksum(), res.Stderr)
	}
}

// S1: merged, the kernel reads the next batch. Nothing in the trace shows it; the output
// comparison refuses the plan, and run then runs the program as written.
func TestCalibrateRefusesChangedOutput(t *testing.T) {
	testenv.RequireRoot(t)
	args := []string{"--iters", "6", "--warmup", "1"}
	_, planPath := testenv.Plan(t, "unsafe_live_value", args...)
	prog := testenv.Built(t, "workloads/unsafe_live_value")
	res := testenv.Echoctl(t, nil, append([]string{"calibrate", "--unvalidated", "--rounds", "2", "--ignore", "^iter_ms=",
		planPath, "--", prog}, args...)...)
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "DIFFERS") {
		t.Fatalf("calibrate: exit %d, stdout %q: %s", res.ExitCode, res.Stdout, res.Stderr)
	}
	p, err := planner.ReadFile(planPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, pair := range p.Pairs {
		if pair.Status != planner.StatusRefused || !strings.HasPrefix(pair.Reason, "output differs") {
			t.Errorf("%s: %s %q; want refused: output differs", pair.ID, pair.Status, pair.Reason)
		}
	}
	want := testenv.RunWorkload(t, "unsafe_live_value", nil, args...).Checksum()
	res = testenv.Echoctl(t, nil, append([]string{"run", planPath, "--", prog}, args...)...)
	if res.ExitCode != 0 || res.Checksum() != want || !strings.Contains(res.Stderr, "as written") {
		t.Errorf("run: exit %d, checksum %s (want %s), stderr %q", res.ExitCode, res.Checksum(), want, res.Stderr)
	}
}

func TestRunRefusals(t *testing.T) {
	testenv.RequireRoot(t)
	args := []string{"--size", "1M", "--iters", "5", "--warmup", "1"}
	_, planPath := testenv.Plan(t, "stream", args...)
	_, staticPlan := testenv.Plan(t, "stream-static", args...)
	cases := []struct {
		name string
		argv []string
		want string
	}{
		{"another program", []string{"--force", planPath, "--", testenv.Built(t, "workloads/compute")}, "plan is for"},
		{"static runtime", []string{"--force", staticPlan, "--", testenv.Built(t, "workloads/stream-static")}, "-cudart shared"},
		{"no command", []string{planPath}, "give the plan, then -- and the command"},
		{"corrupt plan", []string{"--force", "/dev/null", "--", testenv.Built(t, "workloads/stream")}, "plan"},
	}
	for _, c := range cases {
		res := testenv.Echoctl(t, nil, append([]string{"run"}, c.argv...)...)
		if res.ExitCode == 0 || !strings.Contains(res.Stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want an error saying %q", c.name, res.ExitCode, res.Stderr, c.want)
		}
	}
	res := testenv.Echoctl(t, nil, append([]string{"run", "--dry-run", "--force", planPath, "--", testenv.Built(t, "workloads/stream")}, args...)...)
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "would merge 2 pairs") || !strings.Contains(res.Stdout, "host malloc at stream+") {
		t.Errorf("--dry-run: exit %d, stdout %q", res.ExitCode, res.Stdout)
	}
}

// --print-env deploys the plan for programs that something else starts: run with only that
// environment, the program merges the pairs and computes what it computed as written.
func TestRunPrintEnv(t *testing.T) {
	testenv.RequireRoot(t)
	args := []string{"--size", "1M", "--iters", "5", "--warmup", "1"}
	_, planPath := testenv.Plan(t, "stream", args...)
	stream := testenv.Built(t, "workloads/stream")
	want := testenv.RunWorkload(t, "stream", nil, args...).Checksum()

	res := testenv.Echoctl(t, nil, "run", "--json", "--print-env", "--force", planPath, "--", stream)
	var env map[string]string
	if err := json.Unmarshal([]byte(res.Stdout), &env); res.ExitCode != 0 || err != nil {
		t.Fatalf("--print-env --json: exit %d, stdout %q (%v): %s", res.ExitCode, res.Stdout, err, res.Stderr)
	}
	if env["ECHO_PLAN"] != planPath+".shim" || !strings.HasSuffix(env["LD_PRELOAD"], "/libechoshim.so") {
		t.Errorf("environment %v: want LD_PRELOAD on libechoshim.so and ECHO_PLAN=%s.shim", env, planPath)
	}
	report := filepath.Join(t.TempDir(), "report.json")
	got := testenv.RunWorkload(t, "stream", []string{"LD_PRELOAD=" + env["LD_PRELOAD"], "ECHO_PLAN=" + env["ECHO_PLAN"],
		"ECHO_REPORT=" + report, "CUDA_EMU_KERNEL_DELAY_US=2000"}, args...)
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var r runner.Report
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	if got.Checksum() != want || !r.Active || r.Merged != 2 || r.CopiesElided == 0 {
		t.Errorf("with the printed environment: checksum %s (want %s), report active %v, %d merged, %d copies elided",
			got.Checksum(), want, r.Active, r.Merged, r.CopiesElided)
	}

	// The shell form is for eval: one export per variable, quoted.
	res = testenv.Echoctl(t, nil, "run", "--print-env", "--force", planPath, "--", stream)
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "export ECHO_PLAN='"+planPath+".shim'\n") {
		t.Errorf("--print-env: exit %d, stdout %q", res.ExitCode, res.Stdout)
	}
}
