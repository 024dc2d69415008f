package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/planner"
	"github.com/echo-uma/echo/runner"
)

// calibrated writes p to path as calibration would have left it on gpu: every mergeable
// candidate enabled with the mapped strategy and the digest of those pairs (calibration's
// rule is calibrate's to test; a plan directory only carries its result).
func calibrated(t *testing.T, p planner.Plan, gpu, path string) int {
	t.Helper()
	p.Pairs = append([]planner.Pair(nil), p.Pairs...)
	var enabled []planner.Pair
	for i := range p.Pairs {
		if p.Pairs[i].Status == planner.StatusCandidate && p.Pairs[i].Merges() {
			p.Pairs[i].Status = planner.StatusEnabled
			enabled = append(enabled, p.Pairs[i])
		}
	}
	if len(enabled) == 0 {
		t.Fatalf("%s: no candidate pair to enable", path)
	}
	digest, err := planner.PairsDigest(enabled, planner.StrategyMapped)
	if err != nil {
		t.Fatal(err)
	}
	p.Context.GPU, p.Context.ComputeCapability, p.Context.Strategy, p.Context.PairsDigest = gpu, "8.7", planner.StrategyMapped, digest
	if err := planner.WriteFile(path, &p); err != nil {
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
	if res := testenv.Echoctl(t, nil, add...); res.ExitCode != 0 {
		t.Fatalf("plans add: exit %d: %s", res.ExitCode, res.Stderr)
	}
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
			if c.plan != "" && (!r.Active || r.Plan != c.plan || r.Merged != pairs[strings.TrimSuffix(c.plan, ".plan.shim")] || r.CopiesElided == 0) {
				t.Errorf("report: active %v, plan %q, %d pairs merged, %d copies elided (%s); want %s with every pair merged",
					r.Active, r.Plan, r.Merged, r.CopiesElided, r.Reason, c.plan)
			}
			if c.plan == "" && (r.Active || r.Merged != 0 || !strings.Contains(r.Reason, c.reason)) {
				t.Errorf("report: active %v, %d merged, reason %q; want untouched: %q", r.Active, r.Merged, r.Reason, c.reason)
			}
		})
	}

	// The CLI says why a program ran untouched where the shim stays quiet (a program no plan
	// is for: in a fleet, most of the processes that inherit the environment).
	res := testenv.Echoctl(t, nil, append([]string{"run", "--plans", dir, "--"}, argv("compute")...)...)
	if res.ExitCode != 0 || !strings.Contains(res.Stderr, "echoctl: the program ran untouched: no plan in") {
		t.Errorf("run --plans on compute: exit %d, stderr %q; want it untouched, saying why", res.ExitCode, res.Stderr)
	}

	// An unusable file, here a deployment cut short, is skipped with one line; the others serve.
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
	if res.ExitCode != 0 || !strings.Contains(res.Stderr, "echo-shim: skipping 1 unusable file in the plan directory "+dir+"; the first, cut.plan.shim: plan line") ||
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
		Schema string    `json:"schema"`
		Plans  []planRow `json:"plans"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &doc); err != nil || res.ExitCode != 0 {
		t.Fatalf("plans ls --json: exit %d, %v: %s", res.ExitCode, err, res.Stdout)
	}
	got := map[string]planRow{}
	for _, r := range doc.Plans {
		got[r.Name] = r
	}
	for name, gpu := range map[string]string{"stream": "Echo UMA Emulator", "pipeline": "Echo UMA Emulator", "stream-b": "Other GPU"} {
		r := got[name]
		if r.Status != "ok" || r.GPU != gpu || r.Strategy != planner.StrategyMapped || r.Pairs != pairs[name] ||
			!strings.HasSuffix(r.Executable.Path, strings.TrimSuffix(name, "-b")) || r.Executable.BuildID == "" || r.Created.IsZero() {
			t.Errorf("plans ls: %s: %+v; want ok, for %s on %s with %d mapped pairs", name, r, strings.TrimSuffix(name, "-b"), gpu, pairs[name])
		}
	}
	if r := got["cut"]; r.Status != "orphan" || len(doc.Plans) != 4 {
		t.Errorf("plans ls: %d plans, cut: %+v; want 4, cut an orphan deployment", len(doc.Plans), r)
	}
}
