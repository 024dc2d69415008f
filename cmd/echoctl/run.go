package main

import (
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/echo-uma/echo/planner"
	"github.com/echo-uma/echo/runner"
)

type runOptions struct {
	*globalOptions
	strategy string
	dryRun   bool
	force    bool
	printEnv bool
}

func newRunCmd(g *globalOptions) *cobra.Command {
	o := &runOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "run PLAN -- CMD [ARGS...]",
		Short: "Run a program with its plan's buffer pairs merged",
		Long: `run launches CMD with Echo's preload library, which merges every enabled pair of PLAN
into one buffer at the next allocation and turns the copies between its halves into the
waits they also were. The library first checks that the plan was made for this executable
(and, once calibrated, this GPU, driver and runtime); on any mismatch, unreadable plan or
failed allocation the program runs untouched and one line on stderr says why (set
ECHO_QUIET to silence it). echoctl exits with the program's status.

A plan that was never calibrated has no enabled pair and no chosen strategy: run refuses it
unless --force, which merges its candidate and validated pairs with --strategy (default
mapped).

--print-env runs nothing: it writes the deployment beside the plan (PLAN.shim) and prints
the environment (LD_PRELOAD, ECHO_PLAN) for programs that something else starts: a
launcher, a service manager, a container. The library makes the same checks there.`,
		Example: `  echoctl run app.plan -- ./app --size 64M
  echoctl run --dry-run app.plan -- ./app
  eval "$(echoctl run --print-env app.plan -- ./app)"; mpirun -x LD_PRELOAD -x ECHO_PLAN ./app
  echoctl run --force --strategy managed trace.bin.plan -- ./app`,
		Args: planAndCommand,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRun(cmd, o, args[0], args[1:])
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.strategy, "strategy", "", "merge with this strategy: mapped, managed or system (default: the calibrated one)")
	f.BoolVar(&o.dryRun, "dry-run", false, "print what would be merged and run nothing")
	f.BoolVar(&o.force, "force", false, "deploy a plan that was never calibrated")
	f.BoolVar(&o.printEnv, "print-env", false, "print the environment that deploys the plan (with --json: as an object) and run nothing")
	return cmd
}

func runRun(cmd *cobra.Command, o *runOptions, planPath string, argv []string) error {
	p, err := loadPlanFor(planPath, argv)
	if err != nil {
		return err
	}
	pairs, strategy, err := deployment(p, o, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	stderr := cmd.ErrOrStderr()
	if o.dryRun {
		return printDryRun(cmd, p, pairs, strategy)
	}
	if o.printEnv {
		return printRunEnv(cmd, o, p, planPath, pairs, strategy)
	}
	if len(pairs) == 0 {
		fmt.Fprintln(stderr, "echoctl: the plan enables no pair: running the program as written")
		return runPlain(cmd, argv)
	}
	compact, err := planner.Compact(p, pairs, strategy, planner.ModeDeploy)
	if err != nil {
		return err
	}
	run, err := runner.Run(argv, compact, runner.IO{Stdin: cmd.InOrStdin(), Stdout: cmd.OutOrStdout(), Stderr: stderr})
	if err != nil {
		return err
	}
	if o.verbose > 0 || !run.Report.Active && len(pairs) > 0 {
		fmt.Fprintf(stderr, "echoctl: %d of %d pairs merged (%s), %d copies elided, %d fallbacks\n",
			run.Report.Merged, len(pairs), strategy, run.Report.CopiesElided, run.Report.Fallbacks)
	}
	if run.ExitCode != 0 {
		return exitStatus(run.ExitCode)
	}
	return nil
}

// deployment picks the pairs to merge and the strategy: a calibrated plan's enabled pairs
// and chosen strategy (none, when calibration enabled none: the program runs as written);
// with --force, the candidate and validated pairs of a plan never calibrated.
func deployment(p *planner.Plan, o *runOptions, stderr io.Writer) ([]planner.Pair, string, error) {
	strategy := o.strategy
	if strategy == "" {
		strategy = p.Context.Strategy
	}
	var enabled, unproven []planner.Pair
	calibrated := p.Context.GPU != ""
	for _, pair := range p.Pairs {
		switch pair.Status {
		case planner.StatusEnabled:
			enabled = append(enabled, pair)
		case planner.StatusCandidate, planner.StatusValidated:
			unproven = append(unproven, pair)
		case planner.StatusCalibrated:
			calibrated = true
		}
	}
	if len(enabled) > 0 && strategy != "" {
		return enabled, strategy, nil
	}
	if (calibrated || len(unproven) == 0) && !o.force {
		return nil, strategy, nil // nothing enabled: the program runs as written
	}
	if !o.force {
		return nil, "", errors.New("the plan was never calibrated, so no pair is enabled and no strategy chosen: " +
			"run echoctl calibrate first, or deploy it unproven with --force")
	}
	fmt.Fprintln(stderr, "echoctl: warning: deploying pairs that were not calibrated (--force): "+
		"the merged program may be slower, and pairs never validated may even compute differently")
	if strategy == "" {
		strategy = "mapped"
	}
	return append(enabled, unproven...), strategy, nil
}

func printDryRun(cmd *cobra.Command, p *planner.Plan, pairs []planner.Pair, strategy string) error {
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "would merge %d pairs of %s with the %s strategy:\n", len(pairs), p.Context.Executable.Path, strategy)
	for _, pair := range pairs {
		fmt.Fprintf(out, "  %s %-6s %s: host %s at %s+%#x (#%d), device %s at %s+%#x (#%d)\n", pair.ID, pair.Direction,
			humanBytes(pair.Bytes), pair.Host.Site.Call, filepath.Base(pair.Host.Site.Module), pair.Host.Site.Offset,
			pair.Host.Site.Ordinal, pair.Device.Site.Call, filepath.Base(pair.Device.Site.Module), pair.Device.Site.Offset,
			pair.Device.Site.Ordinal)
	}
	return nil
}

// runPlain runs the command as written, ending the way it did.
func runPlain(cmd *cobra.Command, argv []string) error {
	c := exec.Command(argv[0], argv[1:]...)
	c.Stdin, c.Stdout, c.Stderr = cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr()
	if err := c.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return fmt.Errorf("running %s: %w", argv[0], err)
		}
		return exitStatus(exit.ExitCode())
	}
	return nil
}

// planAndCommand checks the arguments of the commands that run a program on a plan:
// PLAN -- CMD [ARGS...].
func planAndCommand(cmd *cobra.Command, args []string) error {
	if len(args) < 2 || cmd.ArgsLenAtDash() != 1 {
		return errors.New("give the plan, then -- and the command")
	}
	return nil
}
