package main

import (
	"context"
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
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, testenv.Built(t, "bin/echoctl"), args...)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			err := cmd.Run()
			refused := err != nil || args[0] == "run" && strings.Contains(stderr.String(), "running the program as written")
			if ctx.Err() != nil || !refused || !strings.Contains(stderr.String(), "not a regular file (a FIFO)") {
				t.Errorf("echoctl %s: %v (hung: %v), stderr %q: want a refusal naming the FIFO",
					strings.Join(args, " "), err, ctx.Err() != nil, stderr.String())
			}
		}()
	}
	wg.Wait()
}
