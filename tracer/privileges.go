package tracer

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// ErrPrivileges is returned when the process may not load BPF programs or probe others.
var ErrPrivileges = errors.New("tracing needs root, or the CAP_BPF and CAP_PERFMON capabilities: " +
	"run it with sudo, or grant them with `sudo setcap cap_bpf,cap_perfmon,cap_sys_ptrace+ep $(command -v echoctl)`")

// CheckPrivileges tells whether this process may trace: root, or CAP_BPF and CAP_PERFMON.
func CheckPrivileges() error { return checkPrivileges() }

func checkPrivileges() error {
	if os.Geteuid() == 0 {
		return nil
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return ErrPrivileges
	}
	has := func(c uint) bool { return data[c/32].Effective&(1<<(c%32)) != 0 }
	if has(unix.CAP_BPF) && has(unix.CAP_PERFMON) {
		return nil
	}
	return ErrPrivileges
}
