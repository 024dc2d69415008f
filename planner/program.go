package planner

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/trace"
)

// The program a plan is for. A trace may hold several processes (echoctl trace --follow: a
// shell or a launcher, and the CUDA program it starts); a plan is for the one whose copies
// make its loop, and names that process's executable, not the traced command's, which the
// shim in the program's process would refuse by its build-id. The traced command is then the
// plan's launcher: validate, calibrate and run take that command line, and the shim applies
// the plan in the process that runs the executable.

// programPID is the process the plan is for: the loop marker's, else the first pair's, else
// the traced command's.
func (a *analysis) programPID(marker *copyAcc) int {
	switch {
	case marker != nil:
		return int(marker.pid)
	case len(a.order) > 0:
		return int(a.order[0].host.pid)
	}
	return a.header.PID
}

// modulesOf are the modules process pid maps: its own, and the table's shared ones (PID 0)
// for the traced command, or where the process has none of its own.
func (a *analysis) modulesOf(pid int) []trace.Module {
	var own, shared []trace.Module
	for _, m := range a.sites.modules.List() {
		switch m.PID {
		case pid:
			own = append(own, m)
		case 0:
			shared = append(shared, m)
		}
	}
	if len(own) == 0 || pid == a.header.PID {
		return append(own, shared...)
	}
	return own
}

// exeOf is the executable of process pid: the module the tracer marked as the file it runs;
// in a trace from before the mark, the header's executable for the traced command, and for
// another process the module it maps lowest, which is the executable on Linux's layout (a
// PIE at 0x55…, a fixed one at 0x400000; the loader and the libraries far above).
func (a *analysis) exeOf(pid int) (plan.Module, bool) {
	mods := a.modulesOf(pid)
	for _, m := range mods {
		if m.Exe {
			return moduleRef(m), true
		}
	}
	if pid == a.header.PID || pid == 0 {
		// Traces that predate the header's executable name it only by argv[0], whose file
		// name may be a link's.
		isExe := func(m trace.Module) bool { return m.Path == a.header.Executable }
		if a.header.Executable == "" && len(a.header.Command) > 0 {
			exe := filepath.Base(a.header.Command[0])
			isExe = func(m trace.Module) bool { return filepath.Base(m.Path) == exe }
		}
		for _, m := range mods {
			if isExe(m) {
				return moduleRef(m), true
			}
		}
		return plan.Module{}, false
	}
	if len(mods) == 0 {
		return a.exeOf(a.header.PID) // a process the trace knows no modules of: a fork's child
	}
	lowest := mods[0] // List orders a process's modules by address
	return moduleRef(lowest), true
}

func moduleRef(m trace.Module) plan.Module {
	return plan.Module{Path: m.Path, BuildID: m.BuildID, Size: m.Size}
}

// sameFile tells whether two modules name one file: the same build-id, or without one, the
// same path and size.
func sameFile(x, y plan.Module) bool {
	if x.BuildID != "" || y.BuildID != "" {
		return strings.EqualFold(x.BuildID, y.BuildID)
	}
	return x.Path == y.Path && x.Size == y.Size
}

// context names the executable and CUDA libraries of the program the plan is for (the
// process pid), and the traced command that started it where that is another program.
func (a *analysis) context(pid int) plan.Context {
	var ctx plan.Context
	ctx.Executable, _ = a.exeOf(pid)
	for _, m := range a.modulesOf(pid) {
		base := filepath.Base(m.Path)
		if strings.Contains(base, "libcudart") || strings.HasPrefix(base, "libcuda.so") {
			ctx.Libraries = append(ctx.Libraries, moduleRef(m))
		}
	}
	if pid != a.header.PID {
		if root, ok := a.exeOf(a.header.PID); ok && ctx.Executable.Path != "" && !sameFile(root, ctx.Executable) {
			ctx.Launcher = &root
		}
	}
	if ctx.Executable.Path == "" && len(a.header.Command) > 0 {
		ctx.Executable.Path = a.header.Command[0]
	}
	return ctx
}

// otherProgram says why a pair found in process pid is not the plan's: that process runs
// another executable than the plan's program (a second CUDA program of a followed trace),
// where the shim never applies the plan; "" when it is the plan's program.
func (a *analysis) otherProgram(pid int, program plan.Module) string {
	exe, ok := a.exeOf(pid)
	if !ok || program.Path == "" || sameFile(exe, program) {
		return ""
	}
	return fmt.Sprintf("made by another program of the trace (%s, pid %d): a plan is for one executable, %s; "+
		"trace that program by itself to plan its pairs", filepath.Base(exe.Path), pid, filepath.Base(program.Path))
}
