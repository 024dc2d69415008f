package tracer

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/features"

	"github.com/echo-uma/echo/internal/scratch"
)

// Support is what this kernel offers the tracer: each field is nil when present, else why
// not (a kernel too old, or a probe this process was not allowed to make).
type Support struct {
	RingBuf     error // BPF ring-buffer maps (5.8+): the tracer cannot work without them
	UprobeMulti error // uprobe_multi links (6.6+); without them, one perf-event uprobe per function
}

// KernelSupport probes the kernel for the BPF features the tracer uses.
func KernelSupport() Support {
	return Support{RingBuf: features.HaveMapType(ebpf.RingBuf), UprobeMulti: haveUprobeMulti()}
}

func haveUprobeMulti() error {
	_ = kernelVersion() // the probe loads a kprobe-type program; a failure shows there
	return features.HaveBPFLinkUprobeMulti()
}

// SelfTest is what a trace would do, short of tracing anything.
type SelfTest struct {
	Load    error  // loading the BPF programs and maps
	Attach  error  // attaching a probe (nil when Load failed: see Load)
	Multi   bool   // attached as a uprobe_multi link rather than a perf-event uprobe
	Library string // the file the probe went on
}

// RunSelfTest loads the tracer's programs as a trace would, attaches the dynamic loader's
// probe — as a uprobe_multi link where the kernel has them, or as a perf-event uprobe when
// onePerFunction is set or it has not — and removes it all again. The probe goes on a
// private copy of the loader: on the loader itself the kernel would visit every process
// (all map it), which takes long on a busy machine, and the copy records nothing.
func RunSelfTest(onePerFunction bool) SelfTest {
	var res SelfTest
	t, err := New(Config{OnePerFunction: onePerFunction}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		res.Load = err
		return res
	}
	defer t.Close()
	res.Multi = t.multi
	res.Library = loaderOf("/proc/self/exe")
	if res.Library == "" {
		res.Library = loaderOf("/bin/sh")
	}
	if res.Library == "" {
		res.Attach = errors.New("found no dynamic loader to probe (neither echoctl nor /bin/sh names one)")
		return res
	}
	dir, remove, err := scratch.Dir("echoctl-selftest-")
	if err != nil {
		res.Attach = err
		return res
	}
	defer remove()
	private := filepath.Join(dir, filepath.Base(res.Library))
	if err := copyFile(res.Library, private); err != nil {
		res.Attach = err
		return res
	}
	n, err := t.Probe(private, kindLoader, os.Getpid())
	if err == nil && n == 0 {
		err = errors.New(res.Library + " does not define _dl_debug_state")
	}
	res.Attach = err
	return res
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return fmt.Errorf("copying %s: %w", from, err)
	}
	return os.WriteFile(to, data, 0o644)
}

// loaderOf is the dynamic loader an executable names, "" for a static one.
func loaderOf(exe string) string {
	interp := interpreter(exe)
	if interp == "" {
		return ""
	}
	if _, err := os.Stat(interp); err != nil {
		return ""
	}
	return interp
}

// CheckFollow tells whether --follow can read the fork tracepoint's layout from tracefs,
// without mounting tracefs where it is not (--follow mounts it, given CAP_SYS_ADMIN).
func CheckFollow() error {
	data, err := readForkFormat()
	if errors.Is(err, errNoTracefs) && CurrentPrivileges().Has(CapSysAdmin) {
		return nil
	}
	if err == nil {
		_, _, err = parseForkFormat(string(data))
	}
	return err
}
