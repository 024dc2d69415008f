package runner_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/echo-uma/echo/internal/testenv"
)

// tempLeft fails on the run's temporary directories left in dir.
func tempLeft(t *testing.T, dir, after string) {
	t.Helper()
	left, _ := filepath.Glob(filepath.Join(dir, "echoctl-run-*"))
	if len(left) > 0 {
		t.Errorf("%s left %v behind", after, left)
	}
}

// A TMPDIR with no room for the plan's temporary files does not stop the program: echoctl
// run runs it as written, says why, and ends as it does; nothing is left in TMPDIR.
func TestRunWithFullTmpdir(t *testing.T) {
	testenv.RequireRoot(t)
	args := []string{"--size", "256K", "--iters", "4", "--warmup", "1"}
	_, plan := testenv.Plan(t, "stream", args...)
	want := testenv.RunWorkload(t, "stream", nil, args...).Checksum()
	full := t.TempDir()
	if err := unix.Mount("tmpfs", full, "tmpfs", 0, "size=4k"); err != nil {
		t.Skipf("mounting a small tmpfs to fill: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(full, unix.MNT_DETACH) })
	os.WriteFile(filepath.Join(full, "fill"), make([]byte, 64<<10), 0o644) // fills it, short
	stream := testenv.Built(t, "workloads/stream")
	res := testenv.Echoctl(t, []string{"TMPDIR=" + full}, append([]string{"run", "--force", plan, "--", stream}, args...)...)
	if res.ExitCode != 0 || res.Checksum() != want || !strings.Contains(res.Stderr, "running the program as written") {
		t.Errorf("run with a full TMPDIR: exit %d, checksum %q (want %s): %s", res.ExitCode, res.Checksum(), want, res.Stderr)
	}
	tempLeft(t, full, "run with a full TMPDIR")

	// A program that cannot start (its libraries are missing, or it is no program at all)
	// leaves nothing behind either.
	tmp, dir := t.TempDir(), t.TempDir()
	data, _ := os.ReadFile(stream)
	os.WriteFile(filepath.Join(dir, "stream"), data, 0o755) // no ../lib beside it
	os.WriteFile(filepath.Join(dir, "garbage"), []byte("garbage\n"), 0o755)
	for _, args := range [][]string{
		{"run", "--force", plan, "--", filepath.Join(dir, "stream")},
		{"run", "--plans", dir, "--", filepath.Join(dir, "garbage")},
	} {
		res := testenv.Echoctl(t, []string{"TMPDIR=" + tmp}, args...)
		if res.ExitCode == 0 {
			t.Errorf("echoctl %s: exit 0 for a program that cannot start", strings.Join(args, " "))
		}
		tempLeft(t, tmp, "echoctl "+strings.Join(args, " "))
	}
}

// SIGHUP (a closed terminal or ssh session) ends calibrate and optimize as SIGINT does: the
// program stopped, status 129, the run's temporary directory and the half-written trace
// removed. A SIGKILL leaves them behind; the next echoctl that makes one of their kind
// removes them, their maker being gone.
func TestTempFilesAfterHangupAndKill(t *testing.T) {
	testenv.RequireRoot(t)
	_, plan := testenv.Plan(t, "stream", "--size", "1M", "--iters", "5", "--warmup", "1")
	stream := testenv.Built(t, "workloads/stream")
	tmp, out := t.TempDir(), t.TempDir()
	t.Setenv("TMPDIR", tmp) // echoctl's, through the environment it inherits
	left := func() []string {
		runs, _ := filepath.Glob(filepath.Join(tmp, "echoctl-run-*"))
		tmps, _ := filepath.Glob(filepath.Join(out, ".*.tmp"))
		return append(runs, tmps...)
	}
	calibrate := append([]string{"calibrate", "--unvalidated", plan, "--", stream}, forever...)
	optimize := append([]string{"optimize", "-o", filepath.Join(out, "stream.plan"), "--", stream}, forever...)
	for _, args := range [][]string{calibrate, optimize} {
		s := startEchoctl(t, "", args...)
		if len(left()) == 0 {
			t.Fatalf("echoctl %s made no temporary file to leave", args[0])
		}
		s.cmd.Process.Signal(unix.SIGHUP)
		if status, stderr := s.wait(t); status != 129 || !strings.Contains(stderr, "interrupted by SIGHUP") {
			t.Errorf("echoctl %s, SIGHUP: exit %d, stderr %q; want 129, saying so", args[0], status, stderr)
		}
		if l := left(); len(l) > 0 {
			t.Errorf("echoctl %s, SIGHUP: left %v", args[0], l)
		}

		s = startEchoctl(t, "", args...)
		s.cmd.Process.Kill()
		s.wait(t)
		killed := left()
		if len(killed) == 0 {
			t.Fatalf("echoctl %s, SIGKILL: nothing left to clean up", args[0])
		}
		short := slices.Clone(args[:len(args)-len(forever)])
		short = append(short, "--size", "1M", "--iters", "3", "--warmup", "1")
		if res := testenv.Echoctl(t, nil, append(short[:1:1], append([]string{"--rounds", "1"}, short[1:]...)...)...); res.ExitCode != 0 {
			t.Fatalf("echoctl %s after the SIGKILL: exit %d: %s", args[0], res.ExitCode, res.Stderr)
		}
		if l := left(); len(l) > 0 {
			t.Errorf("echoctl %s after a SIGKILLed one left %v: %v is still there", args[0], killed, l)
		}
	}
}
