package runner_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/runner"
)

// delay widens every race window, so a merge that lost an ordering computes something else.
const delay = "CUDA_EMU_KERNEL_DELAY_US=2000"

// candidates are the pairs a merge may serve.
func candidates(p *plan.Plan) []plan.Pair {
	var out []plan.Pair
	for _, pair := range p.Pairs {
		if pair.Status == plan.StatusCandidate && pair.Merges() {
			out = append(out, pair)
		}
	}
	return out
}

// compactPlan is p's compact plan for pairs, with strategy, in mode.
func compactPlan(t *testing.T, p *plan.Plan, pairs []plan.Pair, strategy plan.Strategy, mode plan.Mode) string {
	t.Helper()
	c, err := plan.Compact(p, pairs, strategy, mode)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// deploy runs a workload with the shim on a compact plan, in the environment given.
func deploy(t *testing.T, compact string, env []string, argv ...string) runner.Result {
	t.Helper()
	t.Setenv("ECHO_SHIM", testenv.Built(t, "lib/libechoshim.so"))
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	res, err := runner.Run(context.Background(), argv, compact, runner.IO{Stderr: os.Stderr})
	if err != nil {
		t.Fatalf("running with the shim: %v", err)
	}
	return res
}

// Every safe workload, merged with each strategy, computes exactly what it computed
// before, with every linking copy gone, the kernel delay on.
func TestDeployKeepsOutput(t *testing.T) {
	testenv.RequireRoot(t)
	const iters = 6 // --iters 5 --warmup 1
	cases := []struct {
		workload string
		args     []string
		env      []string
	}{
		{"stream", []string{"--size", "1M"}, nil},
		{"pipeline", []string{"--size", "1M"}, nil},
		{"compute", []string{"--size", "64K"}, nil},
		{"unsafe_sync_wait", nil, nil},                                               // S2: the elided D2H copy's wait must be kept
		{"stream", []string{"--size", "1M"}, []string{"CUDA_EMU_PAGEABLE_ACCESS=1"}}, // with the system strategy too
		// the copies' waits cover a blocking stream's kernel and not a non-blocking stream's
		// watcher, which a device synchronize would wait out (and the checksum say so)
		{"background", []string{"--size", "1M", "--patience", "10"}, nil},
	}
	for _, c := range cases {
		t.Run(c.workload+strings.Join(c.env, ","), func(t *testing.T) {
			args := append(c.args, "--iters", "5", "--warmup", "1")
			p, _ := testenv.Plan(t, c.workload, args...)
			pairs := candidates(p)
			if len(pairs) == 0 {
				t.Fatal("no candidate pair to deploy")
			}
			argv := append([]string{testenv.Built(t, "workloads/"+c.workload)}, args...)
			env := append([]string{delay}, c.env...)
			want := testenv.RunWorkload(t, c.workload, env, args...).Checksum()
			strategies := []plan.Strategy{plan.StrategyMapped}
			if len(c.env) > 0 {
				strategies = []plan.Strategy{plan.StrategySystem}
			}
			for _, s := range strategies {
				compact := compactPlan(t, p, pairs, s, plan.ModeCalibrate)
				res := deploy(t, compact, env, argv...)
				got := testenv.Result{Stdout: string(res.Stdout)}.Checksum()
				if res.ExitCode != 0 || got != want {
					t.Errorf("%s: exit %d, checksum %s; want 0 and %s", s, res.ExitCode, got, want)
				}
				elided, waits := 0, 0
				for _, pair := range pairs {
					for _, c := range pair.Copies {
						elided += c.Count
						if c.Repair == plan.RepairEventWait {
							waits += c.Count
						}
					}
				}
				if res.Report.Waits != (runner.WaitsReport{Event: waits}) {
					t.Errorf("%s: waits kept %+v; want %d as events, none as synchronizes", s, res.Report.Waits, waits)
				}
				if !res.Report.Active || res.Report.Served != len(pairs) || res.Report.CopiesElided != elided ||
					res.Report.Freed != len(pairs) {
					t.Errorf("%s: report %+v; want %d pairs merged and freed, %d copies elided", s, res.Report, len(pairs), elided)
				}
				if len(res.Report.IterationNS) != iters-1 {
					t.Errorf("%s: %d iterations timed, want %d", s, len(res.Report.IterationNS), iters-1)
				}
			}
		})
	}
}

// Anything unexpected runs the program untouched, saying why once.
func TestDeployRefusesQuietly(t *testing.T) {
	testenv.RequireRoot(t)
	args := []string{"--size", "1M", "--iters", "5", "--warmup", "1"}
	p, _ := testenv.Plan(t, "stream", args...)
	if len(candidates(p)) != 2 {
		t.Fatalf("stream plan: %d candidates, want 2", len(candidates(p)))
	}
	argv := append([]string{testenv.Built(t, "workloads/stream")}, args...)
	want := testenv.RunWorkload(t, "stream", nil, args...).Checksum()
	good := compactPlan(t, p, candidates(p), "mapped", plan.ModeDeploy)
	cases := []struct {
		name, compact string
		env           []string
		reason        string // in the report; "" when the shim stays active
		fallbacks     bool
	}{
		{"another executable", strings.Replace(good, "exe ", "exe 00", 1), nil, "another executable", false},
		{"another GPU", strings.Replace(good, "strategy ", "gpu Tesla K80\nstrategy ", 1), nil, `GPU "Tesla K80"`, false},
		{"another driver", strings.Replace(good, "strategy ", "driver 9000\nstrategy ", 1), nil, "driver 9000", false},
		{"cut short", strings.TrimSuffix(good, "end\n"), nil, "cut short", false},
		{"garbage", "echo-plan 1\nexe\n", nil, "unusable", false},
		{"system strategy without pageable access", strings.Replace(good, "strategy mapped", "strategy system", 1), nil, "pageable", false},
		// managed memory cannot be bound at a linking copy (shim/bind.c): never deployed
		{"managed strategy", strings.Replace(good, "strategy mapped", "strategy managed", 1), nil, "managed strategy is no longer deployed", false},
		// The first page-locking is the device side of the first pair: it fails, and that
		// pair is left as written.
		{"merged allocation fails", good, []string{"CUDA_EMU_FAIL_REGISTER=1"}, "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := deploy(t, c.compact, c.env, argv...)
			got := testenv.Result{Stdout: string(res.Stdout)}.Checksum()
			if res.ExitCode != 0 || got != want {
				t.Fatalf("exit %d, checksum %s; want the untouched program's %s", res.ExitCode, got, want)
			}
			if c.reason != "" && (res.Report.Active || !strings.Contains(res.Report.Reason, c.reason) || res.Report.Served != 0) {
				t.Errorf("report %+v; want the program untouched because of %q", res.Report, c.reason)
			}
			if c.fallbacks && (res.Report.Fallbacks == 0 || res.Report.Served == len(candidates(p))) {
				t.Errorf("report %+v; want a pair left as written after its merged allocation failed", res.Report)
			}
		})
	}
}

// A process the plan is not about (a child or a launcher that inherited LD_PRELOAD and
// ECHO_PLAN) runs untouched without a word; the planned program rebuilt says why.
func TestDeployQuietForOtherPrograms(t *testing.T) {
	testenv.RequireRoot(t)
	args := []string{"--size", "1M", "--iters", "3", "--warmup", "1"}
	p, _ := testenv.Plan(t, "stream", args...)
	good := compactPlan(t, p, candidates(p), "mapped", plan.ModeDeploy)
	t.Setenv("ECHO_SHIM", testenv.Built(t, "lib/libechoshim.so"))
	cases := []struct {
		name, compact, program string
		said                   bool
	}{
		{"another program", good, "compute", false},
		{"the program rebuilt", strings.Replace(good, "exe ", "exe 00", 1), "stream", true},
	}
	for _, c := range cases {
		var stderr bytes.Buffer
		res, err := runner.Run(context.Background(), append([]string{testenv.Built(t, "workloads/"+c.program)}, args...), c.compact, runner.IO{Stderr: &stderr})
		if err != nil {
			t.Fatal(err)
		}
		said := strings.Contains(stderr.String(), "echo-shim: running the program untouched: the plan is for another executable")
		if res.ExitCode != 0 || res.Report.Active || !strings.Contains(res.Report.Reason, "another executable") || said != c.said {
			t.Errorf("%s: exit %d, report %q (active %v), stderr %q; want untouched, said on stderr: %v",
				c.name, res.ExitCode, res.Report.Reason, res.Report.Active, stderr.String(), c.said)
		}
	}
}

// A program that dlopens the runtime and calls it through dlsym'd pointers is still merged:
// the shim hands out its hooks from dlsym.
func TestDeployDlopenedRuntime(t *testing.T) {
	testenv.RequireRoot(t)
	const iters = "8"
	p, _ := testenv.PlanProgram(t, "tests/dlopen_runtime", iters)
	pairs := candidates(p)
	if len(pairs) != 1 {
		t.Fatalf("%d candidates, want the input pair (the output's device buffer is written by a D2D copy)", len(pairs))
	}
	prog := testenv.Built(t, "tests/dlopen_runtime")
	want := testenv.Run(t, prog, nil, iters).Checksum()
	for _, mode := range []plan.Mode{plan.ModeValidate, plan.ModeDeploy} {
		compact := compactPlan(t, p, pairs, "mapped", mode)
		res := deploy(t, compact, nil, prog, iters)
		if got := (testenv.Result{Stdout: string(res.Stdout)}).Checksum(); res.ExitCode != 0 || got != want {
			t.Fatalf("%s: exit %d, checksum %s, want %s", mode, res.ExitCode, got, want)
		}
		switch mode {
		case plan.ModeValidate:
			if len(res.Report.Pairs) != 1 || res.Report.Pairs[0].Refused || res.Report.Pairs[0].Copies != 8 {
				t.Errorf("validate: %+v; want the pair's 8 linking copies watched and no refusal", res.Report.Pairs)
			}
		case plan.ModeDeploy:
			if res.Report.Served != 1 || res.Report.CopiesElided != 8 {
				t.Errorf("deploy: report %+v; want the pair merged and its 8 copies elided", res.Report)
			}
		}
	}
}

// A pair is merged whole or not at all. Planned with malloc'd host buffers and run with
// new[], the host sites never match: the device sides must not be handed merged (host)
// memory with no copy removed, and the report must count no pair as merged.
func TestDeployMergesWholePairsOnly(t *testing.T) {
	testenv.RequireRoot(t)
	args := []string{"--size", "1M", "--iters", "5", "--warmup", "1"}
	p, _ := testenv.Plan(t, "stream", args...)
	pairs := candidates(p)
	compact := compactPlan(t, p, pairs, "mapped", plan.ModeDeploy)
	other := append([]string{"--host", "new"}, args...)
	want := testenv.RunWorkload(t, "stream", nil, other...).Checksum()
	var stderr bytes.Buffer
	t.Setenv("ECHO_SHIM", testenv.Built(t, "lib/libechoshim.so"))
	res, err := runner.Run(context.Background(), append([]string{testenv.Built(t, "workloads/stream")}, other...), compact,
		runner.IO{Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	if got := (testenv.Result{Stdout: string(res.Stdout)}).Checksum(); res.ExitCode != 0 || got != want {
		t.Fatalf("exit %d, checksum %s; want %s", res.ExitCode, got, want)
	}
	if res.Report.Served != 0 || res.Report.CopiesElided != 0 {
		t.Errorf("report %+v; want no pair merged", res.Report)
	}
	for _, pr := range res.Report.Pairs {
		if pr.Served || !strings.Contains(pr.Note, "device side was allocated while its host side was not") {
			t.Errorf("%s: merged %v, note %q; want its device side left as written, saying why", pr.ID, pr.Served, pr.Note)
		}
	}
	if !strings.Contains(stderr.String(), "echo-shim: the plan matched nothing in this run, so nothing was merged: no malloc at stream+0x") {
		t.Errorf("stderr %q; want one line saying the plan matched nothing, and where", stderr.String())
	}
}

// A plan whose sizes this run does not allocate says so in one line, without -v: which size
// was planned where, and which this run allocated there.
func TestRunSaysWhatDiffered(t *testing.T) {
	testenv.RequireRoot(t)
	_, planPath := testenv.Plan(t, "stream", "--size", "1M", "--iters", "5", "--warmup", "1")
	stream := testenv.Built(t, "workloads/stream")
	other := []string{"--size", "512K", "--iters", "5", "--warmup", "1"}
	want := testenv.RunWorkload(t, "stream", nil, other...).Checksum()
	res := testenv.Echoctl(t, nil, append([]string{"run", "--force", planPath, "--", stream}, other...)...)
	if res.ExitCode != 0 || res.Checksum() != want {
		t.Fatalf("run: exit %d, checksum %s (want %s): %s", res.ExitCode, res.Checksum(), want, res.Stderr)
	}
	if n := strings.Count(res.Stderr, "echo-shim:"); n != 1 || !strings.Contains(res.Stderr, "the plan matched nothing in this run") ||
		!strings.Contains(res.Stderr, "planned 1.0 MiB at stream+0x") || !strings.Contains(res.Stderr, "saw 512 KiB") {
		t.Errorf("stderr %q; want one line naming the planned size and site and the size seen", res.Stderr)
	}
	res = testenv.Echoctl(t, nil, append([]string{"run", "--dry-run", "--force", planPath, "--", stream}, other...)...)
	if res.ExitCode != 0 || !strings.Contains(res.Stderr, `the plan was traced with arguments "--size 1M --iters 5 --warmup 1"`) {
		t.Errorf("--dry-run: exit %d, stderr %q; want the arguments that differ from the traced run's", res.ExitCode, res.Stderr)
	}
}

// An executable without a GNU build-id is named by its size and file name, the same way by
// the planner and the shim, so its pairs merge.
func TestDeployWithoutBuildID(t *testing.T) {
	testenv.RequireRoot(t)
	args := []string{"--size", "1M", "--iters", "5", "--warmup", "1"}
	p, _ := testenv.Plan(t, "stream-nobuildid", args...)
	if p.Context.Executable.BuildID != "" {
		t.Fatalf("the executable has build-id %s", p.Context.Executable.BuildID)
	}
	pairs := candidates(p)
	if len(pairs) != 2 {
		t.Fatalf("%d candidates, want 2", len(pairs))
	}
	compact := compactPlan(t, p, pairs, "mapped", plan.ModeDeploy)
	want := testenv.RunWorkload(t, "stream-nobuildid", nil, args...).Checksum()
	res := deploy(t, compact, nil, append([]string{testenv.Built(t, "workloads/stream-nobuildid")}, args...)...)
	if got := (testenv.Result{Stdout: string(res.Stdout)}).Checksum(); res.ExitCode != 0 || got != want {
		t.Fatalf("exit %d, checksum %s; want %s", res.ExitCode, got, want)
	}
	if !res.Report.Active || res.Report.Served != 2 || res.Report.CopiesElided != 12 {
		t.Errorf("report %+v (reason %q); want both pairs merged and their 12 copies elided", res.Report, res.Report.Reason)
	}
}

// A program started through a symbolic link (python3 -> python3.12) is the file the link
// names: the plan identifies it by that file's build-id, and `echoctl run` through the link
// deploys it. The plan once named no executable, and run refused it.
func TestRunThroughSymlink(t *testing.T) {
	testenv.RequireRoot(t)
	link := filepath.Join(t.TempDir(), "mystream")
	if err := os.Symlink(testenv.Built(t, "workloads/stream"), link); err != nil {
		t.Fatal(err)
	}
	args := []string{"--size", "1M", "--iters", "5", "--warmup", "1"}
	res, tracePath := testenv.TraceOK(t, append([]string{"--host-allocs", "--", link}, args...)...)
	planPath := tracePath + ".plan"
	testenv.EchoctlOK(t, nil, "plan", "-o", planPath, tracePath)
	p := testenv.ReadPlan(t, planPath)
	if p.Context.Executable.BuildID == "" || filepath.Base(p.Context.Executable.Path) != "stream" {
		t.Errorf("the plan's executable is %+v; want the stream file the link names, by build-id", p.Context.Executable)
	}
	want := testenv.RunWorkload(t, "stream", nil, args...).Checksum()
	res = testenv.Echoctl(t, nil, append([]string{"-v", "run", "--force", planPath, "--", link}, args...)...)
	if res.ExitCode != 0 || res.Checksum() != want || !strings.Contains(res.Stderr, "2 of 2 pairs merged") {
		t.Errorf("run through the link: exit %d, checksum %s (want %s), stderr %q", res.ExitCode, res.Checksum(), want, res.Stderr)
	}
}

// swapDevices swaps the device lines of a compact plan's first two pairs and drops its digest
// line: an edit that keeps every line well formed.
func swapDevices(t *testing.T, compact string) string {
	t.Helper()
	var lines, devices []string
	for _, l := range strings.SplitAfter(compact, "\n") {
		if !strings.HasPrefix(l, "digest ") {
			lines = append(lines, l)
		}
		if strings.HasPrefix(l, "device ") {
			devices = append(devices, l)
		}
	}
	if len(devices) < 2 || devices[0] == devices[1] {
		t.Fatalf("want two pairs with different device sites to swap: %q", compact)
	}
	for i, l := range lines {
		switch l {
		case devices[0]:
			lines[i] = devices[1]
		case devices[1]:
			lines[i] = devices[0]
		}
	}
	return strings.Join(lines, "")
}

// A deployment whose digest line was deleted merges nothing: with its device lines swapped
// it would make the program's input its output (and change what it prints). Through
// ECHO_PLAN and in a plan directory alike the program runs untouched and one line says why;
// pinned, which keeps every copy, deploys without a digest.
func TestDeployRefusesMissingDigest(t *testing.T) {
	testenv.RequireRoot(t)
	args := []string{"--size", "1M", "--iters", "5", "--warmup", "1"}
	p, _ := testenv.Plan(t, "stream", args...)
	good := compactPlan(t, p, candidates(p), "mapped", plan.ModeDeploy)
	edited := swapDevices(t, good)
	argv := append([]string{testenv.Built(t, "workloads/stream")}, args...)
	want := testenv.RunWorkload(t, "stream", nil, args...).Checksum()
	check := func(how string, res runner.Result, reason string) {
		t.Helper()
		if got := (testenv.Result{Stdout: string(res.Stdout)}).Checksum(); res.ExitCode != 0 || got != want {
			t.Errorf("%s: exit %d, checksum %s; want the untouched program's %s", how, res.ExitCode, got, want)
		}
		if res.Report.Active || res.Report.Served != 0 || !strings.Contains(res.Report.Reason, reason) {
			t.Errorf("%s: report active %v, reason %q; want untouched: %s", how, res.Report.Active, res.Report.Reason, reason)
		}
	}
	check("ECHO_PLAN", deploy(t, edited, nil, argv...), "carry no digest")

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "stream.plan.shim"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := runner.RunDir(context.Background(), argv, dir, runner.IO{Stderr: os.Stderr})
	if err != nil {
		t.Fatal(err)
	}
	check("ECHO_PLAN_DIR", res, "no plan in "+dir+" is for this executable")
	if res.Report.Skipped != 1 || !strings.Contains(res.Report.SkippedFirst, "stream.plan.shim: its pairs carry no digest") {
		t.Errorf("ECHO_PLAN_DIR: %d skipped, the first %q; want stream.plan.shim skipped for its missing digest",
			res.Report.Skipped, res.Report.SkippedFirst)
	}

	pinned := compactPlan(t, p, candidates(p), "pinned", plan.ModeDeploy)
	pinned = strings.Join(slices.DeleteFunc(strings.SplitAfter(pinned, "\n"), func(l string) bool {
		return strings.HasPrefix(l, "digest ")
	}), "")
	res = deploy(t, pinned, nil, argv...)
	if got := (testenv.Result{Stdout: string(res.Stdout)}).Checksum(); res.ExitCode != 0 || got != want ||
		!res.Report.Active || res.Report.Served == 0 {
		t.Errorf("pinned without a digest: exit %d, checksum %s (want %s), report %+v; want it served",
			res.ExitCode, got, want, res.Report)
	}
}

// run --force skips calibration's check, not the shim's: the deployment it writes carries
// the digest of its own lines, so an edit of that file merges nothing; and a plan whose
// device sites were swapped, forced, binds no pair (no copy joins the buffers it names):
// the program computes what it did, and run's summary names the pairs left as written
// (without -v) instead of "0 of 2 pairs merged" alone.
func TestRunForceKeepsTheRules(t *testing.T) {
	testenv.RequireRoot(t)
	args := []string{"--size", "1M", "--iters", "5", "--warmup", "1"}
	p, planPath := testenv.Plan(t, "stream", args...)
	stream := testenv.Built(t, "workloads/stream")
	want := testenv.RunWorkload(t, "stream", nil, args...).Checksum()

	res := testenv.EchoctlOK(t, nil, "run", "--print-env", "--force", planPath, "--", stream)
	deployed, err := os.ReadFile(planPath + ".shim")
	if err != nil {
		t.Fatal(err)
	}
	var edited []string
	for _, l := range strings.SplitAfter(swapDevices(t, string(deployed)), "\n") {
		edited = append(edited, l)
		if strings.HasPrefix(l, "mode ") { // swapDevices drops the digest: put it back
			for _, d := range strings.SplitAfter(string(deployed), "\n") {
				if strings.HasPrefix(d, "digest ") {
					edited = append(edited, d)
				}
			}
		}
	}
	if !strings.Contains(strings.Join(edited, ""), "\ndigest ") {
		t.Fatalf("the forced deployment carries no digest: %q", deployed)
	}
	res2 := deploy(t, strings.Join(edited, ""), nil, append([]string{stream}, args...)...)
	if got := (testenv.Result{Stdout: string(res2.Stdout)}).Checksum(); got != want || res2.Report.Active ||
		!strings.Contains(res2.Report.Reason, "not the ones calibration measured") {
		t.Errorf("the forced deployment edited: checksum %s (want %s), report active %v, reason %q; want untouched",
			got, want, res2.Report.Active, res2.Report.Reason)
	}

	swappedPath := testenv.WritePlan(t, testenv.SwappedDevices(p), "swapped.plan")
	// Swapped device sites: each pair's planned host buffer is never copied to or from its
	// planned device buffer, so neither pair is bound, and the program computes what it did.
	res = testenv.Echoctl(t, []string{delay}, append([]string{"run", "--force", swappedPath, "--", stream}, args...)...)
	if res.ExitCode != 0 || res.Checksum() != want ||
		!strings.Contains(res.Stderr, "echoctl: 0 of 2 pairs merged (mapped), 0 copies elided, 0 fallbacks; "+
			"2 more (p1, p2) left as written: no linking copy at the plan's sites joined their planned buffers") {
		t.Errorf("run --force on swapped device sites: exit %d, checksum %s (want %s), stderr %q; want the program "+
			"as written and the two pairs named", res.ExitCode, res.Checksum(), want, res.Stderr)
	}
}

// A run whose option has the program page-lock its host buffer itself (malloc at the planned
// site, then cudaHostRegister) has the GPU reach the pages it locked: binding the buffer would
// map other memory under that page-locking, so such a pair is left as written, saying why,
// and the program computes what it did.
func TestDeployLeavesProgramLockedBuffers(t *testing.T) {
	testenv.RequireRoot(t)
	args := []string{"--size", "256K", "--iters", "5", "--warmup", "1"}
	p, _ := testenv.Plan(t, "helper_alloc", args...)
	args = append(args, "--register")
	pairs := candidates(p)
	if len(pairs) != 2 {
		t.Fatalf("%d candidates, want helper_alloc's 2", len(pairs))
	}
	compact := compactPlan(t, p, pairs, plan.StrategyMapped, plan.ModeDeploy)
	want := testenv.RunWorkload(t, "helper_alloc", nil, args...).Checksum()
	res := deploy(t, compact, []string{delay}, append([]string{testenv.Built(t, "workloads/helper_alloc")}, args...)...)
	if got := (testenv.Result{Stdout: string(res.Stdout)}).Checksum(); res.ExitCode != 0 || got != want {
		t.Fatalf("exit %d, checksum %s; want 0 and %s", res.ExitCode, got, want)
	}
	if res.Report.Served != 0 {
		t.Errorf("%d pairs merged, want none", res.Report.Served)
	}
	for _, pair := range res.Report.Pairs {
		if !strings.Contains(pair.Note, "page-locks its host buffer itself") {
			t.Errorf("pair %s: note %q; want it left as written because the program page-locks it", pair.ID, pair.Note)
		}
	}
}

// A child forked after the pairs were bound gets its own copy of the host buffers, as it does
// of any host memory: what it writes there never reaches the parent (helper_alloc --fork:
// the child overwrites both host buffers, and the parent's checksum covers them after).
func TestDeployForkedChildWritesItsOwnCopy(t *testing.T) {
	testenv.RequireRoot(t)
	args := []string{"--size", "256K", "--iters", "5", "--warmup", "1"}
	p, _ := testenv.Plan(t, "helper_alloc", args...)
	compact := compactPlan(t, p, candidates(p), plan.StrategyMapped, plan.ModeDeploy)
	args = append(args, "--fork")
	want := testenv.RunWorkload(t, "helper_alloc", nil, args...).Checksum()
	res := deploy(t, compact, []string{delay}, append([]string{testenv.Built(t, "workloads/helper_alloc")}, args...)...)
	if got := (testenv.Result{Stdout: string(res.Stdout)}).Checksum(); res.ExitCode != 0 || got != want || res.Report.Served != 2 {
		t.Errorf("exit %d, checksum %s, %d pairs merged; want 0, %s as written, and both pairs merged", res.ExitCode, got,
			res.Report.Served, want)
	}
}

// The shim times its own set-up: with page-locking priced at 100 ms per MiB by the
// emulator, mapped's two 1 MiB device sides (page-locked to map them) and pinned's two 1 MiB
// pool buffers report at least what the emulator made them wait, and a run served by nothing
// reports none. Calibration weighs this figure against the iterations' gain.
func TestDeployTimesSetup(t *testing.T) {
	testenv.RequireRoot(t)
	args := []string{"--size", "1M", "--iters", "5", "--warmup", "1"}
	p, _ := testenv.Plan(t, "stream", args...)
	pairs := candidates(p)
	priced := []string{"CUDA_EMU_PIN_US_PER_MIB=100000"}
	stream := append([]string{testenv.Built(t, "workloads/stream")}, args...)
	for _, c := range []struct {
		strategy string
		atLeast  time.Duration
	}{{"mapped", 200 * time.Millisecond}, {"pinned", 200 * time.Millisecond}} {
		compact := compactPlan(t, p, pairs, plan.Strategy(c.strategy), plan.ModeDeploy)
		res := deploy(t, compact, priced, stream...)
		if res.ExitCode != 0 || res.Report.Served == 0 {
			t.Fatalf("%s: exit %d, %d pairs served (%q)", c.strategy, res.ExitCode, res.Report.Served, res.Report.Reason)
		}
		if got := time.Duration(res.Report.SetupNS); got < c.atLeast || got > 20*c.atLeast {
			t.Errorf("%s: set-up %v; want at least the emulator's %v of page-locking, and not much more", c.strategy, got, c.atLeast)
		}
	}
	none := compactPlan(t, p, nil, "mapped", plan.ModeDeploy)
	if res := deploy(t, none, priced, stream...); res.Report.SetupNS != 0 {
		t.Errorf("nothing served: set-up %d ns; want 0", res.Report.SetupNS)
	}
}
