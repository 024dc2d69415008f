package main

import (
	"fmt"
	"log/slog"
	"os/exec"

	"github.com/spf13/cobra"

	"github.com/echo-uma/echo/internal/outfile"
	"github.com/echo-uma/echo/pipeline"
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/planner"
	"github.com/echo-uma/echo/runner"
)

// loadPlanFor reads the plan at planPath and checks that it can be applied to the program
// argv starts: the plan was made for that executable and the shim can be preloaded into it.
func loadPlanFor(planPath string, argv []string) (*plan.Plan, error) {
	p, err := plan.ReadFile(planPath)
	if err != nil {
		return nil, err
	}
	if err := checkExecutable(p.Context, argv); err != nil {
		return nil, err
	}
	return p, nil
}

// checkExecutable: the program argv starts is the plan's executable (or the command the
// plan's trace followed to it), and the shim can be preloaded into it.
func checkExecutable(want plan.Context, argv []string) error {
	exe, err := exec.LookPath(argv[0])
	if err != nil {
		return fmt.Errorf("finding %s: %w", argv[0], err)
	}
	if err := planner.CheckCommand(want, exe); err != nil {
		return err
	}
	return runner.Preloadable(exe)
}

// keptDeployment is what `echoctl run PLAN -- argv` deploys: the deployment kept from an
// earlier run of the same plan bytes (pipeline.Kept), or derived from the plan and kept for
// the next run. A plan that cannot be read, or is not this program's, deploys nothing
// (Untouched says why: the program runs as written); a plan that was never calibrated is an
// error, as without the cache.
func keptDeployment(cmd *cobra.Command, planPath string, argv []string) (pipeline.Kept, error) {
	raw, err := plan.ReadFileBytes(planPath) // read once: the key and the plan are of one file
	if err != nil {
		return pipeline.Kept{Untouched: err.Error()}, nil
	}
	key := pipeline.DeploymentKey(raw)
	if k, ok := pipeline.LoadKept(key); ok {
		if err := checkExecutable(plan.Context{Executable: k.Executable, Launcher: k.Launcher}, argv); err != nil {
			return pipeline.Kept{Untouched: err.Error()}, nil
		}
		slog.Info("deploying what an earlier run of this plan derived", "plan", planPath, "key", key[:16])
		return k, nil
	}
	p, err := plan.ParseFile(planPath, raw)
	if err == nil {
		err = checkExecutable(p.Context, argv)
	}
	if err != nil {
		return pipeline.Kept{Untouched: err.Error()}, nil
	}
	d, err := pipeline.Deploy(p, "", false, cmd.ErrOrStderr())
	if err != nil {
		return pipeline.Kept{}, err
	}
	k := pipeline.Kept{Executable: p.Context.Executable, Launcher: p.Context.Launcher, Strategy: d.Strategy, Pairs: len(d.Pairs), Untouched: d.Untouched}
	if d.Untouched == "" {
		if k.Compact, err = plan.Deployment(p, d.Pairs, d.Strategy); err != nil {
			return pipeline.Kept{}, fmt.Errorf("deploying %s: %w", planPath, err)
		}
	}
	if err := pipeline.Keep(key, k); err != nil {
		slog.Info("not keeping the deployment for the next run", "err", err)
	}
	return k, nil
}

// writePlan writes the plan where -o says: a file, or "-", the command's standard output.
func writePlan(cmd *cobra.Command, path string, p *plan.Plan) error {
	if path == outfile.Stdout {
		return p.Write(cmd.OutOrStdout())
	}
	return plan.WriteFile(path, p)
}
