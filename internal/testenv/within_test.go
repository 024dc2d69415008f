package testenv

import (
	"os/exec"
	"testing"
	"time"
)

// A command past its limit is killed with what it started: a background child holding the
// output pipe open would otherwise keep the wait going (for WaitDelay, or, without it, until
// the child ends).
func TestWithinKillsTheGroup(t *testing.T) {
	start := time.Now()
	res := Within(t, time.Second, exec.Command("sh", "-c", "echo started; sleep 60 & sleep 60"))
	if took := time.Since(start); !res.TimedOut || res.Stdout != "started\n" || took > 8*time.Second {
		t.Fatalf("Within: %+v after %s; want timed out after about a second, with what it printed", res, took)
	}
}

func TestWithinExitCode(t *testing.T) {
	res := Within(t, time.Minute, exec.Command("sh", "-c", "echo out; echo err >&2; exit 3"))
	if res.TimedOut || res.ExitCode != 3 || res.Stdout != "out\n" || res.Stderr != "err\n" {
		t.Fatalf("Within: %+v; want exit 3 with its output", res)
	}
}
