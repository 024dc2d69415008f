package check

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/echo-uma/echo/tracer"
)

// tracerItems load the tracer's BPF objects and attach a probe as a trace would (to this
// process alone, where it records nothing), once through the path a trace takes here and,
// on kernels with uprobe_multi, once through the perf-event path --uprobe-per-function takes.
func tracerItems(p tracer.Privileges, s tracer.Support) []Item {
	if missing := p.CanTrace(); len(missing) > 0 {
		why := "not tried: needs the tracing capabilities (see \"capabilities\")"
		return []Item{
			{Name: "BPF objects", Status: StatusMissing, Detail: why, Disables: disablesTrace},
			{Name: "uprobe attach", Status: StatusMissing, Detail: why, Disables: disablesTrace},
		}
	}
	st := tracer.RunSelfTest(false)
	if st.Load != nil {
		return []Item{{Name: "BPF objects", Status: StatusMissing, Detail: st.Load.Error(), Disables: disablesTrace}}
	}
	items := []Item{{Name: "BPF objects", Status: StatusOK, Detail: "the tracer's programs and maps load (the verifier accepts them)"}}
	how := "a perf-event uprobe"
	if st.Multi {
		how = "a uprobe_multi link"
	}
	attach := Item{Name: "uprobe attach", Status: StatusOK, Detail: fmt.Sprintf("%s (on a copy of %s)", how, st.Library)}
	if st.Attach != nil {
		attach = attachFailure("uprobe attach", st.Attach, StatusMissing, disablesTrace)
	}
	items = append(items, attach)
	if s.UprobeMulti == nil {
		perf := Item{Name: "perf-event uprobes", Status: StatusOK,
			Detail: "attach too (used only with --uprobe-per-function on this kernel)"}
		if pst := tracer.RunSelfTest(true); pst.Load != nil || pst.Attach != nil {
			perf = attachFailure("perf-event uprobes", errors.Join(pst.Load, pst.Attach), StatusWarn,
				"echoctl trace --uprobe-per-function")
		}
		items = append(items, perf)
	}
	return items
}

// attachFailure names the capability the kernel wanted when it refused for lack of one.
func attachFailure(name string, err error, status Status, disables string) Item {
	it := Item{Name: name, Status: status, Detail: err.Error(), Disables: disables}
	var perr *tracer.PrivilegeError
	if errors.As(err, &perr) {
		it.Detail = fmt.Sprintf("refused without %s (%v)%s", capNames(perr.Missing), perr.Cause, paranoid())
		it.Fix, it.Grant = perr.Fix(), perr.Need
	}
	return it
}

// paranoid is kernel.perf_event_paranoid, which governs perf events for unprivileged users.
func paranoid() string {
	b, err := os.ReadFile("/proc/sys/kernel/perf_event_paranoid")
	if err != nil {
		return ""
	}
	return "; kernel.perf_event_paranoid is " + strings.TrimSpace(string(b))
}
