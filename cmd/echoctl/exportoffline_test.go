package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/echo-uma/echo/internal/testenv"
)

// The offline viewer export names is one that works: the commands it prints, run as a user
// pastes them, write report's page with the iteration's timeline, from a real trace.
func TestExportNamesOfflineViewer(t *testing.T) {
	_, tracePath := testenv.TraceOK(t, "--", testenv.Built(t, "workloads/stream"), "--size", "256K", "--iters", "12", "--warmup", "0")
	exp := testenv.Echoctl(t, nil, "export", tracePath)
	if exp.ExitCode != 0 {
		t.Fatalf("export: exit %d: %s", exp.ExitCode, exp.Stderr)
	}
	var commands string
	for _, line := range strings.Split(exp.Stdout, "\n") {
		if _, after, ok := strings.Cut(line, "offline, a timeline of one iteration per stream as one HTML page that loads nothing: "); ok {
			commands = after
		}
	}
	if commands == "" {
		t.Fatalf("export names no offline viewer:\n%s", exp.Stdout)
	}
	bin := filepath.Dir(testenv.Built(t, "bin/echoctl"))
	sh := exec.Command("bash", "-euo", "pipefail", "-c", commands)
	sh.Dir = filepath.Dir(tracePath)
	sh.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
	if out := testenv.Within(t, 2*time.Minute, sh); out.ExitCode != 0 {
		t.Fatalf("%s: exit %d\n%s%s", commands, out.ExitCode, out.Stdout, out.Stderr)
	}
	page, err := os.ReadFile(tracePath + ".plan.html")
	if err != nil {
		t.Fatalf("%s wrote no page: %v", commands, err)
	}
	if !strings.Contains(string(page), "<svg") || !strings.Contains(string(page), "Iteration ") {
		t.Errorf("%s.plan.html has no timeline of an iteration (no SVG or no \"Iteration \")", tracePath)
	}
}
