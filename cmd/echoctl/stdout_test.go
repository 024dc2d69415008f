package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

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
