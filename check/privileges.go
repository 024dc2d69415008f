package check

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/echo-uma/echo/tracer"
)

// privilegeItems: the capabilities tracing needs, and those for other users' processes and
// --follow (README, "Privileges").
func privilegeItems(p tracer.Privileges) []Item {
	held := heldCapabilities(p)
	capItem := Item{Name: "capabilities", Status: StatusOK, Detail: "tracing allowed: " + held}
	if missing := p.CanTrace(); len(missing) > 0 {
		e := &tracer.PrivilegeError{What: "tracing", Need: []tracer.Capability{tracer.CapBPF, tracer.CapPerfmon},
			Missing: missing, Root: p.Root}
		capItem = Item{Name: "capabilities", Status: StatusMissing, Disables: disablesTrace, Fix: e.Fix(), Grant: e.Need,
			Detail: fmt.Sprintf("tracing needs CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN; missing %s (%s)",
				capNames(missing), held)}
	}
	ptrace := Item{Name: "other users", Status: StatusOK, Detail: "CAP_SYS_PTRACE: processes of other users can be traced"}
	if !p.Has(tracer.CapSysPtrace) {
		need := []tracer.Capability{tracer.CapBPF, tracer.CapPerfmon, tracer.CapSysPtrace}
		e := &tracer.PrivilegeError{What: "tracing other users' processes", Need: need,
			Missing: []tracer.Capability{tracer.CapSysPtrace}, Root: p.Root}
		ptrace = Item{Name: "other users", Status: StatusWarn, Fix: e.Fix(), Grant: need,
			Detail:   "missing CAP_SYS_PTRACE: only this user's processes can be traced",
			Disables: "echoctl trace -p and attach on other users' processes"}
	}
	follow := Item{Name: "--follow", Status: StatusOK, Detail: "the fork tracepoint's format is readable in tracefs"}
	if err := tracer.CheckFollow(); err != nil {
		follow = Item{Name: "--follow", Status: StatusWarn, Detail: err.Error(), Disables: "echoctl trace --follow"}
		var perr *tracer.PrivilegeError
		if errors.As(err, &perr) {
			follow.Detail, follow.Fix = "tracefs is readable by root only: missing CAP_DAC_READ_SEARCH", perr.Fix()
			follow.Grant = perr.Need
		}
	}
	return []Item{capItem, ptrace, follow}
}

// heldCapabilities says who this process is to the kernel, in the capabilities that matter.
func heldCapabilities(p tracer.Privileges) string {
	var held []tracer.Capability
	for _, c := range []tracer.Capability{tracer.CapBPF, tracer.CapPerfmon, tracer.CapSysAdmin,
		tracer.CapSysPtrace, tracer.CapDACReadSearch} {
		if p.Has(c) {
			held = append(held, c)
		}
	}
	who := fmt.Sprintf("uid %d", os.Geteuid())
	if p.Root {
		who = "root"
	}
	if len(held) == 0 {
		return who + " with none of CAP_BPF, CAP_PERFMON, CAP_SYS_ADMIN, CAP_SYS_PTRACE"
	}
	return who + " with " + capNames(held)
}

func capNames(caps []tracer.Capability) string {
	names := make([]string, len(caps))
	for i, c := range caps {
		names[i] = c.String()
	}
	return strings.Join(names, ", ")
}
