package runner_test

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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
	requireHostsMachine(t, "sh", "cat", "wc", "sleep")
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

// requireHostsMachine skips where the system's own programs are not of the machine this
// test was built for: under qemu's user mode (tests/arm64.sh) /bin/sh is the host's amd64
// shell, into which the arm64 shim cannot be preloaded at all, and in the arm64 VM
// (tests/arm64vm.sh) the shell and cat are busybox's, linked statically, and there is no wc.
// The pipeline's notice is
// the shim's C code, the same on both; the amd64 run checks it.
func requireHostsMachine(t *testing.T, programs ...string) {
	t.Helper()
	want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[runtime.GOARCH]
	for _, name := range programs {
		p, err := exec.LookPath(name)
		if err != nil {
			t.Skipf("%s is not on this machine (%v): the test needs a shell pipeline of sh, cat, wc and sleep", name, err)
		}
		f, err := elf.Open(p)
		if err != nil {
			t.Skipf("%s is not an ELF program the shim could be preloaded into: %v", p, err)
		}
		machine, dynamic := f.Machine, false
		for _, prog := range f.Progs {
			dynamic = dynamic || prog.Type == elf.PT_INTERP
		}
		f.Close()
		if machine != want {
			t.Skipf("%s is %v, not this test's %s: the shim cannot be preloaded into it", p, machine, runtime.GOARCH)
		}
		if !dynamic {
			t.Skipf("%s is linked statically (busybox?): nothing can be preloaded into it", p)
		}
	}
}
