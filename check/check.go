// Package check answers, on a new machine, whether Echo can work there and what each missing
// piece disables: the kernel's BPF features, this process's capabilities, the tracer's BPF
// objects and probes, the CUDA libraries a loader would find, the GPU behind them, and the
// preload library. `echoctl check` prints it; it changes nothing on the machine.
package check

import (
	"context"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/echo-uma/echo/tracer"
)

// Schema names the JSON form of a Report.
const Schema = "echo.check/1"

// Status is one item's verdict.
type Status string

const (
	StatusOK      Status = "ok"
	StatusWarn    Status = "warn"    // works, with a limit the item names
	StatusMissing Status = "missing" // a pipeline step cannot work here: the item says which
)

// What a missing piece disables, in the commands' words.
const (
	disablesTrace  = "echoctl trace, attach and optimize"
	disablesDeploy = "echoctl run, validate, calibrate and optimize"
)

// Item is one thing checked.
type Item struct {
	Name     string `json:"name"`
	Status   Status `json:"status"`
	Detail   string `json:"detail"`
	Disables string `json:"disables"`      // what does not work while it is missing or limited; "" when ok
	Fix      string `json:"fix,omitempty"` // what to run about it, when there is a command for it
	// Grant are the capabilities Fix's setcap line grants (none when Fix is no setcap line):
	// setcap replaces a file's capabilities, so the report's Fix grants every item's at once.
	Grant []tracer.Capability `json:"-"`
}

// Report is everything checked. OK means tracing and deploying can work: no item is missing.
type Report struct {
	Schema    string    `json:"schema"`
	OK        bool      `json:"ok"`
	Kernel    string    `json:"kernel"`
	Root      bool      `json:"root"`
	Libraries []Library `json:"libraries"`
	GPU       *GPU      `json:"gpu,omitempty"`
	Items     []Item    `json:"items"`
	// Fix grants, in one setcap line, every capability the items' fixes name: running the
	// items' own lines one after another would leave echoctl with the last one's alone.
	Fix string `json:"fix,omitempty"`
}

// Options say where to look.
type Options struct {
	LibraryPath string // LD_LIBRARY_PATH, searched first, as the dynamic loader does
}

// Run checks everything, in the order a user fixes things: kernel, privileges, the tracer,
// the CUDA libraries and GPU, the preload library.
func Run(ctx context.Context, opts Options) Report {
	var uts unix.Utsname
	_ = unix.Uname(&uts)
	priv := tracer.CurrentPrivileges()
	r := Report{Schema: Schema, Kernel: unix.ByteSliceToString(uts.Release[:]), Root: priv.Root}
	support := tracer.KernelSupport()
	r.Items = append(r.Items, kernelItems(r.Kernel, support)...)
	r.Items = append(r.Items, privilegeItems(priv)...)
	r.Items = append(r.Items, tracerItems(priv, support)...)
	r.Libraries = FindLibraries(opts.LibraryPath)
	r.Items = append(r.Items, libraryItems(r.Libraries)...)
	shimItem, shim := preloadItem()
	gpuItem, gpu := deviceItem(ctx, r.Libraries, shim)
	r.GPU = gpu
	r.Items = append(r.Items, gpuItem, shimItem)
	r.OK = true
	for _, it := range r.Items {
		r.OK = r.OK && it.Status != StatusMissing
	}
	r.Fix = grantAll(r.Items, priv)
	return r
}

// grantAll is the one fix that grants every capability the items not ok want, and keeps
// those of the tracer's this process holds: setcap replaces what the file had.
func grantAll(items []Item, p tracer.Privileges) string {
	var want []tracer.Capability
	for _, it := range items {
		if it.Status != StatusOK {
			want = append(want, it.Grant...)
		}
	}
	if len(want) == 0 {
		return ""
	}
	var all []tracer.Capability
	for _, c := range append([]tracer.Capability{tracer.CapBPF, tracer.CapPerfmon, tracer.CapSysPtrace,
		tracer.CapDACReadSearch, tracer.CapSysAdmin}, want...) {
		if (p.Has(c) || slices.Contains(want, c)) && !slices.Contains(all, c) {
			all = append(all, c)
		}
	}
	return (&tracer.PrivilegeError{Need: all, Root: p.Root}).Fix()
}
