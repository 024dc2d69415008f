package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/plandir"
	"github.com/echo-uma/echo/runner"
)

// calibrated writes p to path as calibration would have left it on gpu: every mergeable
// candidate enabled with the mapped strategy and the digest of those pairs (calibration's
// rule is calibrate's to test; a plan directory only carries its result).
func calibrated(t *testing.T, p plan.Plan, gpu, path string) int {
	t.Helper()
	p.Pairs = append([]plan.Pair(nil), p.Pairs...)
	var enabled []plan.Pair
	for i := range p.Pairs {
		if p.Pairs[i].Status == plan.StatusCandidate && p.Pairs[i].Merges() {
			p.Pairs[i].Status = plan.StatusEnabled
			enabled = append(enabled, p.Pairs[i])
		}
	}
	if len(enabled) == 0 {
		t.Fatalf("%s: no candidate pair to enable", path)
	}
	digest, err := plan.PairsDigest(enabled, plan.StrategyMapped)
	if err != nil {
		t.Fatal(err)
	}
	p.Context.GPU, p.Context.ComputeCapability, p.Context.Strategy, p.Context.PairsDigest = gpu, "8.7", plan.StrategyMapped, digest
	if err := plan.WriteFile(path, &p); err != nil {
		t.Fatal(err)
	}
	return len(enabled)
}

// One plan directory serves two workloads, one of them on two GPUs: each run gets the
// deployment for its executable and device, merged, computing what it computed as written;
// a program, or a GPU, no plan is for runs untouched; an unusable file is skipped with a
// line; two deployments for one executable and GPU leave it untouched, naming both.
func TestPlanDirectory(t *testing.T) {
	testenv.RequireRoot(t)
	t.Setenv("ECHO_SHIM", testenv.Built(t, "lib/libechoshim.so"))
	size := map[string]string{"stream": "1M", "pipeline": "1M", "compute": "64K"}
	args := func(w string) []string { return []string{"--size", size[w], "--iters", "5", "--warmup", "1"} }
	argv := func(w string) []string { return append([]string{testenv.Built(t, "workloads/"+w)}, args(w)...) }
	src, dir := t.TempDir(), filepath.Join(t.TempDir(), "plans")
	streamPlan, _ := testenv.Plan(t, "stream", args("stream")...)
	pipelinePlan, _ := testenv.Plan(t, "pipeline", args("pipeline")...)
	pairs := map[string]int{
		"stream":   calibrated(t, *streamPlan, "Echo UMA Emulator", filepath.Join(src, "stream.plan")),
		"pipeline": calibrated(t, *pipelinePlan, "Echo UMA Emulator", filepath.Join(src, "pipeline.plan")),
		"stream-b": calibrated(t, *streamPlan, "Other GPU", filepath.Join(src, "stream-b.plan")),
	}
	calibrated(t, *streamPlan, "Echo UMA Emulator", filepath.Join(src, "again.plan"))
	add := append([]string{"plans", "add", dir}, filepath.Join(src, "stream.plan"), filepath.Join(src, "pipeline.plan"),
		filepath.Join(src, "stream-b.plan"))
	testenv.EchoctlOK(t, nil, add...)
	// a second plan for stream on the emulator would leave stream untouched: add refuses it
	if res := testenv.Echoctl(t, nil, "plans", "add", dir, filepath.Join(src, "again.plan")); res.ExitCode == 0 ||
		!strings.Contains(res.Stderr, "stream.plan") {
		t.Errorf("plans add of a second plan for stream's executable and GPU: exit %d, stderr %q; want a refusal naming stream.plan",
			res.ExitCode, res.Stderr)
	}

	cases := []struct {
		name, workload string
		env            []string
		plan           string // the deployment chosen; "": untouched
		reason         string
	}{
		{"stream", "stream", nil, "stream.plan.shim", ""},
		{"pipeline", "pipeline", nil, "pipeline.plan.shim", ""},
		{"stream on another GPU", "stream", []string{"CUDA_EMU_DEVICE_NAME=Other GPU"}, "stream-b.plan.shim", ""},
		{"stream on a GPU no plan is for", "stream", []string{"CUDA_EMU_DEVICE_NAME=Third GPU"}, "", `no plan in ` + dir + ` is for this GPU ("Third GPU"`},
		{"a program no plan is for", "compute", nil, "", "no plan in " + dir + " is for this executable"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, kv := range c.env {
				k, v, _ := strings.Cut(kv, "=")
				t.Setenv(k, v)
			}
			want := testenv.RunWorkload(t, c.workload, c.env, args(c.workload)...).Checksum()
			res, err := runner.RunDir(context.Background(), argv(c.workload), dir, runner.IO{Stderr: os.Stderr})
			if err != nil {
				t.Fatal(err)
			}
			if got := (testenv.Result{Stdout: string(res.Stdout)}).Checksum(); res.ExitCode != 0 || got != want {
				t.Errorf("exit %d, checksum %s; want 0 and %s", res.ExitCode, got, want)
			}
			r := res.Report
			if c.plan != "" && (!r.Active || r.Plan != c.plan || r.Served != pairs[strings.TrimSuffix(c.plan, ".plan.shim")] || r.CopiesElided == 0) {
				t.Errorf("report: active %v, plan %q, %d pairs merged, %d copies elided (%s); want %s with every pair merged",
					r.Active, r.Plan, r.Served, r.CopiesElided, r.Reason, c.plan)
			}
			if c.plan == "" && (r.Active || r.Served != 0 || !strings.Contains(r.Reason, c.reason)) {
				t.Errorf("report: active %v, %d merged, reason %q; want untouched: %q", r.Active, r.Served, r.Reason, c.reason)
			}
		})
	}

	// The CLI says why a program ran untouched where the shim stays quiet (a program no plan
	// is for: in a fleet, most of the processes that inherit the environment).
	res := testenv.Echoctl(t, nil, append([]string{"run", "--plans", dir, "--"}, argv("compute")...)...)
	if res.ExitCode != 0 || !strings.Contains(res.Stderr, "echoctl: the program ran untouched: no plan in") {
		t.Errorf("run --plans on compute: exit %d, stderr %q; want it untouched, saying why", res.ExitCode, res.Stderr)
	}

	// An unusable file, here a deployment cut short, is skipped with one line, echoctl's (not
	// one from each process of the environment); the others serve.
	shim := filepath.Join(dir, "stream.plan.shim")
	whole, err := os.ReadFile(shim)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.plan.shim")
	if err := os.WriteFile(cut, whole[:len(whole)-len("end\n")], 0o644); err != nil {
		t.Fatal(err)
	}
	res = testenv.Echoctl(t, nil, append([]string{"-v", "run", "--plans", dir, "--"}, argv("stream")...)...)
	if res.ExitCode != 0 || !strings.Contains(res.Stderr, "echoctl: skipped 1 unusable file in the plan directory "+dir+"; the first, cut.plan.shim: plan line") ||
		strings.Count(res.Stderr, "unusable file") != 1 ||
		!strings.Contains(res.Stderr, "echoctl: plan stream.plan.shim: 1 pairs served") && !strings.Contains(res.Stderr, "echoctl: plan stream.plan.shim: 2 pairs served") {
		t.Errorf("run --plans with a cut deployment: exit %d, stderr %q; want it skipped in one line and stream.plan.shim served", res.ExitCode, res.Stderr)
	}

	// Two deployments for one executable and GPU (a copy synced in by hand): untouched, both named.
	if err := os.WriteFile(cut, whole, 0o644); err != nil {
		t.Fatal(err)
	}
	res = testenv.Echoctl(t, nil, append([]string{"run", "--plans", dir, "--"}, argv("stream")...)...)
	if want := "echo-shim: running the program untouched: two plans in " + dir + " match this executable and GPU, cut.plan.shim and stream.plan.shim"; res.ExitCode != 0 || !strings.Contains(res.Stderr, want) {
		t.Errorf("run --plans with two matching deployments: exit %d, stderr %q; want %q", res.ExitCode, res.Stderr, want)
	}

	// plans ls says what each is for, and what is wrong with the copy.
	res = testenv.Echoctl(t, nil, "--json", "plans", "ls", dir)
	var doc struct {
		Schema string        `json:"schema"`
		Plans  []plandir.Row `json:"plans"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &doc); err != nil || res.ExitCode != 0 {
		t.Fatalf("plans ls --json: exit %d, %v: %s", res.ExitCode, err, res.Stdout)
	}
	got := map[string]plandir.Row{}
	for _, r := range doc.Plans {
		got[r.Name] = r
	}
	for name, gpu := range map[string]string{"stream": "Echo UMA Emulator", "pipeline": "Echo UMA Emulator", "stream-b": "Other GPU"} {
		r := got[name]
		if r.Status != "ok" || r.GPU != gpu || r.Strategy != plan.StrategyMapped || r.Pairs != pairs[name] ||
			!strings.HasSuffix(r.Executable.Path, strings.TrimSuffix(name, "-b")) || r.Executable.BuildID == "" || r.Created.IsZero() {
			t.Errorf("plans ls: %s: %+v; want ok, for %s on %s with %d mapped pairs", name, r, strings.TrimSuffix(name, "-b"), gpu, pairs[name])
		}
	}
	if r := got["cut"]; r.Status != "orphan" || len(doc.Plans) != 4 {
		t.Errorf("plans ls: %d plans, cut: %+v; want 4, cut an orphan deployment", len(doc.Plans), r)
	}
}

// echoctlWithin runs echoctl with stdin, failing the test when it has not ended after a
// minute: what is tested here once hung forever, and no test should wait for that.
func echoctlWithin(t *testing.T, stdin string, env []string, args ...string) testenv.Result {
	t.Helper()
	cmd := exec.Command(testenv.Built(t, "bin/echoctl"), args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	res := testenv.Within(t, time.Minute, cmd)
	if res.TimedOut {
		t.Fatalf("echoctl %s did not end within a minute: stderr %q", strings.Join(args, " "), res.Stderr)
	}
	return res
}

// A plan directory is read only as its owner left it: a FIFO named like a deployment hangs
// nothing, a link to /dev/stdin eats no program's input, a file of another user is skipped,
// all said once, by echoctl; a directory others may write into is refused whole; plans ls
// lists what the shim skips without hanging; and plans add replaces a link put in its place
// instead of writing through it into the file it names.
func TestPlanDirectoryTrust(t *testing.T) {
	testenv.RequireRoot(t)
	t.Setenv("ECHO_SHIM", testenv.Built(t, "lib/libechoshim.so"))
	args := []string{"--size", "1M", "--iters", "5", "--warmup", "1"}
	stream := append([]string{testenv.Built(t, "workloads/stream")}, args...)
	src, dir := t.TempDir(), filepath.Join(t.TempDir(), "plans")
	streamPlan, _ := testenv.Plan(t, "stream", args...)
	planPath := filepath.Join(src, "stream.plan")
	pairs := calibrated(t, *streamPlan, "Echo UMA Emulator", planPath)
	testenv.EchoctlOK(t, nil, "plans", "add", dir, planPath)
	want := testenv.RunWorkload(t, "stream", nil, args...).Checksum()

	if err := os.Symlink("/dev/stdin", filepath.Join(dir, "stdin.plan.shim")); err != nil {
		t.Fatal(err)
	}
	res := echoctlWithin(t, "the program's input\n", nil, "run", "--plans", dir, "--", "cat")
	if res.ExitCode != 0 || res.Stdout != "the program's input\n" {
		t.Errorf("cat under a plan directory with a link to /dev/stdin: exit %d, stdout %q; want its input back: %s",
			res.ExitCode, res.Stdout, res.Stderr)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.plan.shim"), 0o644); err != nil {
		t.Fatal(err)
	}
	foreign := filepath.Join(dir, "foreign.plan.shim")
	if err := os.WriteFile(foreign, []byte("echo-plan 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(foreign, testenv.Nobody, testenv.Nobody); err != nil {
		t.Fatal(err)
	}
	// Through a shell pipeline: four processes read the directory, echoctl says it once.
	pipeline := strings.Join(stream, " ") + " | cat | cat"
	res = echoctlWithin(t, "", nil, "-v", "run", "--plans", dir, "--", "sh", "-c", pipeline)
	if res.ExitCode != 0 || (testenv.Result{Stdout: res.Stdout}).Checksum() != want ||
		!strings.Contains(res.Stderr, "echoctl: skipped 3 unusable files in the plan directory "+dir+"; the first, fifo.plan.shim: it is not a regular file") ||
		strings.Count(res.Stderr, "unusable file") != 1 {
		t.Errorf("run --plans on a pipeline with a FIFO, a link and another user's file: exit %d, stdout %q, stderr %q; "+
			"want stream's checksum %s and one line saying 3 files were skipped", res.ExitCode, res.Stdout, res.Stderr, want)
	}
	served, err := runner.RunDir(context.Background(), stream, dir, runner.IO{Stderr: os.Stderr})
	if err != nil {
		t.Fatal(err)
	}
	if r := served.Report; !r.Active || r.Plan != "stream.plan.shim" || r.Served != pairs || r.Skipped != 3 {
		t.Errorf("stream beside the skipped files: report %+v; want stream.plan.shim's %d pairs merged and 3 files skipped", r, pairs)
	}

	res = echoctlWithin(t, "", nil, "--json", "plans", "ls", dir)
	var doc struct{ Plans []plandir.Row }
	if err := json.Unmarshal([]byte(res.Stdout), &doc); err != nil || res.ExitCode != 0 {
		t.Fatalf("plans ls --json: exit %d, %v: %s", res.ExitCode, err, res.Stderr)
	}
	problems := map[string]string{}
	for _, r := range doc.Plans {
		problems[r.Name] = r.Status + ": " + r.Problem
	}
	for name, want := range map[string]string{"stream": "ok: ", "fifo": "not a regular file", "stdin": "a symbolic link",
		"foreign": "belongs to uid 65534"} {
		if !strings.Contains(problems[name], want) {
			t.Errorf("plans ls: %s: %q; want %q", name, problems[name], want)
		}
	}

	// plans add replaces a link, here another user's to a file only root may read, whole.
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("root's\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "stream.plan.shim")
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(link, testenv.Nobody, testenv.Nobody); err != nil {
		t.Fatal(err)
	}
	res = echoctlWithin(t, "", nil, "plans", "add", dir, planPath)
	if data, err := os.ReadFile(secret); res.ExitCode != 0 || err != nil || string(data) != "root's\n" {
		t.Errorf("plans add over a link: exit %d (%s); the file it named now holds %q (%v); want it untouched",
			res.ExitCode, res.Stderr, data, err)
	}
	if st, err := os.Lstat(link); err != nil || !st.Mode().IsRegular() {
		t.Errorf("plans add over a link: the deployment is %v (%v); want a regular file", st.Mode(), err)
	}

	// A directory others may write into: nothing in it is used.
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	res = echoctlWithin(t, "", nil, append([]string{"run", "--plans", dir, "--"}, stream...)...)
	if res.ExitCode != 0 || (testenv.Result{Stdout: res.Stdout}).Checksum() != want ||
		!strings.Contains(res.Stderr, "running the program untouched: the plan directory "+dir+" is not to be trusted: it is writable by others") {
		t.Errorf("run --plans on a directory others may write: exit %d, stderr %q; want stream untouched, saying why", res.ExitCode, res.Stderr)
	}
	if res := echoctlWithin(t, "", nil, "plans", "ls", dir); res.ExitCode == 0 || !strings.Contains(res.Stderr, "writable by others") {
		t.Errorf("plans ls on a directory others may write: exit %d, stderr %q; want it refused, saying why", res.ExitCode, res.Stderr)
	}
}
