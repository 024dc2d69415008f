package testenv

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Nobody is the user unprivileged runs use.
const Nobody = 65534

// Unprivileged is a copy of the built echoctl, the emulator's libraries, the preload library
// and the stream workload in a directory every user can read, for running them as nobody
// with exactly chosen capabilities: the checkout itself may sit where only root can enter
// (CI's /root).
type Unprivileged struct {
	Dir     string // bin/, lib/ and workloads/, as under build/
	Echoctl string // Dir/bin/echoctl
	Stream  string // Dir/workloads/stream
	Out     string // a directory nobody may write to, where commands run
}

// NewUnprivileged makes the copy; the test is skipped when not root (only root can run
// something as another user) or when util-linux's setpriv is missing.
func NewUnprivileged(t testing.TB) *Unprivileged {
	t.Helper()
	RequireRoot(t)
	if _, err := exec.LookPath("setpriv"); err != nil {
		t.Skip("needs setpriv (util-linux) to run commands as another user with chosen capabilities")
	}
	dir, err := os.MkdirTemp("", "echo-unprivileged-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	for _, rel := range []string{"bin/echoctl", "lib/libcudart.so.12", "lib/libcuda.so.1", "lib/libechoshim.so",
		"workloads/stream"} {
		copyFile(t, Built(t, rel), filepath.Join(dir, rel))
	}
	u := &Unprivileged{Dir: dir, Echoctl: filepath.Join(dir, "bin/echoctl"),
		Stream: filepath.Join(dir, "workloads/stream"), Out: filepath.Join(dir, "out")}
	if err := os.Mkdir(u.Out, 0o777); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dir, u.Out} {
		if err := os.Chmod(d, 0o777|os.ModeSticky); err != nil { // past the umask
			t.Fatal(err)
		}
	}
	return u
}

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// Command is path with args run as nobody with exactly the capabilities caps in effect
// ("bpf", "perfmon", as setpriv names them; none for an ordinary user), in u.Out. path is
// exec'd by nobody's own env, as a user's shell would: a file with capabilities exec'd
// straight from setpriv, root a moment before, stays dumpable, and would hide what such a
// file meets when a user starts it (its /proc/self files are root's).
func (u *Unprivileged) Command(caps []string, env []string, path string, args ...string) *exec.Cmd {
	argv := []string{"--reuid=65534", "--regid=65534", "--clear-groups"}
	if len(caps) > 0 {
		set := "+" + strings.Join(caps, ",+")
		argv = append(argv, "--inh-caps="+set, "--ambient-caps="+set)
	}
	cmd := exec.Command("setpriv", append(append(argv, "--", "env", "--", path), args...)...)
	cmd.Dir, cmd.Env = u.Out, append(os.Environ(), env...)
	return cmd
}

// Run runs path as nobody with the capabilities caps and returns what it printed.
func (u *Unprivileged) Run(t testing.TB, caps []string, env []string, path string, args ...string) Result {
	t.Helper()
	return result(t, u.Command(caps, env, path, args...))
}

// LongStream starts the copied stream workload as nobody, without capabilities, for
// minutes, and returns once it is in its loop; the test's cleanup kills it.
func (u *Unprivileged) LongStream(t testing.TB, size string) *exec.Cmd {
	t.Helper()
	return StartInLoop(t, u.Command(nil, nil, u.Stream, "--size", size, "--iters", "100000000", "--warmup", "0"))
}
