package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// makeTarget is the Makefile's target that makes build/rel: the file itself, except
// echoctl, whose rule is the phony target of its name (it embeds the preload library).
func makeTarget(rel string) string {
	if rel == "bin/echoctl" {
		return "echoctl"
	}
	return filepath.ToSlash(filepath.Join("build", rel))
}

// makeBuilt makes build/rel with the Makefile's rule for it, or skips the test saying what
// to run where make or a C compiler is missing. go test runs packages side by side, each
// finding the same files missing: a lock on build/.testenv-make makes them take turns, and
// one that finds the file made by the turn before it does nothing. A make that fails fails
// the test with the end of what it printed.
func makeBuilt(t testing.TB, rel string) {
	t.Helper()
	target := makeTarget(rel)
	for _, tool := range []string{"make", "cc", "c++"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("build/%s is missing and there is no %s to make it: run `make build` (README: Set up)", rel, tool)
		}
	}
	root := Root(t)
	if err := os.MkdirAll(filepath.Join(root, "build"), 0o755); err != nil {
		t.Fatalf("making build/: %v", err)
	}
	lock, err := os.OpenFile(filepath.Join(root, "build", ".testenv-make"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatalf("locking build/ to make %s: %v", target, err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatalf("locking build/ to make %s: %v", target, err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if _, err := os.Stat(filepath.Join(root, "build", rel)); err == nil {
		return // the turn before this one made it
	}
	start := time.Now()
	cmd := exec.Command("make", "--no-print-directory", target)
	cmd.Dir = root
	res := Within(t, commandLimit, cmd)
	if res.ExitCode != 0 || res.TimedOut {
		t.Fatalf("build/%s is missing and `make %s` failed (exit %d):\n%s", rel, target, res.ExitCode,
			tail(res.Stdout+res.Stderr))
	}
	if _, err := os.Stat(filepath.Join(root, "build", rel)); err != nil {
		t.Fatalf("`make %s` left no build/%s: %v", target, rel, err)
	}
	t.Logf("made build/%s with `make %s` (%s): it was missing", rel, target, time.Since(start).Round(time.Second))
}
