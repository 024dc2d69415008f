package live_test

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/live"
)

// attachDeadline bounds an attach that must give up by itself: one that keeps running past
// it did not notice it was attached to nothing.
const attachDeadline = 20 * time.Second

// runAttach runs cmd (an echoctl attach) to its end or the deadline.
func runAttach(t *testing.T, cmd *exec.Cmd) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return out.String(), errOut.String(), exit.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return out.String(), errOut.String(), 0
	case <-time.After(attachDeadline):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%v still ran after %v; output %q %q", cmd.Args, attachDeadline, out.String(), errOut.String())
	}
	return "", "", 0
}

func sleeper(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("sleep", "300")
	testenv.Start(t, cmd)
	return cmd.Process.Pid
}

// attach exits non-zero, saying why per process, when it could attach to none of the
// processes it was given — with --once and without (streaming to a script or the view) —
// and exits 0 with a row per process when it could attach to some.
func TestAttachToNothing(t *testing.T) {
	testenv.RequireRoot(t)
	echoctl := testenv.Built(t, "bin/echoctl")
	sleepPID := sleeper(t)
	sleep := strconv.Itoa(sleepPID)
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no CUDA library, once", []string{"--once", "-p", sleep}, "no CUDA runtime or driver found"},
		{"no CUDA library, streaming", []string{"--json", "-p", sleep}, "no CUDA runtime or driver found"},
		{"a process gone", []string{"--once", "-p", strconv.Itoa(gone.Process.Pid)}, "no process"},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"attach", "--interval", "300ms"}, c.args...)
			_, stderr, code := runAttach(t, exec.Command(echoctl, args...))
			if code == 0 || !strings.Contains(stderr, "could not attach") || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q: want non-zero, saying %q", code, stderr, c.want)
			}
		})
	}
	t.Run("some", func(t *testing.T) {
		stream := testenv.LongStream(t, "64K").Process.Pid
		stdout, stderr, code := runAttach(t, exec.Command(echoctl, "attach", "--once", "--json", "--interval", "500ms",
			"-p", sleep+","+strconv.Itoa(stream)))
		var doc struct{ Processes []live.Row }
		err := json.Unmarshal([]byte(stdout), &doc)
		rows := doc.Processes
		if code != 0 || err != nil || len(rows) != 2 {
			t.Fatalf("exit %d, %d rows (%v), stderr %q: want 0 and a row for each", code, len(rows), err, stderr)
		}
		if r := find(rows, stream); r == nil || r.Error != "" || r.Events == 0 {
			t.Errorf("stream's row %+v: want its events", r)
		}
		if r := find(rows, sleepPID); r == nil || !strings.Contains(r.Error, "no CUDA") {
			t.Errorf("sleep's row %+v: want why it was not traced", r)
		}
	})
}

// As a user who may not trace root's processes, attach says which capability is missing and
// exits non-zero, once or streaming.
func TestAttachUnprivileged(t *testing.T) {
	u := testenv.NewUnprivileged(t)
	roots := strconv.Itoa(testenv.LongStream(t, "64K").Process.Pid)
	for _, c := range []struct {
		name string
		caps []string
		args []string
		want string
	}{
		{"no capabilities", nil, []string{"--once"}, "missing CAP_BPF and CAP_PERFMON"},
		{"root's process, once", []string{"bpf", "perfmon"}, []string{"--once", "-p", roots}, "missing CAP_SYS_PTRACE"},
		{"root's process, streaming", []string{"bpf", "perfmon"}, []string{"--json", "-p", roots}, "missing CAP_SYS_PTRACE"},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"attach", "--interval", "300ms"}, c.args...)
			_, stderr, code := runAttach(t, u.Command(c.caps, nil, u.Echoctl, args...))
			if code == 0 || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q: want non-zero, saying %q", code, stderr, c.want)
			}
		})
	}
}

// The sampler refuses to start on processes none of which it can trace, and says it with
// the error a caller can test for.
func TestStartNothingTraced(t *testing.T) {
	testenv.RequireRoot(t)
	_, err := live.Start(context.Background(), live.Options{PIDs: []int{sleeper(t)}, Interval: 300 * time.Millisecond})
	if !errors.Is(err, live.ErrNothingTraced) {
		t.Errorf("Start on a process without CUDA: %v, want ErrNothingTraced", err)
	}
}
