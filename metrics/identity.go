package metrics

import (
	"strconv"

	"github.com/echo-uma/echo/internal/procfs"
	"github.com/echo-uma/echo/live"
	"github.com/echo-uma/echo/trace"
)

// identity is who a watched process is, beyond its row: read from /proc once per process,
// as none of it changes while the process runs its executable.
type identity struct {
	command string // the row's command line when this was read
	buildID string // the executable's GNU build-id, "" without one
	cgroup  string // the control group, the container's when it is in one
	podUID  string // the Kubernetes pod's UID, where the control group is a pod's
}

// identify reads who the process of row r is. What cannot be read (the process exited
// meanwhile, or the executable has no build-id) is left empty: Prometheus reads an empty
// label as an absent one.
func identify(r *live.Row) identity {
	// The executable is opened through /proc, so that it is the file the process runs, inside a
	// container or replaced on disk since; "" when it has no build-id or cannot be read.
	buildID, _ := trace.FileBuildID(procfs.ExePath(r.PID))
	id := identity{command: r.Command, buildID: buildID}
	if cg, err := procfs.Cgroup(r.PID); err == nil {
		id.cgroup, id.podUID = cg, procfs.PodUID(cg)
	}
	return id
}

// labels are the values of processLabels for row r.
func (id identity) labels(r *live.Row) []string {
	return []string{strconv.Itoa(r.PID), r.Comm, id.buildID, id.cgroup, id.podUID}
}
