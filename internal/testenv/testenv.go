// Package testenv finds the build tree that `make build` produces and runs its programs, so
// that tests in every package drive the same real binaries: the emulator, the workloads and
// echoctl.
package testenv

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/planner"
	"github.com/echo-uma/echo/trace"
)

// Root is the repository root: the nearest directory above the test's own that has go.mod.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatalf("finding the working directory: %v", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test directory")
		}
		dir = parent
	}
}

// Built is the path of a file under the build tree: build/, or $ECHO_BUILD (relative to the
// repository root, or absolute) where another architecture's tree is tested (make
// test-arm64: build/arm64). A file missing from build/ is made by the Makefile's own rule
// for it (make.go), so that `go test ./symbols/` works on a fresh clone; where make cannot
// run, the test is skipped saying what to run. A missing file of another tree fails the test:
// that tree is made by make cross, which the run that names it has done.
func Built(t testing.TB, rel string) string {
	t.Helper()
	tree := os.Getenv("ECHO_BUILD")
	if tree == "" {
		path := filepath.Join(Root(t), "build", rel)
		if _, err := os.Stat(path); err != nil {
			makeBuilt(t, rel)
		}
		return path
	}
	if !filepath.IsAbs(tree) {
		tree = filepath.Join(Root(t), tree)
	}
	path := filepath.Join(tree, rel)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%s is missing: run `make cross` first (make test-arm64 does)", path)
	}
	return path
}

// Result is what one run of a program printed and how it ended.
type Result struct {
	Stdout, Stderr string
	ExitCode       int
	TimedOut       bool // killed by Within's limit
}

// Field returns the value of the first `key=value` line on stdout, or "".
func (r Result) Field(key string) string {
	for _, line := range strings.Split(r.Stdout, "\n") {
		if v, ok := strings.CutPrefix(line, key+"="); ok {
			return v
		}
	}
	return ""
}

// Checksum is the workload's `checksum=` line.
func (r Result) Checksum() string { return r.Field("checksum") }

// Run runs a program with extra environment entries ("KEY=VALUE") and returns its output;
// only a failure to start it fails the test.
func Run(t testing.TB, path string, env []string, args ...string) Result {
	t.Helper()
	cmd := exec.Command(path, args...)
	cmd.Env = append(os.Environ(), env...)
	return result(t, cmd)
}

// commandLimit is the longest a test's command may run before result kills it: a hang then
// fails the test that met it, naming the command and what it printed, where go test's own
// deadline would dump every goroutine and leave the culprit above the log's tail.
const commandLimit = 8 * time.Minute

// result runs cmd and returns what it printed and how it ended; only a failure to start it,
// or its running past commandLimit (or the test's deadline), fails the test.
func result(t testing.TB, cmd *exec.Cmd) Result {
	t.Helper()
	res := Within(t, commandLimit, cmd)
	if res.TimedOut {
		t.Fatalf("%s did not finish in %s and was killed\nstdout (end): %s\nstderr (end): %s",
			strings.Join(cmd.Args, " "), commandLimit, tail(res.Stdout), tail(res.Stderr))
	}
	return res
}

// Within runs cmd for at most limit (less where the test's deadline is nearer) and returns
// what it printed and how it ended; past it, cmd and everything it started are killed
// (Result.TimedOut). cmd runs in a process group of its own so that the kill reaches what it
// started (a workload under echoctl, a browser's renderers), and a child that outlives it
// holding its output open is waited for no more than 10 s. Only a failure to start it fails
// the test.
func Within(t testing.TB, limit time.Duration, cmd *exec.Cmd) Result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatalf("running %s: %v", strings.Join(cmd.Args, " "), err)
	}
	if deadline, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if d, set := deadline.Deadline(); set {
			limit = min(limit, max(time.Until(d)-45*time.Second, 15*time.Second))
		}
	}
	kill := time.AfterFunc(limit, func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	err := cmd.Wait()
	res := Result{Stdout: stdout.String(), Stderr: stderr.String(), TimedOut: !kill.Stop()}
	var exit *exec.ExitError
	switch {
	case res.TimedOut:
		res.ExitCode = -1
	case errors.As(err, &exit):
		res.ExitCode = exit.ExitCode()
	case err != nil:
		t.Fatalf("running %s: %v", strings.Join(cmd.Args, " "), err)
	}
	return res
}

// tail is the last 2 000 bytes of s.
func tail(s string) string {
	if len(s) > 2000 {
		return "..." + s[len(s)-2000:]
	}
	return s
}

// RunWorkload runs build/workloads/<name> and fails the test unless it exits 0 with a checksum.
func RunWorkload(t testing.TB, name string, env []string, args ...string) Result {
	t.Helper()
	res := Run(t, Built(t, filepath.Join("workloads", name)), env, args...)
	if res.ExitCode != 0 || res.Checksum() == "" {
		t.Fatalf("%s %s: exit %d, stdout %q, stderr %q", name, strings.Join(args, " "),
			res.ExitCode, res.Stdout, res.Stderr)
	}
	return res
}

// Echoctl runs the built echoctl with extra environment.
func Echoctl(t testing.TB, env []string, args ...string) Result {
	t.Helper()
	return Run(t, Built(t, "bin/echoctl"), env, args...)
}

// EchoctlOK is Echoctl for a run the test needs to succeed: one that exits non-zero fails the
// test, with the command line and what echoctl said.
func EchoctlOK(t testing.TB, env []string, args ...string) Result {
	t.Helper()
	res := Echoctl(t, env, args...)
	if res.ExitCode != 0 {
		t.Fatalf("echoctl %s: exit %d: %s", strings.Join(args, " "), res.ExitCode, res.Stderr)
	}
	return res
}

// LongStream starts the stream workload with copies of size bytes (a --size value) for
// minutes and returns once it is in its loop; the test's cleanup kills it.
func LongStream(t testing.TB, size string) *exec.Cmd {
	t.Helper()
	return StartInLoop(t, exec.Command(Built(t, "workloads/stream"), "--size", size, "--iters", "100000000", "--warmup", "0"))
}

// Start starts cmd; the test's cleanup kills and reaps it.
func Start(t testing.TB, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
}

// StartInLoop starts a stream command and returns once it is in its loop; the test's cleanup
// kills it.
func StartInLoop(t testing.TB, cmd *exec.Cmd) *exec.Cmd {
	t.Helper()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	Start(t, cmd)
	if _, err := bufio.NewReader(stderr).ReadString('\n'); err != nil { // its configuration line
		t.Fatalf("stream did not start: %v", err)
	}
	return cmd
}

// StartPiped starts cmd with a pipe to its stdin and one from its stdout, for a test that
// talks to it line by line; ending and reaping it is the caller's.
func StartPiped(t testing.TB, cmd *exec.Cmd) (io.WriteCloser, *bufio.Reader) {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return stdin, bufio.NewReader(stdout)
}

// RequireRoot skips a test that loads BPF programs or attaches uprobes when not root, or
// where there is no BPF at all: ECHO_NO_BPF=1 says so (make test-arm64 sets it: qemu's user
// mode does not emulate the bpf system call; the tracer's tests run in the arm64 VM).
func RequireRoot(t testing.TB) {
	t.Helper()
	if os.Getenv("ECHO_NO_BPF") == "1" {
		t.Skip("needs BPF, which ECHO_NO_BPF=1 says this run has not (make test-arm64 under qemu's user mode)")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to load BPF programs and attach uprobes (CI runs as root; try sudo make test)")
	}
}

// Trace runs `echoctl trace -o FILE ARGS...` with the built echoctl, the trace going to a
// temporary file; it returns the run and the file's path. It needs what RequireRoot does.
func Trace(t testing.TB, args ...string) (Result, string) {
	t.Helper()
	RequireRoot(t)
	out := filepath.Join(t.TempDir(), "trace.bin")
	res := Echoctl(t, nil, append([]string{"trace", "-o", out}, args...)...)
	return res, out
}

// TraceOK is Trace for a trace the test needs: one that exits non-zero fails the test.
func TraceOK(t testing.TB, args ...string) (Result, string) {
	t.Helper()
	res, path := Trace(t, args...)
	if res.ExitCode != 0 {
		t.Fatalf("echoctl trace %s: exit %d: %s", strings.Join(args, " "), res.ExitCode, res.Stderr)
	}
	return res, path
}

// Plan traces a built workload with the real tracer and plans the trace; the plan file is
// written beside the trace. It returns the plan and its path.
func Plan(t testing.TB, workload string, args ...string) (*plan.Plan, string) {
	t.Helper()
	return PlanProgram(t, "workloads/"+workload, args...)
}

// PlanProgram is Plan for any program under build/.
func PlanProgram(t testing.TB, rel string, args ...string) (*plan.Plan, string) {
	t.Helper()
	return PlanTraced(t, []string{"--host-allocs"}, rel, args...)
}

// PlanTraced is PlanProgram with flags for echoctl trace. Plan and PlanProgram trace with
// --host-allocs, so that a plan names every site and deploys without a validate run; the
// default trace, whose host sides validate resolves, is validate's to test.
func PlanTraced(t testing.TB, traceFlags []string, rel string, args ...string) (*plan.Plan, string) {
	t.Helper()
	_, path := TraceOK(t, append(append(traceFlags, "--", Built(t, rel)), args...)...)
	return PlanFile(t, path, path+".plan"), path + ".plan"
}

// PlanFile plans the trace at tracePath as `echoctl plan` does and writes the plan to
// planPath.
func PlanFile(t testing.TB, tracePath, planPath string) *plan.Plan {
	t.Helper()
	p := PlanRecords(t, tracePath, func(r *trace.Reader) planner.Records { return r })
	if err := plan.WriteFile(planPath, p); err != nil {
		t.Fatal(err)
	}
	return p
}

// PlanRecords plans the trace at tracePath as `echoctl plan` does, through what view makes
// of its reader (the records as they are, or changed: a test's what-if), writing nothing.
func PlanRecords(t testing.TB, tracePath string, view func(*trace.Reader) planner.Records) *plan.Plan {
	t.Helper()
	p, err := planner.Analyze(view(OpenTrace(t, tracePath)), tracePath, planner.DefaultOptions(), "echoctl test")
	if err != nil {
		t.Fatalf("planning %s: %v", tracePath, err)
	}
	return p
}

// OpenTrace opens the trace file at path for reading; the file is closed when the test ends.
func OpenTrace(t testing.TB, path string) *trace.Reader {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	r, err := trace.NewReader(f)
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	return r
}

// IsRoot reports whether the tests run as root (and so may load BPF programs).
func IsRoot() bool { return os.Geteuid() == 0 }

// CanTrace is whether this run can load BPF programs and attach uprobes: root, and BPF there
// (what RequireRoot skips without).
func CanTrace() bool { return IsRoot() && os.Getenv("ECHO_NO_BPF") != "1" }

// Long marks an end-to-end test of a minute or more: make test runs go test -short and
// leaves it to make test-all (CI), which runs every test; it skips, saying how to run it
// alone. Each checks in the large (every workload of a corpus, the README's commands, the
// demo) what shorter tests that make test runs check on one.
func Long(t testing.TB) {
	t.Helper()
	if !testing.Short() {
		return
	}
	pkg := "./..."
	if _, file, _, ok := runtime.Caller(1); ok {
		if rel, err := filepath.Rel(Root(t), filepath.Dir(file)); err == nil {
			pkg = "./" + filepath.ToSlash(rel) + "/"
		}
	}
	t.Skipf("a long end-to-end test, which make test (-short) leaves to make test-all: go test -run '^%s$' %s", t.Name(), pkg)
}
