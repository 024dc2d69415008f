package calibrate_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/shell"
	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/runner"
)

// slowLink makes every host↔device copy of the emulator take 20 ms, so that removing the
// copies wins by far more than a loaded two-core machine can hide: the test checks the
// plumbing of calibration (numbers, device, strategy, digest, deploy), not the machine's
// timing, which TestDecide checks through the rule.
const slowLink = "CUDA_EMU_COPY_DELAY_US=20000"

// Calibration enables the strategy that wins and refuses the one the managed-slowdown knob
// makes lose; `echoctl run` then deploys the plan with the program's output unchanged, and
// runs the program untouched on another device.
func TestCalibrateThenRun(t *testing.T) {
	t.Setenv("CUDA_EMU_COPY_DELAY_US", "20000") // the trace must see the copies as they will be
	planPath, stream, args := streamPlan(t)
	want := testenv.RunWorkload(t, "stream", nil, args...).Checksum()

	res := testenv.Echoctl(t, nil, append([]string{"run", planPath, "--", stream}, args...)...)
	if res.ExitCode == 0 || !strings.Contains(res.Stderr, "never calibrated") {
		t.Errorf("run before calibrate: exit %d, stderr %q; want a refusal naming calibrate", res.ExitCode, res.Stderr)
	}
	// Managed memory makes the kernel 1000× slower: far slower than the copies it saves.
	slow := []string{"CUDA_EMU_MANAGED_SLOWDOWN=1000"}
	res = testenv.EchoctlOK(t, slow, append([]string{"calibrate", "--unvalidated", "--rounds", "3", "--ignore", "^iter_ms=",
		"--strategy", "mapped,managed", planPath, "--", stream}, args...)...)
	p := testenv.ReadPlan(t, planPath)
	if p.Savings == nil || p.Savings.Strategy != "mapped" || p.Savings.BytesSkipped == 0 || p.Savings.Finding.CalibrateMS <= 0 {
		t.Errorf("savings %+v; want the mapped plan's, as plan --json and the report show them", p.Savings)
	}
	if p.Context.Strategy != "mapped" || p.Context.GPU != "Echo UMA Emulator" || p.Context.Runtime == 0 || p.Context.PairsDigest == "" {
		t.Errorf("context %+v: want mapped chosen on the emulated device, with the digest of the enabled pairs", p.Context)
	}
	for _, pair := range p.Pairs {
		// Three rounds asked, and more run: seven are the fewest that can show a gain 99% sure.
		if pair.Status != plan.StatusEnabled || !regexp.MustCompile(`calibrated over ([7-9]|\d\d) rounds`).MatchString(strings.Join(pair.Evidence, " ")) {
			t.Errorf("%s: %s %v; want enabled with the calibration as evidence", pair.ID, pair.Status, pair.Evidence)
		}
	}
	// The first run derives the deployment and keeps it; the next deploys what it kept.
	cache := "ECHO_CACHE_DIR=" + t.TempDir()
	const kept = "deploying what an earlier run of this plan derived"
	res = testenv.Echoctl(t, []string{"CUDA_EMU_KERNEL_DELAY_US=2000", cache}, append([]string{"-v", "run", planPath, "--", stream}, args...)...)
	if res.ExitCode != 0 || res.Checksum() != want || !strings.Contains(res.Stderr, "2 of 2 pairs merged (mapped)") ||
		strings.Contains(res.Stderr, kept) {
		t.Errorf("run: exit %d, checksum %s (want %s), stderr %q", res.ExitCode, res.Checksum(), want, res.Stderr)
	}
	// A plan calibrated on another device runs the program untouched, kept or not.
	res = testenv.Echoctl(t, []string{"CUDA_EMU_DEVICE_NAME=Other GPU", cache}, append([]string{"-v", "run", planPath, "--", stream}, args...)...)
	if res.ExitCode != 0 || res.Checksum() != want || !strings.Contains(res.Stderr, kept) ||
		!strings.Contains(res.Stderr, `echo-shim: running the program untouched: the plan is for GPU "Echo UMA Emulator"`) {
		t.Errorf("run on another GPU: exit %d, checksum %s, stderr %q; want an untouched run of the kept deployment, saying why",
			res.ExitCode, res.Checksum(), res.Stderr)
	}
	// Kept for this plan, the deployment is still checked against the program.
	res = testenv.Echoctl(t, []string{cache}, append([]string{"-v", "run", planPath, "--", testenv.Built(t, "workloads/compute")}, args...)...)
	if res.ExitCode != 0 || !strings.Contains(res.Stderr, "running the program as written: plan is for") {
		t.Errorf("kept deployment, another program: exit %d, stderr %q; want it run as written, saying why", res.ExitCode, res.Stderr)
	}
	checkTamperEvident(t, p, planPath, append([]string{stream}, args...), want)
}

// A plan is only what validation and calibration saw: a schema-valid edit that swaps two
// pairs' device sites (which would merge the wrong buffers and change the output) or marks a
// pair enabled without calibration runs the program untouched, saying why in one line; the
// same edit to the deployment --print-env writes is refused by the shim itself.
func checkTamperEvident(t *testing.T, p *plan.Plan, planPath string, argv []string, want string) {
	t.Helper()
	edited := testenv.SwappedDevices(p)
	swapped := testenv.WritePlan(t, edited, "swapped.plan")
	noDigest := *edited
	noDigest.Pairs, noDigest.Context.PairsDigest = p.Pairs, ""
	unsigned := testenv.WritePlan(t, &noDigest, "unsigned.plan")
	for _, plan := range []string{swapped, unsigned} {
		res := testenv.Echoctl(t, nil, append([]string{"run", plan, "--"}, argv...)...)
		if res.ExitCode != 0 || res.Checksum() != want || !strings.Contains(res.Stderr, "not the ones calibration measured") {
			t.Errorf("run %s: exit %d, checksum %s (want %s), stderr %q; want an untouched run saying why",
				filepath.Base(plan), res.ExitCode, res.Checksum(), want, res.Stderr)
		}
		res = testenv.Echoctl(t, nil, "run", "--print-env", plan, "--", argv[0])
		if res.ExitCode == 0 || !strings.Contains(res.Stderr, "not the ones calibration measured") {
			t.Errorf("--print-env %s: exit %d, stderr %q; want a refusal", filepath.Base(plan), res.ExitCode, res.Stderr)
		}
	}

	res := testenv.Echoctl(t, nil, "run", "--json", "--print-env", planPath, "--", argv[0])
	var doc struct{ Env map[string]string }
	if err := json.Unmarshal([]byte(res.Stdout), &doc); res.ExitCode != 0 || err != nil {
		t.Fatalf("--print-env: exit %d, stdout %q (%v): %s", res.ExitCode, res.Stdout, err, res.Stderr)
	}
	env := doc.Env
	deployed, err := os.ReadFile(env["ECHO_PLAN"])
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(deployed), "\n")
	var devices []int
	for i, l := range lines {
		if strings.HasPrefix(l, "device ") {
			devices = append(devices, i)
		}
	}
	lines[devices[0]], lines[devices[1]] = lines[devices[1]], lines[devices[0]]
	if err := os.WriteFile(env["ECHO_PLAN"], []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	got := testenv.Run(t, argv[0], []string{"LD_PRELOAD=" + env["LD_PRELOAD"], "ECHO_PLAN=" + env["ECHO_PLAN"]}, argv[1:]...)
	if got.ExitCode != 0 || got.Checksum() != want ||
		!strings.Contains(got.Stderr, "echo-shim: running the program untouched: the plan's pairs are not the ones calibration measured") {
		t.Errorf("the edited deployment: exit %d, checksum %s (want %s), stderr %q; want an untouched run saying why",
			got.ExitCode, got.Checksum(), want, got.Stderr)
	}
}

// A gain the trace's copies cannot explain is not believed: traced with fast copies,
// calibrated with slow ones, merging "saves" 40 ms per iteration where the trace saw a
// fraction of a millisecond of copies. Calibration measures on past the two rounds asked for,
// until the rounds show the gain 99% sure, then enables nothing and says why.
func TestCalibrateRefusesUnexplainedGain(t *testing.T) {
	planPath, stream, args := streamPlan(t)
	res := testenv.Echoctl(t, []string{slowLink}, append([]string{"calibrate", "--unvalidated", "--rounds", "2",
		"--strategy", "mapped", "--ignore", "^iter_ms=", planPath, "--", stream}, args...)...)
	if res.ExitCode != 0 || !strings.Contains(res.Stderr, "round 7 (more while mapped undecided)") ||
		!strings.Contains(res.Stdout, "not believed") {
		t.Fatalf("calibrate: exit %d, stdout %q, stderr %q; want 7 rounds or more where 2 were asked, the gain not believed",
			res.ExitCode, res.Stdout, res.Stderr)
	}
	p := testenv.ReadPlan(t, planPath)
	if p.Context.Strategy != "" || p.Context.PairsDigest != "" {
		t.Errorf("context %+v: want no strategy enabled", p.Context)
	}
	for _, pair := range p.Pairs {
		if pair.Status != plan.StatusCalibrated || !strings.Contains(strings.Join(pair.Evidence, " "), "more than the") {
			t.Errorf("%s: %s %v; want calibrated, the gain not believed", pair.ID, pair.Status, pair.Evidence)
		}
	}
}

// streamPlan plans stream on 1 MiB for 5 iterations and returns the plan's path, the program
// and its arguments.
func streamPlan(t *testing.T) (planPath, prog string, args []string) {
	t.Helper()
	testenv.RequireRoot(t)
	args = []string{"--size", "1M", "--iters", "5", "--warmup", "1"}
	_, planPath = testenv.Plan(t, "stream", args...)
	return planPath, testenv.Built(t, "workloads/stream"), args
}

// liveValuePlan plans unsafe_live_value, whose merge changes what it prints, and returns the
// plan's path, the program and its arguments.
func liveValuePlan(t *testing.T) (planPath, prog string, args []string) {
	t.Helper()
	testenv.RequireRoot(t)
	args = []string{"--iters", "6", "--warmup", "1"}
	_, planPath = testenv.Plan(t, "unsafe_live_value", args...)
	return planPath, testenv.Built(t, "workloads/unsafe_live_value"), args
}

// S1: merged, the kernel reads the next batch. Nothing in the trace shows it; the output
// comparison refuses the plan, and run then runs the program as written.
func TestCalibrateRefusesChangedOutput(t *testing.T) {
	planPath, prog, args := liveValuePlan(t)
	res := testenv.Echoctl(t, nil, append([]string{"calibrate", "--unvalidated", "--rounds", "2", "--ignore", "^iter_ms=",
		planPath, "--", prog}, args...)...)
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "output differs: the program printed") {
		t.Fatalf("calibrate: exit %d, stdout %q: %s", res.ExitCode, res.Stdout, res.Stderr)
	}
	p := testenv.ReadPlan(t, planPath)
	for _, pair := range p.Pairs {
		if pair.Status != plan.StatusRefused || !strings.HasPrefix(pair.Reason, "output differs") {
			t.Errorf("%s: %s %q; want refused: output differs", pair.ID, pair.Status, pair.Reason)
		}
	}
	want := testenv.RunWorkload(t, "unsafe_live_value", nil, args...).Checksum()
	res = testenv.Echoctl(t, nil, append([]string{"run", planPath, "--", prog}, args...)...)
	if res.ExitCode != 0 || res.Checksum() != want || !strings.Contains(res.Stderr, "as written") {
		t.Errorf("run: exit %d, checksum %s (want %s), stderr %q", res.ExitCode, res.Checksum(), want, res.Stderr)
	}
}

// Without --ignore, the line that carries stream's timing differs between runs of the
// program as written: calibration finds it, says so, compares it by its words alone, and
// enables the validated pairs. (It refused them all in place: "output differs between runs of
// the program as written", so a rerun with --ignore found nothing to calibrate.)
func TestCalibrateWithoutIgnore(t *testing.T) {
	t.Setenv("CUDA_EMU_COPY_DELAY_US", "20000") // the trace must see the copies as they will be
	planPath, stream, args := streamPlan(t)
	testenv.EchoctlOK(t, nil, append([]string{"validate", planPath, "--", stream}, args...)...)
	res := testenv.Echoctl(t, nil, append([]string{"calibrate", "--rounds", "3", "--strategy", "mapped", planPath, "--", stream}, args...)...)
	if res.ExitCode != 0 || !strings.Contains(res.Stderr, `not comparing "iter_ms=`) || !strings.Contains(res.Stdout, "not compared") {
		t.Fatalf("calibrate: exit %d, stdout %q, stderr %q; want the timing line found and said", res.ExitCode, res.Stdout, res.Stderr)
	}
	p := testenv.ReadPlan(t, planPath)
	for _, pair := range p.Pairs {
		if pair.Status != plan.StatusEnabled {
			t.Errorf("%s: %s %q; want enabled", pair.ID, pair.Status, pair.Reason)
		}
	}
}

// A calibration that refused the pairs for a changed output keeps what calibrating again
// needs: the pairs' strategies and the status they had. A second calibration measures them
// afresh, where it found "no pair to calibrate" before; the merge still changes the output
// here, so they stay refused.
func TestCalibrateAgainAfterRefusal(t *testing.T) {
	planPath, prog, args := liveValuePlan(t)
	calibrate := append([]string{"calibrate", "--unvalidated", "--rounds", "1", "--strategy", "mapped", planPath, "--", prog}, args...)
	if res := testenv.Echoctl(t, nil, calibrate...); res.ExitCode != 0 || !strings.Contains(res.Stdout, "output differs") {
		t.Fatalf("calibrate: exit %d, stdout %q: %s", res.ExitCode, res.Stdout, res.Stderr)
	}
	p := testenv.ReadPlan(t, planPath)
	refused := p.RefusedAt(plan.StageCalibrate)
	if len(refused) == 0 {
		t.Fatal("calibration refused no pair")
	}
	for _, pair := range refused {
		if pair.RefusedFrom != plan.StatusCandidate || len(pair.Strategies) == 0 {
			t.Errorf("%s: refused from %q, strategies %v; want the status and strategies a rerun needs", pair.ID, pair.RefusedFrom, pair.Strategies)
		}
	}
	res := testenv.Echoctl(t, nil, calibrate...)
	if res.ExitCode != 0 || !strings.Contains(res.Stderr, fmt.Sprintf("measuring again %d pair", len(refused))) ||
		!strings.Contains(res.Stdout, "output differs") {
		t.Errorf("calibrate again: exit %d, stdout %q, stderr %q; want the refused pairs measured again", res.ExitCode, res.Stdout, res.Stderr)
	}
}

func TestRunRefusals(t *testing.T) {
	planPath, _, args := streamPlan(t)
	_, staticPlan := testenv.Plan(t, "stream-static", args...)
	// A plan that does not fit runs the program as written, with one line saying why, and
	// run exits with the program's status; a command line without a command is an error.
	cases := []struct {
		name    string
		argv    []string
		want    string
		written bool
	}{
		{"another program", []string{"--force", planPath, "--", testenv.Built(t, "workloads/compute")}, "plan is for", true},
		{"static runtime", []string{"--force", staticPlan, "--", testenv.Built(t, "workloads/stream-static")}, "-cudart shared", true},
		{"no command", []string{planPath}, "give the plan, then -- and the command", false},
		{"corrupt plan", []string{"--force", "/dev/null", "--", testenv.Built(t, "workloads/stream")}, "plan", true},
	}
	for _, c := range cases {
		res := testenv.Echoctl(t, nil, append([]string{"run"}, c.argv...)...)
		ran := res.ExitCode == 0 && strings.Contains(res.Stderr, "running the program as written") && res.Checksum() != ""
		if !strings.Contains(res.Stderr, c.want) || ran != c.written || !c.written && res.ExitCode == 0 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %q, the program run as written: %v", c.name, res.ExitCode,
				res.Stdout, res.Stderr, c.want, c.written)
		}
	}
	res := testenv.Echoctl(t, nil, append([]string{"run", "--dry-run", "--force", planPath, "--", testenv.Built(t, "workloads/stream")}, args...)...)
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "would merge 2 pairs") || !strings.Contains(res.Stdout, "host malloc at stream+") ||
		strings.Count(res.Stdout, "keeping its wait, as an event on its stream") != 2 {
		t.Errorf("--dry-run: exit %d, stdout %q; want both pairs, each copy keeping its wait", res.ExitCode, res.Stdout)
	}
}

// --print-env deploys the plan for programs that something else starts: run with only that
// environment, the program merges the pairs and computes what it computed as written.
func TestRunPrintEnv(t *testing.T) {
	planPath, stream, args := streamPlan(t)
	want := testenv.RunWorkload(t, "stream", nil, args...).Checksum()

	env := printedEnv(t, planPath, stream)
	if env["ECHO_PLAN"] != planPath+".shim" || !strings.HasSuffix(env["LD_PRELOAD"], "/libechoshim.so") {
		t.Errorf("environment %v: want LD_PRELOAD on libechoshim.so and ECHO_PLAN=%s.shim", env, planPath)
	}
	got, r := runStreamWith(t, env, []string{"CUDA_EMU_KERNEL_DELAY_US=2000"}, args)
	if got.Checksum() != want || !r.Active || r.Served != 2 || r.CopiesElided == 0 {
		t.Errorf("with the printed environment: checksum %s (want %s), report active %v, %d merged, %d copies elided",
			got.Checksum(), want, r.Active, r.Served, r.CopiesElided)
	}

	// The shell form is for eval: one export per variable, quoted.
	res := testenv.Echoctl(t, nil, "run", "--print-env", "--force", planPath, "--", stream)
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "export ECHO_PLAN="+shell.Quote(planPath+".shim")+"\n") {
		t.Errorf("--print-env: exit %d, stdout %q", res.ExitCode, res.Stdout)
	}
}

// printedEnv is the environment `echoctl run --json --print-env` prints for the plan at
// planPath and the program prog.
func printedEnv(t *testing.T, planPath, prog string) map[string]string {
	t.Helper()
	res := testenv.Echoctl(t, nil, "run", "--json", "--print-env", "--force", planPath, "--", prog)
	var doc struct{ Env map[string]string }
	if err := json.Unmarshal([]byte(res.Stdout), &doc); res.ExitCode != 0 || err != nil {
		t.Fatalf("--print-env --json: exit %d, stdout %q (%v): %s", res.ExitCode, res.Stdout, err, res.Stderr)
	}
	return doc.Env
}

// runStreamWith runs stream with args under a printed environment's preload library and plan
// (and the variables in extra), and returns its result and the shim's report.
func runStreamWith(t *testing.T, env map[string]string, extra, args []string) (testenv.Result, runner.Report) {
	t.Helper()
	report := filepath.Join(t.TempDir(), "report.json")
	got := testenv.RunWorkload(t, "stream", append([]string{"LD_PRELOAD=" + env["LD_PRELOAD"], "ECHO_PLAN=" + env["ECHO_PLAN"],
		"ECHO_REPORT=" + report}, extra...), args...)
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var r runner.Report
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return got, r
}

// The strategies calibration tries are the ones the device can serve: on a Jetson Orin (no
// pageable access) mapped and pinned; on a Grace Hopper system too. Managed is no merge
// strategy (plan.MergeStrategies): forced, the program runs untouched, saying why. The plan
// keeps whether the device runs one stream's kernels at a time, as it says
// (cudaDevAttrConcurrentKernels), which the prediction's floor reads.
func TestStrategiesFollowTheDevice(t *testing.T) {
	planPath, stream, args := streamPlan(t)
	want := testenv.RunWorkload(t, "stream", nil, args...).Checksum()
	for _, c := range []struct {
		profile    string
		concurrent string // CUDA_EMU_CONCURRENT_KERNELS
		tried      []string
	}{
		{"orin", "0", []string{"mapped", "pinned"}},
		{"gh200", "1", []string{"mapped", "system", "pinned"}},
	} {
		env := []string{"CUDA_EMU_PROFILE=" + c.profile, "CUDA_EMU_CONCURRENT_KERNELS=" + c.concurrent}
		res := testenv.Echoctl(t, env, append([]string{"calibrate", "--unvalidated", "--rounds", "1", "--ignore", "^iter_ms=",
			"-o", planPath + "." + c.profile, planPath, "--", stream}, args...)...)
		if res.ExitCode != 0 {
			t.Fatalf("%s: calibrate: exit %d: %s", c.profile, res.ExitCode, res.Stderr)
		}
		var tried []string
		for _, line := range strings.Split(res.Stdout, "\n") {
			if f := strings.Fields(line); len(f) > 1 && (slices.Contains(plan.MergeStrategies, plan.Strategy(f[0])) || plan.Strategy(f[0]) == plan.StrategyPinned) {
				tried = append(tried, f[0])
			}
		}
		if !slices.Equal(tried, c.tried) {
			t.Errorf("%s: calibration tried %v, want %v:\n%s", c.profile, tried, c.tried, res.Stdout)
		}
		if serial := testenv.ReadPlan(t, planPath+"."+c.profile).Context.SerialKernels; serial != (c.concurrent == "0") {
			t.Errorf("%s, CUDA_EMU_CONCURRENT_KERNELS=%s: the plan's serial_kernels is %v", c.profile, c.concurrent, serial)
		}
	}
	orin := []string{"CUDA_EMU_PROFILE=orin", "CUDA_EMU_KERNEL_DELAY_US=2000"}
	res := testenv.Echoctl(t, orin, append([]string{"-v", "run", "--force", "--strategy", "managed", planPath, "--", stream}, args...)...)
	if res.ExitCode != 0 || res.Checksum() != want || !strings.Contains(res.Stderr, "no pair of the plan can be served with managed") {
		t.Errorf("managed forced: exit %d, checksum %s (want %s), stderr %q; want an untouched run saying why", res.ExitCode, res.Checksum(), want, res.Stderr)
	}
}

// A program the dynamic loader refuses never reaches the shim: calibrate says it did not
// start and gives the loader's own words, not a question and the shim's missing report file.
func TestCalibrateProgramThatCannotStart(t *testing.T) {
	planPath, stream, args := streamPlan(t)
	// The same executable elsewhere: its runpath ($ORIGIN/../lib) finds no CUDA runtime there.
	moved := filepath.Join(t.TempDir(), "bin", "stream")
	data, err := os.ReadFile(stream)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(moved), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(moved, data, 0o755); err != nil {
		t.Fatal(err)
	}
	res := testenv.Echoctl(t, nil, append([]string{"calibrate", "--unvalidated", "--rounds", "1", planPath, "--", moved}, args...)...)
	if res.ExitCode == 0 || !strings.Contains(res.Stderr, moved+" did not start (exit status 127") ||
		!strings.Contains(res.Stderr, "error while loading shared libraries: libcudart.so") ||
		strings.Contains(res.Stderr, "report.json") {
		t.Errorf("calibrate: exit %d, stderr %q; want the loader's error", res.ExitCode, res.Stderr)
	}
}

// A deployment may pass 64 KiB (MAX_PAIRS pairs of 16 chunks, their modules named by size
// and a long file name): the shim reads it whole and merges, instead of running the program
// untouched for want of reading the temporary file it was handed.
func TestRunReadsALargeDeployment(t *testing.T) {
	planPath, stream, args := streamPlan(t)
	want := testenv.RunWorkload(t, "stream", nil, args...).Checksum()
	env := printedEnv(t, planPath, stream)
	deployment, err := os.ReadFile(env["ECHO_PLAN"])
	if err != nil {
		t.Fatal(err)
	}
	// Pairs of a module that is never loaded, as long as the format lets a pair be.
	var pad strings.Builder
	module := "size:1:" + strings.Repeat("m", 95-len("size:1:"))
	const pairBytes, chunkBytes = 10_000_000_000_000_000_000, 1_000_000_000_000_000_000
	for i := range 64 - 2 { // the shim's MAX_PAIRS, with the two real ones
		fmt.Fprintf(&pad, "pair padding-%03d %d output\n", i, uint64(pairBytes))
		fmt.Fprintf(&pad, "host %s fffffffffffff000 cudaMallocHost %d 2147483647\n", module, uint64(pairBytes))
		fmt.Fprintf(&pad, "device %s fffffffffffff100 cudaMalloc %d 2147483647\n", module, uint64(pairBytes))
		for c := range 16 {
			fmt.Fprintf(&pad, "chunk %d %d\n", uint64(c+1)*chunkBytes/2, uint64(chunkBytes))
		}
	}
	text, ok := strings.CutSuffix(string(deployment), "end\n")
	if !ok || !strings.Contains(text, "\ndigest ") {
		t.Fatalf("deployment %q: want one with a digest, ending in end", deployment)
	}
	text = withDigest(text + pad.String() + "end\n")
	if len(text) <= 64<<10 || len(text) > plan.MaxCompactBytes {
		t.Fatalf("the padded deployment is %d bytes: want more than 64 KiB and what the shim reads", len(text))
	}
	if err := os.WriteFile(env["ECHO_PLAN"], []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got, r := runStreamWith(t, env, nil, args)
	if got.Checksum() != want || !r.Active || r.Served != 2 {
		t.Errorf("with a %d-byte deployment: checksum %s (want %s), active %v (%s), %d merged; stderr %q",
			len(text), got.Checksum(), want, r.Active, r.Reason, r.Served, got.Stderr)
	}
}

// withDigest is a deployment with its digest line made anew over its pair lines, as echoctl
// makes it (plan.PairsDigest; shim/plan.c hashes the same lines).
func withDigest(text string) string {
	var lines strings.Builder
	for _, l := range strings.SplitAfter(text, "\n") {
		if k, _, _ := strings.Cut(l, " "); slices.Contains([]string{"pair", "host", "device", "chunk", "copy"}, k) {
			lines.WriteString(l)
		}
	}
	sum := sha256.Sum256([]byte(lines.String()))
	re := regexp.MustCompile(`(?m)^digest [0-9a-f]{64}$`)
	return re.ReplaceAllString(text, "digest "+hex.EncodeToString(sum[:]))
}

// A merge page-locks its buffers, which the real runtime prices at milliseconds: with the
// emulator's page-locking made dear (100 ms per MiB, 200 ms for stream's two 1 MiB device
// buffers) and each iteration saving two 5 ms copies, a run of 6 iterations is left as
// written ("set-up not repaid"), while a run of 61 is served. The knobs widen the gap beyond
// what a loaded machine can hide; TestDecideSetup tests the rule.
func TestCalibrateSetupNotRepaid(t *testing.T) {
	testenv.RequireRoot(t)
	// Copies (two a round) and page-locking (two MiB for mapped's device sides) priced far
	// above what an emulated CPU's noise can hide: about 40 ms saved per iteration against
	// about 800 ms of set-up, so 6 iterations cannot repay it and 61 repay it twice over,
	// on hardware and under TCG alike (where 5 ms copies left the gain within the spread).
	t.Setenv("CUDA_EMU_COPY_DELAY_US", "20000") // the trace must see the copies as they will be
	stream := testenv.Built(t, "workloads/stream")
	dear := []string{"CUDA_EMU_PIN_US_PER_MIB=400000"}
	for _, c := range []struct {
		iters   string
		enabled bool
	}{{"5", false}, {"60", true}} {
		args := []string{"--size", "1M", "--iters", c.iters, "--warmup", "1"}
		_, planPath := testenv.Plan(t, "stream", args...)
		res := testenv.Echoctl(t, dear, append([]string{"calibrate", "--unvalidated", "--rounds", "3", "--ignore", "^iter_ms=",
			"--strategy", "mapped", planPath, "--", stream}, args...)...)
		if res.ExitCode != 0 {
			t.Fatalf("calibrate --iters %s: exit %d: %s", c.iters, res.ExitCode, res.Stderr)
		}
		p := testenv.ReadPlan(t, planPath)
		if got := p.Context.Strategy == "mapped"; got != c.enabled {
			t.Errorf("--iters %s: strategy %q; want enabled %v\n%s", c.iters, p.Context.Strategy, c.enabled, res.Stdout)
		}
		// A long run is served: as "complete run faster", or, where the machine's own
		// proportions leave the complete runs neither faster nor slower (an emulated CPU), as
		// "set-up repaid".
		row := "set-up not repaid: "
		if c.enabled {
			row = "enabled: "
		}
		if !strings.Contains(res.Stdout, row) {
			t.Errorf("--iters %s: the table's mapped row does not say %q:\n%s", c.iters, row, res.Stdout)
		}
		for _, pair := range p.Pairs {
			if !c.enabled && (pair.Status != plan.StatusCalibrated || !strings.Contains(strings.Join(pair.Evidence, " "), "set-up not repaid")) {
				t.Errorf("%s: %s %v; want calibrated, the set-up not repaid", pair.ID, pair.Status, pair.Evidence)
			}
		}
	}
}
