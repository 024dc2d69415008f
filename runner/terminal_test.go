package runner_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/echo-uma/echo/internal/testenv"
)

// openPTY opens a pseudo-terminal: the controller (the "keyboard and screen") and the
// terminal a program runs on.
func openPTY(t *testing.T) (controller, tty *os.File) {
	t.Helper()
	fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	controller = os.NewFile(uintptr(fd), "/dev/ptmx")
	t.Cleanup(func() { controller.Close() })
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close() })
	return controller, tty
}

// onTerminal starts echoctl as the foreground job of a terminal of its own (a session whose
// controlling terminal is the pty, as a shell starts a command) and returns once its program
// is in its loop, with what the terminal showed so far.
func onTerminal(t *testing.T, args ...string) (*exec.Cmd, *os.File, chan struct{}) {
	t.Helper()
	controller, tty := openPTY(t)
	cmd := exec.Command(testenv.Built(t, "bin/echoctl"), args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
	ready, done := make(chan bool, 1), make(chan struct{})
	go func() {
		defer close(done)
		sc, said := bufio.NewScanner(controller), false
		for sc.Scan() { // reads until the terminal closes, so nothing blocks on a full screen
			if !said && strings.Contains(sc.Text(), "variant=") {
				said = true
				ready <- true
			}
		}
	}()
	select {
	case <-ready:
		time.Sleep(200 * time.Millisecond) // into its loop
	case <-time.After(60 * time.Second):
		t.Fatalf("echoctl %s: the program did not start on the terminal in a minute", strings.Join(args, " "))
	}
	return cmd, controller, done
}

// exitOf waits for cmd, bounded only so that a hang fails the test instead of the run.
func exitOf(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		t.Fatal("echoctl did not end within 30 s")
	}
	return cmd.ProcessState.ExitCode()
}

// echoctl run in the foreground of a terminal: Ctrl-C reaches the program (once), and so
// does a SIGINT sent to echoctl alone with kill, which was dropped as if the terminal had
// sent it to the program already.
func TestRunInterruptOnTerminal(t *testing.T) {
	testenv.RequireRoot(t)
	args := runPlans(t)["merged"]
	t.Run("kill", func(t *testing.T) {
		cmd, _, _ := onTerminal(t, args...)
		cmd.Process.Signal(syscall.SIGINT)
		if status := exitOf(t, cmd); status != 130 {
			t.Errorf("kill -INT echoctl: exit %d, want 130 (the program's death by SIGINT)", status)
		}
	})
	t.Run("Ctrl-C", func(t *testing.T) {
		cmd, controller, _ := onTerminal(t, args...)
		controller.Write([]byte{3}) // the terminal's interrupt character
		if status := exitOf(t, cmd); status != 130 {
			t.Errorf("Ctrl-C: exit %d, want 130 (the program's death by SIGINT)", status)
		}
	})
}
