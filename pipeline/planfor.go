package pipeline

import (
	"fmt"
	"io"
	"log/slog"
	"os/exec"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/planner"
	"github.com/echo-uma/echo/runner"
)

// LoadPlanFor reads the plan at planPath and checks that it can be applied to the program
// argv starts: the plan was made for that executable and the shim can be preloaded into it.
func LoadPlanFor(planPath string, argv []string) (*plan.Plan, error) {
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

// KeptDeployment is what `echoctl run PLAN -- argv` deploys: the deployment kept from an
// earlier run of the same plan bytes (Kept), or derived from the plan and kept for the next
// run. A plan that cannot be read, or is not this program's, deploys nothing (Untouched says
// why: the program runs as written); a plan that was never calibrated is an error, as without
// the cache. Deploy's warnings go to stderr.
func KeptDeployment(planPath string, argv []string, stderr io.Writer) (Kept, error) {
	raw, err := plan.ReadFileBytes(planPath) // read once: the key and the plan are of one file
	if err != nil {
		return Kept{Untouched: err.Error()}, nil
	}
	key := DeploymentKey(raw)
	if k, ok := LoadKept(key); ok {
		if err := checkExecutable(plan.Context{Executable: k.Executable, Launcher: k.Launcher}, argv); err != nil {
			return Kept{Untouched: err.Error()}, nil
		}
		slog.Info("deploying what an earlier run of this plan derived", "plan", planPath, "key", key[:16])
		return k, nil
	}
	p, err := plan.ParseFile(planPath, raw)
	if err == nil {
		err = checkExecutable(p.Context, argv)
	}
	if err != nil {
		return Kept{Untouched: err.Error()}, nil
	}
	d, err := Deploy(p, "", false, stderr)
	if err != nil {
		return Kept{}, err
	}
	k := Kept{Executable: p.Context.Executable, Launcher: p.Context.Launcher, Strategy: d.Strategy, Pairs: len(d.Pairs), Untouched: d.Untouched}
	if d.Untouched == "" {
		if k.Compact, err = plan.Deployment(p, d.Pairs, d.Strategy); err != nil {
			return Kept{}, fmt.Errorf("deploying %s: %w", planPath, err)
		}
	}
	if err := Keep(key, k); err != nil {
		slog.Info("not keeping the deployment for the next run", "err", err)
	}
	return k, nil
}

// ForRun is what `echoctl run PLAN -- argv` deploys: without a strategy or force, the kept
// deployment (KeptDeployment); with them, the plan's deployment derived anew. Untouched
// says why the program runs as written (a plan that is not this program's, or deploys
// nothing).
func ForRun(planPath string, argv []string, strategy plan.Strategy, force bool, stderr io.Writer) (Kept, error) {
	if strategy == "" && !force {
		return KeptDeployment(planPath, argv, stderr)
	}
	p, err := LoadPlanFor(planPath, argv)
	if err != nil {
		return Kept{Untouched: err.Error()}, nil
	}
	d, err := Deploy(p, strategy, force, stderr)
	if err != nil {
		return Kept{}, err
	}
	if d.Untouched != "" {
		return Kept{Untouched: d.Untouched}, nil
	}
	compact, err := plan.Deployment(p, d.Pairs, d.Strategy)
	if err != nil {
		return Kept{}, fmt.Errorf("deploying %s: %w", planPath, err)
	}
	return Kept{Executable: p.Context.Executable, Launcher: p.Context.Launcher, Strategy: d.Strategy, Pairs: len(d.Pairs), Compact: compact}, nil
}
