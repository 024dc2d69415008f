package runner_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
)

// A plan or a plan directory that is missing or not to be trusted is so for every process of
// a pipeline: one of them says so, not each (three lines for `sh -c 'a | b | c'` before),
// whether the shell is preloaded too, or only its children are, and under echoctl run. The
// next pipeline says it again.
func TestNoticeOncePerPipeline(t *testing.T) {
	shim := testenv.Built(t, "lib/libechoshim.so")
	untrusted := t.TempDir()
	if err := os.Chmod(untrusted, 0o777); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "gone.plan")
	pipeline := "echo hi | cat | wc -c"
	cases := []struct {
		name string
		env  []string
		argv []string
	}{
		{"a missing plan", []string{"LD_PRELOAD=" + shim, "ECHO_PLAN=" + missing}, []string{"/bin/sh", "-c", pipeline}},
		{"an untrusted plan directory", []string{"LD_PRELOAD=" + shim, "ECHO_PLAN_DIR=" + untrusted}, []string{"/bin/sh", "-c", pipeline}},
		// The shell was not preloaded: its children, side by side, agree among themselves.
		{"a pipeline of siblings", nil, []string{"/bin/sh", "-c", "export LD_PRELOAD=" + shim + " ECHO_PLAN=" + missing +
			"; sleep 0.2 | cat | wc -c"}},
		{"echoctl run --plans", nil, []string{testenv.Built(t, "bin/echoctl"), "run", "--plans", untrusted, "--", "/bin/sh", "-c", pipeline}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for run := range 2 {
				cmd := exec.Command(c.argv[0], c.argv[1:]...)
				cmd.Env = append(os.Environ(), c.env...)
				cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // a job of its own, as a shell makes it
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				if out, err := cmd.Output(); err != nil || strings.TrimSpace(string(out)) == "" {
					t.Fatalf("run %d: %v, stdout %q, stderr %q", run+1, err, out, stderr.String())
				}
				if n := strings.Count(stderr.String(), "untouched"); n != 1 {
					t.Errorf("run %d: %d lines say the program runs untouched, want 1:\n%s", run+1, n, stderr.String())
				}
			}
		})
	}
}
