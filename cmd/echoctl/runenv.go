package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/echo-uma/echo/internal/outfile"
	"github.com/echo-uma/echo/internal/shell"
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/runner"
)

// printRunEnv writes the plan's deployment beside it (PLAN.shim) and prints the environment
// that makes a program started by something else (a launcher, a service manager, a
// container) run as `echoctl run` would run it: LD_PRELOAD and ECHO_PLAN. The shim still
// checks the executable and the device at every start, so a stale environment runs the
// program untouched.
func printRunEnv(cmd *cobra.Command, o *runOptions, p *plan.Plan, planPath string, pairs []plan.Pair, strategy plan.Strategy) error {
	if len(pairs) == 0 {
		return fmt.Errorf("the plan enables no pair: there is nothing to preload")
	}
	shim, err := runner.FindShim()
	if err != nil {
		return err
	}
	shim, err = filepath.Abs(shim)
	if err != nil {
		return err
	}
	compact, err := plan.Deployment(p, pairs, strategy)
	if err != nil {
		return fmt.Errorf("deploying %s: %w", planPath, err)
	}
	deployed, err := filepath.Abs(plan.SideFile(planPath, plan.SideDeployment))
	if err != nil {
		return err
	}
	if err := outfile.WriteFile(deployed, []byte(compact), nil); err != nil {
		return fmt.Errorf("writing the compact plan beside the plan: %w", err)
	}
	env := [][2]string{{"LD_PRELOAD", shim}, {"ECHO_PLAN", deployed}}
	out := cmd.OutOrStdout()
	if o.json {
		m := map[string]string{}
		for _, kv := range env {
			m[kv[0]] = kv[1]
		}
		return printJSON(out, struct {
			Schema     string            `json:"schema"`
			Env        map[string]string `json:"env"`
			Deployment string            `json:"deployment"` // PLAN.shim
			Strategy   plan.Strategy     `json:"strategy"`
			Pairs      int               `json:"pairs"`
		}{schemaEnv, m, deployed, strategy, len(pairs)})
	}
	for _, kv := range env {
		fmt.Fprintf(out, "export %s=%s\n", kv[0], shell.Quote(kv[1]))
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "echoctl: %d pairs (%s) deployed to %s; eval this output, or set it in the launcher's environment\n",
		len(pairs), strategy, deployed)
	return nil
}
