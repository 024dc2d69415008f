package tracer_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/trace"
)

// startEchoctl runs echoctl trace in the background, writing to a temp trace file.
func startEchoctl(t *testing.T, args ...string) (*exec.Cmd, string, *lockedBuffer) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "trace.bin")
	cmd := exec.Command(testenv.Built(t, "bin/echoctl"), append([]string{"trace", "-o", out}, args...)...)
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, out, stderr
}

// lockedBuffer is echoctl's stderr, readable while echoctl still writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func checkAttachedTrace(t *testing.T, path string, pid int) traced {
	t.Helper()
	tr := readTrace(t, path)
	if !tr.header.Attached || tr.header.PID != pid || len(tr.header.Modules) == 0 {
		t.Errorf("header: attached=%v pid=%d modules=%d, want an attached trace of %d with its module table",
			tr.header.Attached, tr.header.PID, len(tr.header.Modules), pid)
	}
	in := tr.copies(trace.EventCUDAMemcpy, h2d, 64<<10)
	out := tr.copies(trace.EventCUDAMemcpy, d2h, 64<<10)
	if len(in) == 0 || len(in)+len(out) != tr.count(trace.EventCUDAMemcpy) || abs(len(in)-len(out)) > 1 {
		t.Errorf("%d H2D and %d D2H copies of 64 KiB among %d: want alternating copies of the workload's size",
			len(in), len(out), tr.count(trace.EventCUDAMemcpy))
	}
	for _, e := range in[:min(len(in), 3)] {
		tr.siteIn(t, e, "stream")
	}
	if n := tr.count(trace.EventCUDAMalloc); n != 0 {
		t.Errorf("%d cudaMalloc events: the buffers were allocated before the attach", n)
	}
	return tr
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func TestTraceAttachForDuration(t *testing.T) {
	testenv.RequireRoot(t)
	target := testenv.LongStream(t, "64K")
	_, path := testenv.TraceOK(t, "-p", strconv.Itoa(target.Process.Pid), "--duration", "700ms")
	checkAttachedTrace(t, path, target.Process.Pid)
	if err := target.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the workload did not survive the detach: %v", err)
	}
}

// Ctrl-C ends an attached trace cleanly and leaves the process running.
func TestTraceAttachInterrupted(t *testing.T) {
	testenv.RequireRoot(t)
	target := testenv.LongStream(t, "64K")
	cmd, path, stderr := startEchoctl(t, "-p", strconv.Itoa(target.Process.Pid))
	time.Sleep(700 * time.Millisecond)
	cmd.Process.Signal(os.Interrupt)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("echoctl after SIGINT: %v: %s", err, stderr)
	}
	checkAttachedTrace(t, path, target.Process.Pid)
	if err := target.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the workload did not survive the interrupt: %v", err)
	}
}

// The traced program dying mid-trace still leaves a complete trace, and echoctl exits the
// way the program did.
func TestTraceTargetKilled(t *testing.T) {
	testenv.RequireRoot(t)
	cmd, path, stderr := startEchoctl(t, "--", testenv.Built(t, "workloads/stream"), "--size", "64K", "--iters", "100000000")
	// The workload names its configuration on stderr once it runs, just before its loop; a
	// slow machine (the arm64 VM emulates every instruction) may take seconds to get there.
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(stderr.String(), "variant="); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the traced workload did not start: %s", stderr)
		}
	}
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/task/" + strconv.Itoa(cmd.Process.Pid) + "/children")
	child, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if child == 0 {
		t.Fatal("the traced workload is not echoctl's child")
	}
	time.Sleep(500 * time.Millisecond)
	syscall.Kill(child, syscall.SIGKILL)
	err := cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 128+9 {
		t.Errorf("echoctl exit %d (%v), want 137 as the killed program's: %s", code, err, stderr)
	}
	tr := readTrace(t, path)
	if tr.count(trace.EventCUDAMemcpy) == 0 {
		t.Error("no copies recorded before the kill")
	}
}

func TestTraceWithoutPrivileges(t *testing.T) {
	testenv.RequireRoot(t) // to drop them
	out := filepath.Join(t.TempDir(), "trace.bin")
	cmd := exec.Command(testenv.Built(t, "bin/echoctl"), "trace", "-o", out, "--", "/bin/true")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	b, err := cmd.CombinedOutput()
	msg := strings.TrimSpace(string(b))
	if err == nil || strings.Count(msg, "\n") != 0 || !strings.Contains(msg, "CAP_BPF") || !strings.Contains(msg, "sudo") {
		t.Errorf("as nobody: err %v, output %q; want one line saying to use sudo or grant CAP_BPF", err, msg)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a trace file was left behind")
	}
}

func TestTraceNoCUDA(t *testing.T) {
	testenv.RequireRoot(t)
	res, path := testenv.Trace(t, "--", "/bin/true")
	if res.ExitCode != 0 || !strings.Contains(res.Stderr, "no CUDA runtime or driver found: searched the") {
		t.Errorf("tracing /bin/true: exit %d, stderr %q; want a warning naming what was searched", res.ExitCode, res.Stderr)
	}
	readTrace(t, path)
}

// With --follow, a program started by a shell is traced too.
func TestTraceFollow(t *testing.T) {
	testenv.RequireRoot(t)
	stream := []string{testenv.Built(t, "workloads/stream"), "--size", "1M", "--iters", "2", "--warmup", "0"}
	for _, c := range []struct {
		name     string
		launcher []string
	}{
		{"shell", []string{"/bin/sh", "-c", strings.Join(stream, " ") + "; true"}},
		// a launcher that maps no dynamic loader itself (a static shell, a Go program)
		{"static", append([]string{testenv.Built(t, "tests/static_spawn")}, stream...)},
	} {
		res, path := testenv.Trace(t, append([]string{"--follow", "--"}, c.launcher...)...)
		if res.ExitCode != 0 {
			t.Fatalf("%s: echoctl trace --follow: exit %d: %s", c.name, res.ExitCode, res.Stderr)
		}
		tr := readTrace(t, path)
		copies := tr.of(trace.EventCUDAMemcpy)
		if len(copies) != 4 {
			t.Fatalf("%s: %d copies, want 4 from the child", c.name, len(copies))
		}
		if copies[0].PID == uint32(tr.header.PID) {
			t.Errorf("%s: copies recorded for the launcher (pid %d), want its child", c.name, tr.header.PID)
		}
	}
}

// With --json, stdout is one JSON document for scripts (`| jq`): the traced program's own
// output goes to stderr, as with -o -.
func TestTraceJSONKeepsProgramOutputOut(t *testing.T) {
	res, _ := testenv.TraceOK(t, "--json", "--", testenv.Built(t, "workloads/stream"), "--size", "64K", "--iters", "2", "--warmup", "0")
	var doc map[string]any
	dec := json.NewDecoder(strings.NewReader(res.Stdout))
	if err := dec.Decode(&doc); err != nil || dec.More() {
		t.Errorf("stdout %q: want exactly one JSON document (%v)", res.Stdout, err)
	}
	if !strings.Contains(res.Stderr, "checksum=") {
		t.Errorf("stderr %q: want the program's own output there", res.Stderr)
	}
}
