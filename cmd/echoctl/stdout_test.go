package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/charmbracelet/x/term"
	"golang.org/x/sys/unix"

	"github.com/echo-uma/echo/internal/testenv"
)

// A command whose standard output could not be written fails, saying so, whichever command
// printed it: its own output lost is not a success.
func TestFullStdoutFails(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	defer full.Close()
	cases := [][]string{{"stats", streamTrace(t)}, {"--help"}, {"stats", "--help"}, {"version"}, {"--version"}}
	if os.Geteuid() == 0 { // the plan comes from a trace of the real program
		stream := testenv.Built(t, "workloads/stream")
		_, plan := testenv.Plan(t, "stream", "--size", "256K", "--iters", "4", "--warmup", "1")
		cases = append(cases, []string{"run", "--force", "--print-env", plan, "--", stream},
			[]string{"run", "--force", "--dry-run", plan, "--", stream})
	}
	for _, args := range cases {
		cmd := exec.Command(testenv.Built(t, "bin/echoctl"), args...)
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = full, &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || !strings.Contains(stderr.String(), "writing standard output: no space left on device") {
			t.Errorf("echoctl %s > /dev/full: %v, stderr %q: want a failure that says the output was lost",
				strings.Join(args, " "), err, stderr.String())
		}
	}
}

// Standard output, kept to catch a failed write, is still a terminal to whoever asks: the
// plan's colours and attach's live view depend on it.
func TestStdoutStaysTerminal(t *testing.T) {
	fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	defer unix.Close(fd)
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	tty, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	// lipgloss's colour detection asks for a term.File and its descriptor.
	out := &stdout{f: tty}
	f, ok := any(out).(term.File)
	if !isTerminal(out) || !ok || !term.IsTerminal(f.Fd()) {
		t.Errorf("stdout on a terminal: isTerminal %v, a term.File %v", isTerminal(out), ok)
	}
}
