// Command arm64vm is the init of the arm64 test VM (tests/arm64vm.sh): the first process of
// an arm64 kernel booted in qemu-system-aarch64 from an initramfs that holds the repository's
// arm64 build tree, an arm64 C library and Go test binaries. It mounts what the tracer needs
// (proc, sys, dev, tmp, debugfs, tracefs, bpffs), lifts the locked-memory limit, runs each
// command of /vm/commands (one per line: a directory, a tab, the command and its arguments
// separated by tabs) with the environment of /vm/env (KEY=VALUE lines) added, prints
// "arm64vm: exit N" after each and "arm64vm: done" after all, and powers the machine off.
package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

func main() {
	defer func() {
		unix.Sync()
		unix.Reboot(unix.LINUX_REBOOT_CMD_POWER_OFF)
	}()
	for _, m := range []struct{ source, target, fstype string }{
		{"proc", "/proc", "proc"},
		{"sysfs", "/sys", "sysfs"},
		{"devtmpfs", "/dev", "devtmpfs"},
		{"tmpfs", "/tmp", "tmpfs"},
		{"debugfs", "/sys/kernel/debug", "debugfs"},
		{"tracefs", "/sys/kernel/tracing", "tracefs"},
		{"bpf", "/sys/fs/bpf", "bpf"},
	} {
		os.MkdirAll(m.target, 0o755)
		if err := unix.Mount(m.source, m.target, m.fstype, 0, ""); err != nil {
			fmt.Printf("arm64vm: mounting %s: %v\n", m.target, err)
		}
	}
	unix.Setrlimit(unix.RLIMIT_MEMLOCK, &unix.Rlimit{Cur: unix.RLIM_INFINITY, Max: unix.RLIM_INFINITY})
	var uts unix.Utsname
	unix.Uname(&uts)
	fmt.Printf("arm64vm: kernel %s %s\n", unix.ByteSliceToString(uts.Release[:]), unix.ByteSliceToString(uts.Machine[:]))

	f, err := os.Open("/vm/commands")
	if err != nil {
		fmt.Printf("arm64vm: %v\n", err)
		return
	}
	defer f.Close()
	env := append(os.Environ(), "PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/root", "TMPDIR=/tmp")
	if extra, err := os.ReadFile("/vm/env"); err == nil {
		env = append(env, strings.Fields(string(extra))...)
	}
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		fields := strings.Split(lines.Text(), "\t")
		if len(fields) < 2 {
			continue
		}
		fmt.Printf("arm64vm: in %s: %s\n", fields[0], strings.Join(fields[1:], " "))
		start := time.Now()
		cmd := exec.Command(fields[1], fields[2:]...)
		cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = fields[0], env, os.Stdout, os.Stdout
		code := 0
		if err := cmd.Run(); err != nil {
			code = -1
			if exit, ok := err.(*exec.ExitError); ok {
				code = exit.ExitCode()
			} else {
				fmt.Printf("arm64vm: %v\n", err)
			}
		}
		fmt.Printf("arm64vm: exit %d after %.0f s\n", code, time.Since(start).Seconds())
	}
	fmt.Println("arm64vm: done")
}
