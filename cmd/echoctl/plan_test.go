package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"charm.land/lipgloss/v2"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/planview"
	"github.com/echo-uma/echo/trace"
)

// streamPlan is the plan of a copy→kernel→copy loop: an input and an output candidate, a
// refused pair and a rejected copy site.
func streamPlan() *plan.Plan {
	const exe, mib4 = "/opt/app/stream", 4 << 20
	site := func(off uint64, call string, bytes uint64) plan.Site {
		return plan.Site{Module: exe, BuildID: "ab12", Offset: off, Call: call, Bytes: bytes}
	}
	pair := func(id string, dir plan.PairDirection, copyDir plan.CopyDirection, bytes uint64, off uint64, copyMS, f float64) plan.Pair {
		return plan.Pair{
			ID: id, Direction: dir, Bytes: bytes,
			Host:   plan.Buffer{Site: site(off, "malloc", bytes), Kind: "pageable"},
			Device: plan.Buffer{Site: site(off+0x10, "cudaMalloc", bytes), Kind: "device"},
			Copies: []plan.Copy{{Site: site(off+0x20, "cudaMemcpy", bytes), Direction: copyDir, Stream: "legacy",
				Count: 10, PerIteration: 1, MS: copyMS}},
			BytesPerIteration: bytes, CopyMSPerIteration: copyMS, FCopy: f, PredictedSpeedup: 1 / (1 - f),
			Status: plan.StatusCandidate, Strategies: plan.MergeStrategies, Evidence: []string{"needs validation: host reads and writes between " +
				"the copies, and kernels writing an input in place, are invisible to a trace"},
		}
	}
	small := pair("p3", "input", "h2d", 4096, 0x1300, 0.01, 0.001)
	small.Status, small.Evidence, small.Strategies = plan.StatusRefused, nil, nil
	small.Reason = "too small to pay: 4 KiB per copy (threshold 64 KiB, --min-bytes)"
	out := pair("p2", "output", "d2h", mib4, 0x1200, 1, 0.1)
	out.Estimated, out.Copies[0].Estimated = true, true
	return &plan.Plan{
		Version: plan.Version, Created: time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC), Tool: "echoctl test",
		Trace:   plan.Source{Path: "trace.bin", Command: []string{"./stream", "--n", "1048576"}, PID: 4242},
		Context: plan.Context{Executable: plan.Module{Path: exe, BuildID: "ab12"}},
		Loop:    plan.Loop{Iterations: 10, MS: 10, CopyMS: 3},
		Pairs:   []plan.Pair{pair("p1", "input", "h2d", mib4, 0x1100, 2, 0.2), out, small},
		Rejected: []plan.Rejection{{Site: site(0x3400, "cudaMemcpy", 1024), Direction: "h2d", Count: 10,
			Reason: "a partial copy: not the whole of both buffers"}},
		FCopy: 0.3, PredictedSpeedup: 1 / (1 - 0.3),
	}
}

func TestRenderPlan(t *testing.T) {
	noLoop := streamPlan()
	noLoop.Loop = plan.Loop{}
	noLoop.Pairs = noLoop.Pairs[2:]
	noLoop.Pairs[0].Reason = "too rare: cudaMemcpy at stream+0x1320 ran once, in fewer than the loop's 0 iterations"
	noLoop.FCopy, noLoop.PredictedSpeedup = 0, 1
	noLoop.Notes = []string{"no loop found: no linking copy recurs, so no copy share can be estimated"}

	attached := streamPlan()
	attached.Trace.Attached = true
	attached.Pairs[0].Host = plan.Buffer{Site: plan.Site{Bytes: 4 << 20}, Unresolved: true}
	attached.Pairs[2].Reason = "copies are asynchronous in a program that orders streams with events or runs several streams"
	attached.Notes = []string{"attached trace: allocations made before the attach are missing, so pairs are " +
		"identified by pointers, sizes and copy sites (sites unresolved); `echoctl validate` resolves them"}

	empty := streamPlan()
	empty.Loop, empty.Pairs, empty.Rejected, empty.FCopy, empty.PredictedSpeedup = plan.Loop{}, nil, nil, 0, 1
	empty.Notes = []string{"no copy links a host buffer and a device buffer as a whole: nothing to merge"}

	crowded := streamPlan()
	crowded.Pairs[1].Estimated, crowded.Pairs[1].Copies[0].Estimated = false, false
	crowded.Pairs[2].Estimated, crowded.Pairs[2].Copies[0].Estimated = true, true
	for i := range 11 {
		r := crowded.Rejected[0]
		r.Site.Offset += uint64(i+1) * 0x10
		crowded.Rejected = append(crowded.Rejected, r)
	}

	// Pinned's estimate above the bound: it also saves the first touch of fresh host buffers.
	pinned := streamPlan()
	pinned.Estimates = []plan.Estimate{{Strategy: plan.StrategyMapped, Speedup: 1.3}, {Strategy: plan.StrategyPinned, Speedup: 2.93}}

	tests := []struct {
		name    string
		plan    *plan.Plan
		want    []string // whole lines, or parts of lines, in order
		notWant []string
	}{
		{
			name: "candidates and a refusal",
			plan: streamPlan(),
			want: []string{
				"plan for ./stream --n 1048576 (pid 4242): 10 iterations, 10ms per iteration\n",
				"PAIR  DIR     BYTES/ITER  F_COPY   BOUND  VERDICT    REASON\n",
				"p1    input      4.0 MiB   20.0%   1.25×  candidate  needs validation\n",
				"p2    output     4.0 MiB  ~10.0%  ~1.11×  candidate  needs validation\n",
				"p3    input      4.0 KiB    0.1%   1.00×  refused    too small to pay\n",
				"\np1, p2: needs validation: host reads and writes between the copies, and\n" +
					"  kernels writing an input in place, are invisible to a trace\n" +
					"p3: too small to pay: 4 KiB per copy (threshold 64 KiB, --min-bytes)\n",
				"\ntotal: Amdahl bound ~1.43× (f_copy ~30.0%)\n",
				"~ partly estimated: some copies also waited for earlier GPU work\n",
				"\nrejected copy sites:\n",
				"SITE           CALL        DIR  CALLS    BYTES  REASON\n",
				"stream+0x3400  cudaMemcpy  h2d    ×10  1.0 KiB  a partial copy: not the whole of\n",
				"                                               both buffers\n",
				"next: echoctl validate app.plan -- ./stream --n 1048576\n",
			},
			notWant: []string{"notes:", "no loop found", "\x1b["},
		},
		{
			name: "no loop",
			plan: noLoop,
			want: []string{
				"plan for ./stream --n 1048576 (pid 4242): no loop found\n",
				"p3    input     4.0 KiB    0.1%  1.00×  refused  too rare\n",
				"\np3: too rare: cudaMemcpy at stream+0x1320 ran once, in fewer than the loop's 0\n  iterations\n",
				"total: no prediction: no loop found: nothing repeats to predict\n",
				"notes:\n- no loop found: no linking copy recurs, so no copy share can be estimated\n",
				"nothing to validate: no pair can be merged\n",
			},
			notWant: []string{"next:", "~", "needs validation"},
		},
		{
			name: "attached",
			plan: attached,
			want: []string{
				"plan for ./stream --n 1048576 (pid 4242, attached): 10 iterations, 10ms per\n  iteration\n",
				"p1    input      4.0 MiB   20.0%   1.25×  candidate  sites unresolved; needs\n",
				"validation\n",
				"p3    input      4.0 KiB    0.1%   1.00×  refused    copies are asynchronous in\n",
				"                                                     a program that orders…\n",
				"\np1, p2: needs validation",
				"p3: copies are asynchronous in a program that orders streams with events or\n" +
					"  runs several streams\n",
				"notes:\n- attached trace: allocations made before the attach are missing, so pairs are\n" +
					"  identified by pointers, sizes and copy sites (sites unresolved); `echoctl\n" +
					"  validate` resolves them\n",
				"next: echoctl validate app.plan -- ./stream --n 1048576\n",
			},
		},
		{
			name: "only a refused pair estimated, many rejections",
			plan: crowded,
			want: []string{
				"p3    input      4.0 KiB   ~0.1%  ~1.00×  refused",
				"\ntotal: Amdahl bound 1.43× (f_copy 30.0%)\n~ partly estimated",
				"stream+0x3490  cudaMemcpy",
				"\n… and 2 more (echoctl plan --json lists them all)\n",
			},
			notWant: []string{"stream+0x34a0", "stream+0x34b0"},
		},
		{
			name: "an estimate above the bound",
			plan: pinned,
			want: []string{
				"\ntotal: predicted 2.93× (pinned), Amdahl bound ~1.43× (f_copy ~30.0%)\n",
				"the bound is the copies' alone; the pool also saves the first touch of fresh\n  host buffers\n",
			},
		},
		{
			name: "no pairs",
			plan: empty,
			want: []string{
				"plan for ./stream --n 1048576 (pid 4242): no loop found\n",
				"\nno host/device buffer pairs found\n",
				"total: no prediction: no host/device pair found\n",
				"notes:\n- no copy links a host buffer and a device buffer as a whole: nothing to merge\n",
				"nothing to validate: no pair can be merged\n",
			},
			notWant: []string{"PAIR", "rejected copy sites"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.plan.Check(); err != nil {
				t.Fatalf("the test's plan is invalid: %v", err)
			}
			var buf bytes.Buffer
			if err := planview.Render(&buf, tt.plan, "app.plan", func(string) bool { return true }); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			rest := out
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Errorf("output lacks %q (after what came before):\n%s", w, out)
					continue
				}
				rest = rest[i+len(w):]
			}
			for _, w := range tt.notWant {
				if strings.Contains(out, w) {
					t.Errorf("output has %q:\n%s", w, out)
				}
			}
			if strings.Contains(out, "\x1b") {
				t.Errorf("escape sequences written to a writer that is no terminal: %q", out)
			}
			for _, line := range strings.Split(out, "\n") {
				if n := lipgloss.Width(line); n > planview.Width && !strings.HasPrefix(line, "next:") {
					t.Errorf("line of %d columns: %q", n, line)
				}
				if strings.TrimRight(line, " ") != line {
					t.Errorf("trailing spaces: %q", line)
				}
			}
			if testing.Verbose() {
				t.Logf("\n%s", out)
			}
		})
	}
}

// One plan whose command has a 200 000-character argument, rendered as text (go test
// -bench RenderPlanLongArgument ./cmd/echoctl/).
func BenchmarkRenderPlanLongArgument(b *testing.B) {
	p := streamPlan()
	p.Trace.Command = []string{"./stream", "--data", strings.Repeat("0123456789", 20_000)}
	for b.Loop() {
		if err := planview.Render(io.Discard, p, "stream.plan", func(string) bool { return true }); err != nil {
			b.Fatal(err)
		}
	}
}

// streamTrace writes the trace of a program that allocates a host and a device buffer for
// its input and for its output, then loops ten times: copy the input in, run a kernel, copy
// the output back. Its command line is command, ./stream when none is given.
func streamTrace(t *testing.T, command ...string) string {
	t.Helper()
	const (
		pid    = 4242
		size   = 4 << 20
		exe    = "/opt/app/stream"
		base   = 0x400000
		hostIn = 0x7f00_0000_0000
		hostOu = 0x7f00_1000_0000
		devIn  = 0x7000_0000
		devOut = 0x7100_0000
	)
	if len(command) == 0 {
		command = []string{"./stream"}
	}
	start := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	c := testenv.NewCalls(trace.Header{Host: "gpu01", Start: start, StartMonoNS: 1_000_000, PID: pid,
		Command: command, Modules: []trace.Module{{Path: exe, BuildID: "ab12cd34",
			Start: base, End: base + 0x100000, Base: base, Size: 123456}}}, base)
	c.Call(trace.EventMalloc, 0x1100, 2_000, trace.Event{Addr: hostIn, Bytes: size})
	c.Call(trace.EventMalloc, 0x1110, 2_000, trace.Event{Addr: hostOu, Bytes: size})
	c.Call(trace.EventCUDAMalloc, 0x1120, 50_000, trace.Event{Addr: devIn, Bytes: size})
	c.Call(trace.EventCUDAMalloc, 0x1130, 50_000, trace.Event{Addr: devOut, Bytes: size})
	for range 10 {
		c.Call(trace.EventCUDAMemcpy, 0x1200, 400_000, trace.Event{Addr: devIn, Src: hostIn, Bytes: size, Kind: trace.KindHostToDevice})
		c.Call(trace.EventCUDALaunchKernel, 0x1210, 5_000, trace.Event{})
		c.Call(trace.EventCUDADeviceSynchronize, 0x1220, 2_000_000, trace.Event{})
		c.Call(trace.EventCUDAMemcpy, 0x1230, 400_000, trace.Event{Addr: hostOu, Src: devOut, Bytes: size, Kind: trace.KindDeviceToHost})
		c.Idle(1_000_000) // host work between iterations
	}
	c.Call(trace.EventCUDAFree, 0x1300, 10_000, trace.Event{Addr: devIn})
	c.Call(trace.EventCUDAFree, 0x1310, 10_000, trace.Event{Addr: devOut})
	c.Call(trace.EventFree, 0x1320, 1_000, trace.Event{Addr: hostIn})
	c.Call(trace.EventFree, 0x1330, 1_000, trace.Event{Addr: hostOu})
	path := filepath.Join(t.TempDir(), "trace.bin")
	c.Write(t, path)
	return path
}

func TestPlanCommand(t *testing.T) {
	path := streamTrace(t)
	out, err := execute(t, "plan", path)
	if err != nil {
		t.Fatalf("plan: %v\n%s", err, out)
	}
	p := testenv.ReadPlan(t, path+".plan")
	var in, outPairs []plan.Pair
	for _, pair := range p.Pairs {
		switch pair.Direction {
		case "input":
			in = append(in, pair)
		case "output":
			outPairs = append(outPairs, pair)
		}
	}
	if len(in) != 1 || len(outPairs) != 1 || len(p.Pairs) != 2 {
		t.Fatalf("pairs %+v, want one input and one output pair", p.Pairs)
	}
	for _, pair := range p.Pairs {
		if pair.Status != plan.StatusCandidate || pair.Bytes != 4<<20 {
			t.Errorf("pair %s: %s (%s), %d bytes; want a 4 MiB candidate", pair.ID, pair.Status, pair.Reason, pair.Bytes)
		}
	}
	if p.Loop.Iterations != 10 || p.PredictedSpeedup <= 1 || p.Trace.Path != path {
		t.Errorf("loop %+v, speed-up %v, trace %q", p.Loop, p.PredictedSpeedup, p.Trace.Path)
	}
	for _, w := range []string{"plan for ./stream (pid 4242): 10 iterations", "candidate", "total: predicted 1.16× (mapped), Amdahl bound 1.26× (f_copy 20.8%)\n",
		"next: echoctl validate " + path + ".plan -- ./stream\n"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	if !strings.HasSuffix(out, "wrote "+path+".plan\n") {
		t.Errorf("output does not end with the plan written:\n%s", out)
	}
	if testing.Verbose() {
		t.Logf("\n%s", out)
	}
}

func TestPlanCommandJSON(t *testing.T) {
	path := streamTrace(t)
	planPath := filepath.Join(t.TempDir(), "app.plan")
	out, err := execute(t, "plan", "--json", "-o", planPath, path)
	if err != nil {
		t.Fatalf("plan --json: %v\n%s", err, out)
	}
	file, err := os.ReadFile(planPath)
	if err != nil {
		t.Fatal(err)
	}
	if out != string(file) {
		t.Errorf("--json printed something else than the plan file:\n%s\nfile:\n%s", out, file)
	}
	var got struct {
		Pairs []struct {
			Direction string `json:"direction"`
			Bytes     uint64 `json:"bytes"`
			Status    string `json:"status"`
			Reason    string `json:"reason"`
		} `json:"pairs"`
		PredictedSpeedup float64 `json:"predicted_speedup"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if len(got.Pairs) != 2 || got.PredictedSpeedup <= 1 {
		t.Errorf("pairs %+v, speed-up %v", got.Pairs, got.PredictedSpeedup)
	}
	if _, err := os.Stat(path + ".plan"); err == nil {
		t.Errorf("wrote the default plan file although -o was given")
	}
}

// Given a plan file, plan shows it as it stands and writes nothing: a pair validation
// refused for merging says why, where and when, and that pinned may still serve it.
func TestPlanShowsPlanFile(t *testing.T) {
	path := streamTrace(t)
	if out, err := execute(t, "plan", path); err != nil {
		t.Fatalf("plan: %v\n%s", err, out)
	}
	planPath := path + ".plan"
	p := testenv.ReadPlan(t, planPath)
	const why = "validation: the host writes the input buffer while its device copy may still be read by later " +
		"GPU work (S1) (at stream+0x1234, 3.2 ms into the run, after 2 of its linking copies)"
	p.Pairs[0].OnlyPinned(why)
	p.Pairs[0].Status = plan.StatusValidated
	if err := plan.WriteFile(planPath, p); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(planPath)
	out, err := execute(t, "plan", planPath)
	if err != nil {
		t.Fatalf("plan PLAN: %v\n%s", err, out)
	}
	for _, w := range []string{"merges refused", "(S1) (at stream+0x1234, 3.2 ms into the run, after 2 of its", "validated"} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	if after, _ := os.ReadFile(planPath); string(after) != string(before) || strings.Contains(out, "wrote ") {
		t.Errorf("showing a plan changed or wrote it:\n%s", out)
	}
	if _, err := execute(t, "plan", "-o", filepath.Join(t.TempDir(), "x.plan"), planPath); err == nil ||
		!strings.Contains(err.Error(), "is a plan") {
		t.Errorf("plan -o PLAN: error %v, want one saying it is a plan", err)
	}
}

func TestPlanCommandErrors(t *testing.T) {
	good := streamTrace(t)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no trace", []string{"plan"}, "accepts 1 arg(s), received 0"},
		{"missing trace", []string{"plan", filepath.Join(t.TempDir(), "nope.bin")}, "opening "},
		{"not a trace", []string{"plan", writeFile(t, "hello")}, "not an Echo trace (bad magic)"},
		{"zero iterations", []string{"plan", "--min-iterations", "0", good}, "--min-iterations 0: give 1 or more"},
		{"bad size", []string{"plan", "--min-bytes", "lots", good}, `"lots" is not a size in bytes`},
		{"unwritable plan", []string{"plan", "-o", filepath.Join(t.TempDir(), "no", "dir", "x.plan"), good}, "no/dir/x.plan: no such file or directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := execute(t, tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q\n%s", err, tt.want, out)
			}
		})
	}
}

func TestPlanThresholds(t *testing.T) {
	path := streamTrace(t)
	for _, tt := range []struct {
		args []string
		want string // in the reason of every pair
	}{
		{[]string{"--min-bytes", "8M"}, "too small to pay"},
		{[]string{"--min-iterations", "11"}, "too rare"},
	} {
		planPath := filepath.Join(t.TempDir(), "app.plan")
		out, err := execute(t, append(append([]string{"plan", "-o", planPath}, tt.args...), path)...)
		if err != nil {
			t.Fatalf("plan %v: %v\n%s", tt.args, err, out)
		}
		p := testenv.ReadPlan(t, planPath)
		for _, pair := range p.Pairs {
			if pair.Status != plan.StatusRefused || !strings.Contains(pair.Reason, tt.want) {
				t.Errorf("plan %v: pair %s %s (%s), want refused: %s", tt.args, pair.ID, pair.Status, pair.Reason, tt.want)
			}
		}
	}
}

// A program whose name and arguments are not UTF-8 is recorded byte for byte, and the next
// command plan suggests, pasted into a shell, names the plan written and the program traced:
// not their names with U+FFFD where the bytes were.
func TestPlanNextStepKeepsNonUTF8Names(t *testing.T) {
	command := []string{"./app\xff", "--in", "data\xfe.bin"}
	planPath := filepath.Join(t.TempDir(), "app\xff.plan")
	out, err := execute(t, "plan", "-o", planPath, streamTrace(t, command...))
	if err != nil {
		t.Fatalf("plan: %v\n%s", err, out)
	}
	p := testenv.ReadPlan(t, planPath)
	if !slices.Equal(p.Trace.Command, command) {
		t.Errorf("the plan records the command as %q, want %q", p.Trace.Command, command)
	}
	_, next, ok := strings.Cut(out, "\nnext: ")
	next, _, _ = strings.Cut(next, "\n")
	if !ok || !utf8.ValidString(next) || strings.ContainsFunc(next, func(r rune) bool { return r < 0x20 || r == utf8.RuneError }) {
		t.Fatalf("next step %q: want printable text\n%s", next, out)
	}
	got, err := exec.Command("bash", "-c", `for a in `+next+`; do printf '%s\0' "$a"; done`).Output()
	if err != nil {
		t.Fatal(err)
	}
	want := append([]string{"echoctl", "validate", planPath, "--"}, command...)
	if args := strings.Split(strings.TrimSuffix(string(got), "\x00"), "\x00"); !slices.Equal(args, want) {
		t.Errorf("bash reads the next step %s as %q, want %q", next, args, want)
	}
}
