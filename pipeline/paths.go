package pipeline

import (
	"fmt"
	"os/exec"
	"path/filepath"

	"github.com/echo-uma/echo/internal/outfile"
	"github.com/echo-uma/echo/internal/scratch"
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/runner"
	"github.com/echo-uma/echo/tracer"
)

// OptimizePaths are where `echoctl optimize -o output -- argv` writes: the plan (output, or
// the program's name with .plan beside it), which must not be the program, and the trace,
// beside the plan (PLAN.trace), or in a scratch directory that remove takes away where the
// plan goes to standard output. The program must be one the shim can be preloaded into, and
// echoctl allowed to trace it.
func OptimizePaths(argv []string, output string) (planPath, tracePath string, remove func(), err error) {
	exe, err := exec.LookPath(argv[0])
	if err != nil {
		return "", "", nil, fmt.Errorf("finding %s: %w", argv[0], err)
	}
	if err := runner.Preloadable(exe); err != nil {
		return "", "", nil, err
	}
	if err := tracer.CheckPrivileges(); err != nil {
		return "", "", nil, err
	}
	planPath = output
	if planPath == "" {
		planPath = filepath.Base(exe) + ".plan"
	}
	if err := outfile.NotAnInput(planPath, "the program", exe); err != nil {
		return "", "", nil, err
	}
	if planPath != outfile.Stdout {
		return planPath, plan.SideFile(planPath, plan.SideTrace), func() {}, nil
	}
	// No file to keep the trace beside: it is only a step here.
	dir, remove, err := scratch.Dir("echoctl-optimize-")
	if err != nil {
		return "", "", nil, err
	}
	return planPath, filepath.Join(dir, "trace.bin"), remove, nil
}
