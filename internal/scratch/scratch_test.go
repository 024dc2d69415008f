package scratch

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// deadPID is the pid of a process that has ended.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// Dir's directory carries this process's pid and is locked while it lives; remove takes it.
func TestDir(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	dir, remove, err := Dir("echoctl-test-")
	if err != nil {
		t.Fatal(err)
	}
	if want := "echoctl-test-" + strconv.Itoa(os.Getpid()) + "-"; !strings.HasPrefix(filepath.Base(dir), want) {
		t.Errorf("made %s; want a name that starts %s", dir, want)
	}
	if got := Clean(os.TempDir(), "echoctl-test-", ""); len(got) > 0 {
		t.Errorf("Clean removed %v, whose maker lives", got)
	}
	remove()
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("%s is still there after remove", dir)
	}
}

// What a dead maker left is removed; what a live one holds, a young one whose maker's pid
// lives, another user's and a symbolic link are not.
func TestClean(t *testing.T) {
	tmp := t.TempDir()
	dead := strconv.Itoa(deadPID(t))
	mk := func(name string, dir bool) string {
		path := filepath.Join(tmp, name)
		var err error
		if dir {
			err = os.Mkdir(path, 0o700)
			if err == nil {
				err = os.WriteFile(filepath.Join(path, "report.json"), []byte("{}"), 0o644)
			}
		} else {
			err = os.WriteFile(path, []byte("half a plan"), 0o600)
		}
		if err != nil {
			t.Fatal(err)
		}
		return path
	}
	deadDir := mk("echoctl-run-"+dead+"-1", true)
	deadFile := mk(".app.plan."+dead+"-2.tmp", false)
	held := mk("echoctl-run-"+dead+"-3", true) // a maker in another pid namespace, say
	f, err := os.Open(held)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	young := mk("echoctl-run-"+strconv.Itoa(os.Getppid())+"-4", true) // between its making and its lock
	oldLive := mk("echoctl-run-"+strconv.Itoa(os.Getppid())+"-5", true)
	old := time.Now().Add(-2 * staleAge)
	os.Chtimes(oldLive, old, old) // a live pid this old is another process's reused number
	noPID := mk("echoctl-run-123456", true)
	oldNoPID := mk("echoctl-run-654321", true)
	os.Chtimes(oldNoPID, old, old)
	other := mk("echoctl-run-"+dead+"-6", true)
	if os.Geteuid() == 0 {
		os.Chown(other, 65534, 65534)
	}
	target := mk("precious", true)
	link := filepath.Join(tmp, "echoctl-run-"+dead+"-7")
	os.Symlink(target, link)
	unrelated := mk("echoctl-runner-"+dead+"-8", true)

	got := Clean(tmp, "echoctl-run-", "")
	got = append(got, Clean(tmp, ".app.plan.", ".tmp")...)
	want := []string{deadDir, oldLive, oldNoPID, deadFile}
	if os.Geteuid() != 0 {
		want = append(want, other) // ours all the same
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("removed %v; want %v", got, want)
	}
	for _, kept := range []string{held, young, noPID, target, link, unrelated} {
		if _, err := os.Lstat(kept); err != nil {
			t.Errorf("%s was removed: %v", kept, err)
		}
	}
	if os.Geteuid() == 0 {
		if _, err := os.Lstat(other); err != nil {
			t.Errorf("another user's %s was removed", other)
		}
	}
}

// File removes what a dead maker left of its kind, and its own file is locked while open.
func TestFile(t *testing.T) {
	tmp := t.TempDir()
	left := filepath.Join(tmp, ".app.plan."+strconv.Itoa(deadPID(t))+"-9.tmp")
	if err := os.WriteFile(left, []byte("half a plan"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := File(tmp, ".app.plan.", ".tmp")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := os.Stat(left); err == nil {
		t.Errorf("%s, whose maker is gone, is still there", left)
	}
	if want := ".app.plan." + strconv.Itoa(os.Getpid()) + "-"; !strings.HasPrefix(filepath.Base(f.Name()), want) {
		t.Errorf("made %s; want a name that starts %s", f.Name(), want)
	}
	if got := Clean(tmp, ".app.plan.", ".tmp"); len(got) > 0 {
		t.Errorf("Clean removed %v while its file was open", got)
	}
}
