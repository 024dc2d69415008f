package runner_test

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/planner"
)

// forever makes stream run until it is stopped.
var forever = []string{"--size", "1M", "--iters", "100000000", "--warmup", "0"}

// started is an echoctl command whose program is in its loop.
type started struct {
	cmd    *exec.Cmd
	stderr *strings.Builder
	done   chan struct{}
}

// startEchoctl runs echoctl with args and returns once echoctl has printed ready on stderr
// ("variant=": the configuration line stream writes before its loop), or with ready "", once
// echoctl's child has become the program.
func startEchoctl(t *testing.T, ready string, args ...string) *started {
	t.Helper()
	cmd := exec.Command(testenv.Built(t, "bin/echoctl"), args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &started{cmd: cmd, stderr: &strings.Builder{}, done: make(chan struct{})}
	t.Cleanup(func() {
		// The whole group: an echoctl that failed the test may have left its program behind.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-s.done
	})
	up := make(chan bool, 1)
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(pipe)
		said := false
		for sc.Scan() {
			s.stderr.WriteString(sc.Text() + "\n")
			if !said && strings.Contains(sc.Text(), ready) {
				said = true
				up <- true
			}
		}
		if !said {
			up <- false
		}
	}()
	if ready == "" {
		s.waitForProgram(t)
		return s
	}
	select {
	case ok := <-up:
		if !ok {
			cmd.Wait()
			t.Fatalf("echoctl %s: the program never started: %s", strings.Join(args, " "), s.stderr)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("echoctl %s: the program did not start in a minute", strings.Join(args, " "))
	}
	return s
}

// wait returns echoctl's exit status and what it wrote on stderr; an echoctl that does not
// end within half a minute fails the test.
func (s *started) wait(t *testing.T) (int, string) {
	t.Helper()
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("echoctl did not end within 30 s of the signal: %s", s.stderr)
	}
	err := s.cmd.Wait()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return s.cmd.ProcessState.ExitCode(), s.stderr.String()
}

// children are the processes echoctl started (from its main thread, which starts them).
func (s *started) children() []string {
	pid := strconv.Itoa(s.cmd.Process.Pid)
	data, _ := os.ReadFile("/proc/" + pid + "/task/" + pid + "/children")
	return strings.Fields(string(data))
}

// child is the one program echoctl started.
func (s *started) child(t *testing.T) int {
	t.Helper()
	kids := s.children()
	if len(kids) != 1 {
		t.Fatalf("echoctl has children %v, want one", kids)
	}
	n, _ := strconv.Atoi(kids[0])
	return n
}

// waitForProgram waits until echoctl's child has become the stream program.
func (s *started) waitForProgram(t *testing.T) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		kids := s.children()
		if len(kids) != 1 {
			continue
		}
		comm, _ := os.ReadFile("/proc/" + kids[0] + "/comm")
		if strings.TrimSpace(string(comm)) == "stream" {
			time.Sleep(200 * time.Millisecond) // into its loop
			return
		}
	}
	t.Fatal("echoctl's child never became the program")
}

// runPlans are the three ways `echoctl run` can start a program: with pairs merged, with
// nothing enabled, and on a device the plan was not calibrated for.
func runPlans(t *testing.T) map[string][]string {
	t.Helper()
	p, planPath := testenv.Plan(t, "stream", "--size", "1M", "--iters", "5", "--warmup", "1")
	edit := func(name string, change func(*plan.Plan)) string {
		q := *p
		q.Pairs = append([]plan.Pair(nil), p.Pairs...)
		change(&q)
		path := testenv.WritePlan(t, &q, name+".plan")
		return path
	}
	stream := testenv.Built(t, "workloads/stream")
	cmd := func(plan string, flags ...string) []string {
		return append(append(append([]string{"run"}, flags...), plan, "--", stream), forever...)
	}
	return map[string][]string{
		"merged": cmd(planPath, "--force"),
		"nothing enabled": cmd(edit("refused", func(q *plan.Plan) {
			for i := range q.Pairs {
				q.Pairs[i].Refuse(plan.StagePlan, "refused by the test")
			}
			planner.Recount(q)
		})),
		"context mismatch": cmd(edit("other-gpu", func(q *plan.Plan) { q.Context.GPU = "Another GPU" }), "--force"),
	}
}

// echoctl run is the program: a signal to echoctl reaches the program, and echoctl ends with
// the program's status, 128+N for signal N, whatever the plan did.
func TestRunForwardsSignals(t *testing.T) {
	testenv.RequireRoot(t)
	signals := []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGUSR1}
	for name, args := range runPlans(t) {
		for _, sig := range signals {
			t.Run(name+"/"+sig.String(), func(t *testing.T) {
				s := startEchoctl(t, "variant=", args...)
				s.cmd.Process.Signal(sig)
				status, stderr := s.wait(t)
				if want := 128 + int(sig); status != want || strings.Contains(stderr, "left no report") {
					t.Errorf("exit %d, want %d (the program's death by %v); stderr %q", status, want, sig, stderr)
				}
			})
		}
	}
}

// A program killed behind echoctl's back ends echoctl with 137, not with a complaint about
// the report the program never wrote.
func TestRunReportsKilledProgram(t *testing.T) {
	testenv.RequireRoot(t)
	for name, args := range runPlans(t) {
		t.Run(name, func(t *testing.T) {
			s := startEchoctl(t, "variant=", args...)
			syscall.Kill(s.child(t), syscall.SIGKILL)
			status, stderr := s.wait(t)
			if status != 137 || strings.Contains(stderr, "left no report") {
				t.Errorf("exit %d, stderr %q; want 137 and no complaint", status, stderr)
			}
		})
	}
}

// A SIGKILLed echoctl takes its program with it.
func TestRunDiesWithEchoctl(t *testing.T) {
	testenv.RequireRoot(t)
	s := startEchoctl(t, "variant=", runPlans(t)["merged"]...)
	child := s.child(t)
	s.cmd.Process.Kill()
	s.wait(t)
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(child, 0) == nil {
		if stat, _ := os.ReadFile("/proc/" + strconv.Itoa(child) + "/stat"); strings.Contains(string(stat), ") Z ") {
			break // a zombie waiting for init to reap it: dead
		}
		if time.Now().After(deadline) {
			t.Fatalf("the program (pid %d) outlived its echoctl by 10 s", child)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A signal stops validate, calibrate and optimize: the program is stopped, no plan is written
// (the previous one stays as it was), and echoctl exits 130 or 143.
func TestInterruptWritesNoPlan(t *testing.T) {
	testenv.RequireRoot(t)
	_, planPath := testenv.Plan(t, "stream", "--size", "1M", "--iters", "5", "--warmup", "1")
	before, err := os.ReadFile(planPath)
	if err != nil {
		t.Fatal(err)
	}
	stream := testenv.Built(t, "workloads/stream")
	dir := t.TempDir()
	// The trace of an earlier optimize's plan: the interrupted one must not replace it.
	oldTrace := filepath.Join(dir, "stream.plan.trace")
	os.WriteFile(oldTrace, []byte("the earlier plan's trace"), 0o644)
	cases := []struct {
		name, ready string
		args        []string
		sig         syscall.Signal
	}{
		{"validate", "variant=", []string{"validate", planPath, "--", stream}, syscall.SIGINT},
		{"calibrate", "", []string{"calibrate", "--unvalidated", planPath, "--", stream}, syscall.SIGTERM},
		{"optimize", "[1/4] tracing", []string{"optimize", "-o", filepath.Join(dir, "stream.plan"), "--", stream}, syscall.SIGINT},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := startEchoctl(t, c.ready, append(c.args, forever...)...)
			if c.name == "optimize" {
				s.waitForProgram(t)
			}
			s.cmd.Process.Signal(c.sig)
			status, stderr := s.wait(t)
			if want := 128 + int(c.sig); status != want || !strings.Contains(stderr, "interrupted") {
				t.Errorf("exit %d, stderr %q; want %d and a word that it was interrupted", status, stderr, want)
			}
			after, err := os.ReadFile(planPath)
			if err != nil || string(after) != string(before) {
				t.Errorf("the plan changed: %v", err)
			}
			if _, err := os.Stat(filepath.Join(dir, "stream.plan")); err == nil {
				t.Error("optimize wrote a plan after the interrupt")
			}
			if data, err := os.ReadFile(oldTrace); err != nil || string(data) != "the earlier plan's trace" {
				t.Errorf("the earlier plan's trace was replaced or removed: %v", err)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(left) > 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
}

// optimize stops, saying why, when the program fails: a plan of a failing run optimizes the
// failure.
func TestOptimizeStopsOnFailingProgram(t *testing.T) {
	testenv.RequireRoot(t)
	dir := t.TempDir()
	plan := filepath.Join(dir, "stream.plan")
	// The third runtime allocation (the second cudaMalloc) fails: stream reports it and exits 1.
	res := testenv.Echoctl(t, []string{"CUDA_EMU_FAIL_ALLOC=2"}, "optimize", "-o", plan, "--",
		testenv.Built(t, "workloads/stream"), "--size", "1M", "--iters", "3")
	if res.ExitCode == 0 || !strings.Contains(res.Stderr, "exited with status 1 while being traced") ||
		!strings.Contains(res.Stderr, "cudaMalloc") {
		t.Errorf("optimize: exit %d, stderr %q; want the program's failure and the end of its stderr", res.ExitCode, res.Stderr)
	}
	if _, err := os.Stat(plan); err == nil {
		t.Error("optimize wrote a plan of a failing run")
	}
}

// A terminal's Ctrl-C reaches echoctl and its program together, and either may see it first.
// Whichever does, validate, calibrate and optimize end the one way an interrupt ends them:
// 130 and the line that says so. (A program that died of the signal and was reaped before
// echoctl's handler ran read as a failing program: exit 1, "exited with status 130", in 2 of
// 21 tries of optimize.)
func TestProcessGroupInterrupt(t *testing.T) {
	testenv.RequireRoot(t)
	_, planPath := testenv.Plan(t, "stream", "--size", "1M", "--iters", "5", "--warmup", "1")
	stream := testenv.Built(t, "workloads/stream")
	echoctl := testenv.Built(t, "bin/echoctl")
	dir := t.TempDir()
	commands := [][]string{
		{"calibrate", "--unvalidated", planPath, "--", stream},
		{"validate", planPath, "--", stream},
		{"optimize", "-o", filepath.Join(dir, "stream.plan"), "--", stream},
	}
	const tries = 21
	bad := 0
	for i := range tries {
		args := append(slices.Clone(commands[i%len(commands)]), forever...)
		cmd := exec.Command(echoctl, args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // a job of its own, as a shell makes it
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		s := &started{cmd: cmd}
		// The moment the program runs: the signal then reaches it and echoctl at once.
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(2 * time.Millisecond) {
			if kids := s.children(); len(kids) == 1 {
				if comm, _ := os.ReadFile("/proc/" + kids[0] + "/comm"); strings.TrimSpace(string(comm)) == "stream" {
					break
				}
			}
			if time.Now().After(deadline) {
				syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				cmd.Wait()
				t.Fatalf("echoctl %s: the program never started: %s", args[0], stderr.String())
			}
		}
		syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
		cmd.Wait()
		if status := cmd.ProcessState.ExitCode(); status != 130 || !strings.Contains(stderr.String(), "interrupted by SIGINT") {
			bad++
			t.Errorf("try %d, echoctl %s: exit %d, stderr %q; want 130 and the line saying it was interrupted",
				i+1, args[0], status, stderr.String())
		}
	}
	if bad > 0 {
		t.Logf("%d of %d tries went wrong", bad, tries)
	}
}
