package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/echo-uma/echo/internal/testenv"
)

// An input that is a FIFO nobody writes is refused at once, saying why; before, opening it
// blocked for a writer that never came, where even SIGTERM could not reach echoctl. run, whose
// plan does not fit, runs the program as written instead, saying why, with its status.
func TestFIFOInputRefused(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	stream := testenv.Built(t, "workloads/stream")
	out := filepath.Join(t.TempDir(), "out")
	var wg sync.WaitGroup
	for _, args := range [][]string{
		{"stats", fifo},
		{"plan", "-o", out, fifo},
		{"export", "-o", out, fifo},
		{"report", "-o", out, fifo},
		{"run", fifo, "--", stream},
	} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// The bound only ends a hang (the old behaviour) so the test can report it.
			res := testenv.Within(t, time.Minute, exec.Command(testenv.Built(t, "bin/echoctl"), args...))
			refused := res.ExitCode != 0 || args[0] == "run" && strings.Contains(res.Stderr, "running the program as written")
			if res.TimedOut || !refused || !strings.Contains(res.Stderr, "not a regular file (a FIFO)") {
				t.Errorf("echoctl %s: exit %d (hung: %v), stderr %q: want a refusal naming the FIFO",
					strings.Join(args, " "), res.ExitCode, res.TimedOut, res.Stderr)
			}
		}()
	}
	wg.Wait()
}
