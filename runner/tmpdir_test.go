package runner_test

import (
	"os"
	"path/filepath"
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
