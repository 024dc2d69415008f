package tracer

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/echo-uma/echo/internal/procfs"
)

// Capability is a Linux capability the tracer may need.
type Capability uint

// What each capability buys the tracer, as measured on 6.18 (README, "Privileges"):
// CAP_BPF and CAP_PERFMON load the programs and attach uprobe_multi links; perf-event
// uprobes (kernels without uprobe_multi, --uprobe-per-function) want CAP_SYS_ADMIN, which
// also stands in for the other two; CAP_SYS_PTRACE opens another user's process's files
// through /proc/PID/root; CAP_DAC_READ_SEARCH reads tracefs (root-only) for --follow.
const (
	CapDACReadSearch Capability = unix.CAP_DAC_READ_SEARCH
	CapSysPtrace     Capability = unix.CAP_SYS_PTRACE
	CapSysAdmin      Capability = unix.CAP_SYS_ADMIN
	CapPerfmon       Capability = unix.CAP_PERFMON
	CapBPF           Capability = unix.CAP_BPF
)

func (c Capability) String() string {
	switch c {
	case CapDACReadSearch:
		return "CAP_DAC_READ_SEARCH"
	case CapSysPtrace:
		return "CAP_SYS_PTRACE"
	case CapSysAdmin:
		return "CAP_SYS_ADMIN"
	case CapPerfmon:
		return "CAP_PERFMON"
	case CapBPF:
		return "CAP_BPF"
	}
	return fmt.Sprintf("capability %d", uint(c))
}

// Privileges are the capabilities a process holds in effect.
type Privileges struct {
	Root      bool // effective user id 0 (which, in a container, need not mean every capability)
	effective uint64
}

// CurrentPrivileges reads this process's effective capabilities from the kernel.
func CurrentPrivileges() Privileges {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	p := Privileges{Root: os.Geteuid() == 0}
	if err := unix.Capget(&hdr, &data[0]); err == nil {
		p.effective = uint64(data[1].Effective)<<32 | uint64(data[0].Effective)
	}
	return p
}

// PrivilegesOf builds a set of privileges, for tests and for saying what a set would allow.
func PrivilegesOf(root bool, caps ...Capability) Privileges {
	p := Privileges{Root: root}
	for _, c := range caps {
		p.effective |= 1 << c
	}
	return p
}

// Has reports whether the capability is in effect.
func (p Privileges) Has(c Capability) bool { return p.effective&(1<<c) != 0 }

// CanTrace reports what tracing (loading the programs, attaching uprobe_multi links) lacks:
// nothing, or the capabilities to add.
func (p Privileges) CanTrace() []Capability {
	if p.Has(CapSysAdmin) {
		return nil
	}
	var missing []Capability
	for _, c := range []Capability{CapBPF, CapPerfmon} {
		if !p.Has(c) {
			missing = append(missing, c)
		}
	}
	return missing
}

// ErrPrivileges matches every error that says the process lacks privileges to trace.
var ErrPrivileges = errors.New("not privileged to trace")

// PrivilegeError says what needs which capabilities this process lacks, and how to get them.
type PrivilegeError struct {
	What    string       // what was refused: "tracing", "tracing process 42 (uid 0)"
	Need    []Capability // what it needs in all (the setcap line grants these)
	Missing []Capability // those this process lacks
	Alt     string       // another way round, when there is one ("or drop --uprobe-per-function")
	Cause   error        // what the kernel said, when it refused
	Root    bool         // the process is root already: sudo is no fix
}

func (e *PrivilegeError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s needs %s (missing %s", e.What, capList(e.Need), capList(e.Missing))
	if e.Cause != nil {
		fmt.Fprintf(&b, "; the kernel said: %v", e.Cause)
	}
	b.WriteString("): ")
	b.WriteString(e.Fix())
	if e.Alt != "" {
		b.WriteString(", " + e.Alt)
	}
	return b.String()
}

// Fix is what to do: run with sudo, or grant echoctl's file the capabilities once.
func (e *PrivilegeError) Fix() string {
	if e.Root {
		return fmt.Sprintf("this root process lacks them (a container? give it %s)", capList(e.Need))
	}
	return fmt.Sprintf("run echoctl with sudo, or grant it the capabilities once: %s", SetcapLine(e.Need))
}

func (e *PrivilegeError) Is(target error) bool { return target == ErrPrivileges }
func (e *PrivilegeError) Unwrap() error        { return e.Cause }

// SetcapLine is the command that grants echoctl's own executable these capabilities, so a
// user without sudo can run it (each run starts with them in effect).
func SetcapLine(caps []Capability) string {
	self, err := os.Executable()
	if err != nil {
		self = "$(command -v echoctl)"
	}
	names := make([]string, len(caps))
	for i, c := range caps {
		names[i] = strings.ToLower(c.String())
	}
	return fmt.Sprintf("sudo setcap %s+ep %s", strings.Join(names, ","), self)
}

// capList names capabilities as a sentence does: "CAP_BPF, CAP_PERFMON and CAP_SYS_PTRACE".
func capList(caps []Capability) string {
	names := make([]string, len(caps))
	for i, c := range caps {
		names[i] = c.String()
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// CheckPrivileges tells whether this process may trace: CAP_BPF and CAP_PERFMON, or
// CAP_SYS_ADMIN, in effect. A process of another user also needs CAP_SYS_PTRACE, and
// perf-event uprobes CAP_SYS_ADMIN: those are checked where they are needed.
func CheckPrivileges() error { return checkPrivileges() }

func checkPrivileges() error {
	p := CurrentPrivileges()
	missing := p.CanTrace()
	if len(missing) == 0 {
		return nil
	}
	return &PrivilegeError{What: "tracing", Need: []Capability{CapBPF, CapPerfmon}, Missing: missing,
		Root: p.Root}
}

// checkTraceable refuses a process whose files this one may not open: the tracer reads the
// libraries a process maps through /proc/PID/root (which works across mount namespaces),
// and the kernel lets only a process that may ptrace it follow that link.
func checkTraceable(pid int) error {
	_, err := os.Readlink(procfs.RootPath(pid, ""))
	if !errors.Is(err, os.ErrPermission) {
		return nil
	}
	owner := ""
	var st unix.Stat_t
	if unix.Stat(procfs.Dir(pid), &st) == nil {
		owner = fmt.Sprintf(" (uid %d; this is uid %d)", st.Uid, os.Geteuid())
	}
	p := CurrentPrivileges()
	return &PrivilegeError{What: fmt.Sprintf("tracing process %d%s", pid, owner),
		Need: []Capability{CapBPF, CapPerfmon, CapSysPtrace}, Missing: append(p.CanTrace(), CapSysPtrace),
		Root: p.Root}
}

// perfUprobeError explains a perf-event uprobe the kernel refused: 6.18 lets only
// CAP_SYS_ADMIN create one (CAP_PERFMON is not enough), while uprobe_multi links need no more
// than loading the programs did.
func (t *Tracer) perfUprobeError(err error) error {
	p := CurrentPrivileges()
	if !errors.Is(err, os.ErrPermission) || p.Has(CapSysAdmin) {
		return err
	}
	e := &PrivilegeError{What: "attaching uprobes one per function (perf events)",
		Need: []Capability{CapSysAdmin}, Missing: []Capability{CapSysAdmin}, Cause: err, Root: p.Root}
	if t.cfg.OnePerFunction && haveUprobeMulti() == nil {
		e.Alt = "or drop --uprobe-per-function (this kernel has uprobe_multi, which CAP_BPF and CAP_PERFMON allow)"
	}
	return e
}
