package tracer

import (
	"errors"
	"fmt"
	"sync"

	"github.com/cilium/ebpf/features"
	"golang.org/x/sys/unix"
)

// kernelVersion has cilium/ebpf read the running kernel's version, once, while this process
// may read its own /proc/self files. cilium/ebpf needs the version before it loads any
// kprobe-type program (each of our uprobes, and its own uprobe_multi feature probe) and reads
// it out of the vDSO through /proc/self/mem, once per process. A process that gained
// capabilities when it was exec'd (a setcap'd echoctl started from a user's shell) is not
// dumpable, so the kernel makes its /proc/self files root's and it may not open them:
// "opening mem: permission denied". So the process is made dumpable for the moment of the
// read and put back. Dumpable or not, no other process of the user can ptrace echoctl or
// read its memory: that also needs every capability echoctl holds (the kernel's
// cap_ptrace_access_check).
var kernelVersion = sync.OnceValue(func() error {
	// Not dumpable is 0, or 2 where fs.suid_dumpable is 2; PR_SET_DUMPABLE takes 0 or 1.
	if dumpable, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0); err == nil && dumpable != 1 {
		if err := unix.Prctl(unix.PR_SET_DUMPABLE, 1, 0, 0, 0); err == nil {
			defer unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
		}
	}
	_, err := features.LinuxVersionCode()
	if errors.Is(err, unix.ENOENT) {
		// The Go runtime has no auxiliary vector: a dynamically linked echoctl in secure
		// mode, whose loader deleted LD_LIBRARY_PATH or the like from the environment in
		// place (the Makefile's comment on echoctl says how).
		return fmt.Errorf("reading the kernel's version from the vDSO: %w (a setcap'd echoctl must be "+
			"built static: CGO_ENABLED=0, as make does)", err)
	}
	if err != nil {
		return fmt.Errorf("reading the kernel's version from the vDSO: %w", err)
	}
	return nil
})
