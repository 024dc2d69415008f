package tracer_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/trace"
	"github.com/echo-uma/echo/tracer"
	"golang.org/x/sys/unix"
)

func TestCanTrace(t *testing.T) {
	b, p, a := tracer.CapBPF, tracer.CapPerfmon, tracer.CapSysAdmin
	for _, c := range []struct {
		held, missing []tracer.Capability
	}{
		{nil, []tracer.Capability{b, p}},
		{[]tracer.Capability{b}, []tracer.Capability{p}},
		{[]tracer.Capability{p, tracer.CapSysPtrace}, []tracer.Capability{b}},
		{[]tracer.Capability{b, p}, nil},
		{[]tracer.Capability{a}, nil},
	} {
		if got := tracer.PrivilegesOf(false, c.held...).CanTrace(); !slices.Equal(got, c.missing) {
			t.Errorf("with %v: missing %v, want %v", c.held, got, c.missing)
		}
	}
}

// The README's table of what each way of tracing needs, run as nobody with exactly those
// capabilities: what it says is enough is enough, and what is refused names what is missing.
func TestUnprivilegedTrace(t *testing.T) {
	u := testenv.NewUnprivileged(t)
	// The --follow cases are about reading tracefs, which a user never mounts: as root, mount
	// it where a machine that starts with it (systemd) has it, if this one did not.
	if _, err := os.Stat("/sys/kernel/tracing/events/sched"); err != nil {
		if err := unix.Mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, ""); err != nil {
			t.Logf("mounting tracefs: %v", err)
		}
	}
	own := u.LongStream(t, "64K").Process.Pid
	roots := testenv.LongStream(t, "64K").Process.Pid
	launch := []string{"--", u.Stream, "--size", "64K", "--iters", "3"}
	attach := func(pid int) []string { return []string{"-p", strconv.Itoa(pid), "--duration", "300ms"} }
	// Perf-event uprobes on libc (mapped by every process) can take long to place and
	// remove on a busy machine; the runtime's alone say as much about the privileges.
	perFunction := append([]string{"--uprobe-per-function", "--no-host-allocs"}, launch...)
	for _, c := range []struct {
		name string
		caps []string
		args []string
		want []string // in the error; none: the trace must work
	}{
		{"no capabilities", nil, launch,
			[]string{"missing CAP_BPF and CAP_PERFMON", "sudo setcap cap_bpf,cap_perfmon+ep " + u.Echoctl}},
		{"CAP_BPF alone", []string{"bpf"}, launch, []string{"(missing CAP_PERFMON)"}},
		{"CAP_BPF and CAP_PERFMON", []string{"bpf", "perfmon"}, launch, nil},
		{"CAP_SYS_ADMIN alone", []string{"sys_admin"}, launch, nil},
		{"one uprobe per function without CAP_SYS_ADMIN", []string{"bpf", "perfmon"}, perFunction,
			[]string{"missing CAP_SYS_ADMIN", "setcap cap_sys_admin+ep", "drop --uprobe-per-function"}},
		{"one uprobe per function with CAP_SYS_ADMIN", []string{"sys_admin"}, perFunction, nil},
		{"own process", []string{"bpf", "perfmon"}, attach(own), nil},
		{"root's process without CAP_SYS_PTRACE", []string{"bpf", "perfmon"}, attach(roots),
			[]string{"tracing process " + strconv.Itoa(roots) + " (uid 0; this is uid 65534)", "missing CAP_SYS_PTRACE",
				"setcap cap_bpf,cap_perfmon,cap_sys_ptrace+ep"}},
		{"root's process with CAP_SYS_PTRACE", []string{"bpf", "perfmon", "sys_ptrace"}, attach(roots), nil},
		{"--follow without CAP_DAC_READ_SEARCH", []string{"bpf", "perfmon"}, append([]string{"--follow"}, launch...),
			[]string{"missing CAP_DAC_READ_SEARCH", "setcap cap_bpf,cap_perfmon,cap_dac_read_search+ep"}},
		{"--follow with CAP_DAC_READ_SEARCH", []string{"bpf", "perfmon", "dac_read_search"},
			append([]string{"--follow"}, launch...), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(u.Out, strings.ReplaceAll(c.name, " ", "_")+".bin")
			res := u.Run(t, c.caps, nil, u.Echoctl, append([]string{"trace", "-o", out}, c.args...)...)
			if c.want == nil {
				checkTraced(t, res, out, c.args[0] == "--")
				return
			}
			if res.ExitCode == 0 {
				t.Fatalf("exit 0, want a refusal naming %q; stderr: %s", c.want, res.Stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(res.Stderr, w) {
					t.Errorf("stderr %q: want %q", res.Stderr, w)
				}
			}
		})
	}
}

// checkTraced holds a trace taken as nobody to what stream did: its copies through the
// emulator's runtime, and, when launched, its output as without tracing.
func checkTraced(t *testing.T, res testenv.Result, out string, launched bool) {
	t.Helper()
	if res.ExitCode != 0 {
		t.Fatalf("exit %d: %s", res.ExitCode, res.Stderr)
	}
	if launched && res.Checksum() == "" {
		t.Errorf("the traced program printed %q: want its checksum", res.Stdout)
	}
	tr := readTrace(t, out)
	copies := 0
	for _, ev := range tr.events {
		if ev.Type == trace.EventCUDAMemcpy {
			copies++
		}
	}
	if copies == 0 {
		t.Errorf("%d events, none a cudaMemcpy: the runtime's probes recorded nothing", len(tr.events))
	}
}

// The setcap line the refusal prints, run as written (root needs no sudo), lets a user with
// no capabilities of their own trace: launched (echoctl's launcher re-executes the file
// with its capabilities, then execs the program without them) and attached. The user has
// LD_LIBRARY_PATH set, as the README's examples do: in the secure mode file capabilities
// bring, a dynamic loader would delete it and, with it, the Go runtime's auxiliary vector.
func TestSetcapFix(t *testing.T) {
	u := testenv.NewUnprivileged(t)
	if _, err := exec.LookPath("setcap"); err != nil {
		t.Skip("needs setcap (Debian: libcap2-bin)")
	}
	out := filepath.Join(u.Out, "trace.bin")
	launch := []string{"trace", "-o", out, "--", u.Stream, "--size", "64K", "--iters", "3"}
	res := u.Run(t, nil, nil, u.Echoctl, launch...)
	m := regexp.MustCompile(`sudo (setcap \S+ \S+)`).FindStringSubmatch(res.Stderr)
	if res.ExitCode == 0 || m == nil {
		t.Fatalf("exit %d, stderr %q: want a refusal with a setcap line", res.ExitCode, res.Stderr)
	}
	fix := strings.Fields(m[1])
	if fix[2] != u.Echoctl {
		t.Fatalf("the setcap line names %s, want the executable that printed it (%s)", fix[2], u.Echoctl)
	}
	if b, err := exec.Command(fix[0], fix[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v: %s", m[1], err, b)
	}
	env := []string{"LD_LIBRARY_PATH=" + filepath.Join(u.Dir, "lib")}
	checkTraced(t, u.Run(t, nil, env, u.Echoctl, launch...), out, true)
	own := u.LongStream(t, "64K").Process.Pid
	checkTraced(t, u.Run(t, nil, env, u.Echoctl, "trace", "-o", out, "-p", strconv.Itoa(own), "--duration", "300ms"),
		out, false)
}
