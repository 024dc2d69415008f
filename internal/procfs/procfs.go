// Package procfs owns every read of a process's files under /proc: where they are, and how
// their text is parsed. It is the one place that knows the kernel's formats, so a path with
// spaces in /proc/PID/maps or a command name with ')' in /proc/PID/stat is handled once.
//
// github.com/prometheus/procfs was weighed and not taken: its maps parser splits the line on
// whitespace and joins the path's pieces with one space (a path with two spaces in a row is
// misread), leaves " (deleted)" on the path, does not undo the kernel's escaping of newlines,
// and fails the whole file on one line it does not expect.
package procfs

import (
	"fmt"
	"os"
	"strconv"
)

// Dir is /proc/PID.
func Dir(pid int) string { return "/proc/" + strconv.Itoa(pid) }

// ExePath is /proc/PID/exe: opening it opens the process's executable even when its path
// lies in another mount namespace or the file was replaced since.
func ExePath(pid int) string { return Dir(pid) + "/exe" }

// RootPath is where this process opens a file that process pid names by path: through
// /proc/PID/root, so a process in another mount namespace (a container) resolves to the
// file it really sees.
func RootPath(pid int, path string) string { return Dir(pid) + "/root" + path }

// PIDs lists the processes now in /proc, in the order the kernel lists them.
func PIDs() ([]int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("listing processes in /proc: %w", err)
	}
	var pids []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil && pid > 0 {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}
