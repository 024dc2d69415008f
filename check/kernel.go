package check

import (
	"errors"
	"fmt"
	"os"

	"github.com/cilium/ebpf"

	"github.com/echo-uma/echo/tracer"
)

// uprobePMU is where the kernel lists its uprobe event source (CONFIG_UPROBE_EVENTS).
const uprobePMU = "/sys/bus/event_source/devices/uprobe"

// kernelItems: the release (5.8 brought the BPF ring buffer and CAP_BPF/CAP_PERFMON),
// uprobes, the ring-buffer map and uprobe_multi links.
func kernelItems(release string, s tracer.Support) []Item {
	kernel := Item{Name: "kernel", Status: StatusOK,
		Detail: release + ": 5.8 or newer (BPF ring buffer); BTF and kernel headers are not needed"}
	var major, minor int
	if _, err := fmt.Sscanf(release, "%d.%d", &major, &minor); err != nil {
		kernel.Status, kernel.Detail = StatusWarn, release+": cannot read its version; the tracer needs 5.8 or newer"
	} else if major < 5 || major == 5 && minor < 8 {
		kernel.Status, kernel.Detail, kernel.Disables = StatusMissing,
			release+": older than 5.8, which the BPF ring buffer needs", disablesTrace
	}
	uprobes := Item{Name: "uprobes", Status: StatusOK, Detail: "the kernel has uprobe events (" + uprobePMU + ")"}
	if _, err := os.Stat(uprobePMU); err != nil {
		uprobes = Item{Name: "uprobes", Status: StatusMissing, Disables: disablesTrace,
			Detail: "no " + uprobePMU + ": a kernel built without CONFIG_UPROBES/CONFIG_UPROBE_EVENTS"}
	}
	ring := featureItem("ring buffer", s.RingBuf, "BPF ring-buffer maps", StatusMissing,
		"not in this kernel", disablesTrace)
	multi := featureItem("uprobe_multi", s.UprobeMulti,
		"one BPF link per library (6.6+): quick to detach, and CAP_BPF with CAP_PERFMON suffice", StatusWarn,
		"not in this kernel (6.6+): one perf-event uprobe per function instead, slower to detach; "+
			"6.18 allows those to CAP_SYS_ADMIN only (see \"perf-event uprobes\")", "")
	return []Item{kernel, uprobes, ring, multi}
}

// featureItem reports a kernel feature probe: present, absent (with what that costs), or not
// probed because this process may not create BPF objects.
func featureItem(name string, err error, have string, absent Status, absentDetail, disables string) Item {
	switch {
	case err == nil:
		return Item{Name: name, Status: StatusOK, Detail: have}
	case errors.Is(err, ebpf.ErrNotSupported):
		return Item{Name: name, Status: absent, Detail: absentDetail, Disables: disables}
	}
	return Item{Name: name, Status: StatusWarn,
		Detail: fmt.Sprintf("not probed (%v): run echoctl check with the tracing capabilities to know", err)}
}
