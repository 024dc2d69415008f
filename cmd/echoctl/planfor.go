package main

import (
	"fmt"
	"os/exec"

	"github.com/spf13/cobra"

	"github.com/echo-uma/echo/internal/outfile"
	"github.com/echo-uma/echo/planner"
	"github.com/echo-uma/echo/runner"
)

// loadPlanFor reads the plan at planPath and checks that it can be applied to the program
// argv starts: the plan was made for that executable and the shim can be preloaded into it.
func loadPlanFor(planPath string, argv []string) (*planner.Plan, error) {
	p, err := planner.ReadFile(planPath)
	if err != nil {
		return nil, err
	}
	exe, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, fmt.Errorf("finding %s: %w", argv[0], err)
	}
	if err := p.CheckExecutable(exe); err != nil {
		return nil, err
	}
	if err := runner.Preloadable(exe); err != nil {
		return nil, err
	}
	return p, nil
}

// writePlan writes the plan where -o says: a file, or "-", the command's standard output.
func writePlan(cmd *cobra.Command, path string, p *planner.Plan) error {
	if path == outfile.Stdout {
		return p.Write(cmd.OutOrStdout())
	}
	return planner.WriteFile(path, p)
}
