package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/echo-uma/echo/internal/units"
	"github.com/echo-uma/echo/pipeline"
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/planview"
	"github.com/echo-uma/echo/runner"
)

type runOptions struct {
	*globalOptions
	strategy string
	dryRun   bool
	force    bool
	printEnv bool
	plans    string // a plan directory instead of PLAN
}

func newRunCmd(g *globalOptions) *cobra.Command {
	o := &runOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "run PLAN -- CMD [ARGS...] | run --plans DIR -- CMD [ARGS...]",
		Short: "Run a program with its plan's buffer pairs merged",
		Long: `run launches CMD with Echo's preload library, which serves every enabled pair of PLAN
with the plan's strategy: a merge (mapped, system) gives each side a buffer of the library's
and makes them one buffer at their first linking copy made at one of the plan's copy sites
(until then the GPU reaches no memory of the program's but the device side's), then turns
the copies between them into the waits they also were;
pinned keeps the copies but serves the host allocations at the pair's site from a pool of
page-locked memory (capped at ECHO_PINNED_CAP bytes, default 2 GiB; past it, allocations are
made as written), and every asynchronous copy on a pooled buffer still returns only once its
host side is read or written, as from pageable memory.

The library first checks that the plan was made for this executable (and, before a
merge, that a calibrated plan was calibrated on this GPU, driver and runtime; pinned,
which keeps every copy, is not checked against the GPU); on any mismatch, unreadable
plan or failed allocation the program runs untouched and one line on stderr says why
(set ECHO_QUIET to silence it). echoctl exits with the program's status.

run keeps what it derives from PLAN in Echo's cache (deployments/ under /var/cache/echo for
root, ~/.cache/echo for others, ECHO_CACHE_DIR to choose) by the SHA-256 of the plan's bytes:
the next run of the same plan starts without reading it again. --strategy and --force derive
it afresh.

A plan that was never calibrated has no enabled pair and no chosen strategy: run refuses it
unless --force, which merges its candidate and validated pairs with --strategy (default
mapped).

--print-env runs nothing: it writes the deployment beside the plan (PLAN.shim) and prints
the environment (LD_PRELOAD, ECHO_PLAN) for programs that something else starts: a
launcher, a service manager, a container. The library makes the same checks there.

--plans DIR runs CMD on the plan directory DIR instead (echoctl plans): the library picks
the deployment there for this executable and GPU, or runs the program untouched and says
why. With --print-env it prints LD_PRELOAD and ECHO_PLAN_DIR.`,
		Example: `  echoctl run app.plan -- ./app --size 64M
  echoctl run --dry-run app.plan -- ./app
  eval "$(echoctl run --print-env app.plan -- ./app)"; mpirun -x LD_PRELOAD -x ECHO_PLAN ./app
  echoctl run --force --strategy pinned trace.bin.plan -- ./app
  echoctl run --plans /srv/echo/plans -- ./app`,
		Args: func(cmd *cobra.Command, args []string) error {
			if o.plans != "" {
				return dirAndCommand(cmd, args)
			}
			return planAndCommand(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.plans != "" {
				return runPlans(cmd, o, args)
			}
			return runRun(cmd, o, args[0], args[1:])
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.strategy, "strategy", "", "serve the pairs with this strategy: mapped, system or pinned (default: the calibrated one)")
	f.BoolVar(&o.dryRun, "dry-run", false, "print what would be merged and run nothing")
	f.BoolVar(&o.force, "force", false, "deploy a plan that was never calibrated")
	f.BoolVar(&o.printEnv, "print-env", false, "print the environment that deploys the plan (with --json: as an object) and run nothing")
	f.StringVar(&o.plans, "plans", "", "run on the plan directory DIR (echoctl plans), not on one PLAN")
	return cmd
}

func runRun(cmd *cobra.Command, o *runOptions, planPath string, argv []string) error {
	if o.json && !o.dryRun && !o.printEnv {
		return errors.New("--json prints what --dry-run or --print-env would do: a run's standard output is the program's")
	}
	var strategy plan.Strategy
	if o.strategy != "" {
		var err error
		if strategy, err = plan.ParseStrategy(o.strategy); err != nil {
			return fmt.Errorf("--strategy: %w", err)
		}
	}
	if !o.dryRun && !o.printEnv {
		k, err := pipeline.ForRun(planPath, argv, strategy, o.force, cmd.ErrOrStderr())
		switch {
		case err != nil:
			return err
		case k.Untouched != "":
			return runAsWritten(cmd, argv, k.Untouched)
		}
		return runDeployed(cmd, o, argv, k.Compact, k.Pairs, k.Strategy)
	}
	p, err := pipeline.LoadPlanFor(planPath, argv)
	if err != nil {
		return err
	}
	d, err := pipeline.Deploy(p, strategy, o.force, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	if o.dryRun && o.json {
		return printJSON(cmd.OutOrStdout(), planview.DryRunDocOf(schemaRun, p, d, argv))
	} else if o.dryRun {
		return planview.DryRun(cmd.OutOrStdout(), cmd.ErrOrStderr(), p, d, argv)
	}
	if d.Untouched != "" {
		return errors.New(d.Untouched + ": there is nothing to preload")
	}
	return printRunEnv(cmd, o, p, planPath, d.Pairs, d.Strategy)
}

// runDeployed runs argv with the shim on compact, a deployment of npairs pairs. From here on
// echoctl is the program: its signals go to the program, and echoctl ends with the program's
// status, whatever the plan did.
func runDeployed(cmd *cobra.Command, o *runOptions, argv []string, compact string, npairs int, strategy plan.Strategy) error {
	stderr := cmd.ErrOrStderr()
	stdio := runner.IO{Stdin: cmd.InOrStdin(), Stdout: stdoutFile(cmd.OutOrStdout()), Stderr: stderr, Forward: true}
	run, err := runner.Run(cmd.Context(), argv, compact, stdio)
	if errors.Is(err, runner.ErrNoReport) {
		fmt.Fprintf(stderr, "echoctl: warning: %v\n", err)
	} else if err != nil {
		return err
	}
	// Pairs whose planned buffers were allocated but never joined by the plan's copy were
	// left as written: always said, beside the count of pairs merged.
	ids := pipeline.Unlinked(run.Report, strategy)
	fell := run.Report.Fallbacks + run.Report.Pinned.Fallbacks
	if o.verbose > 0 || len(ids) > 0 || fell > 0 || !run.Report.Active && !run.Signaled {
		if pin := run.Report.Pinned; strategy == plan.StrategyPinned {
			// Pinned serves host allocation sites, one a deployment line, whatever pairs share it.
			fmt.Fprintf(stderr, "echoctl: %d of %d host allocation sites served, for %d pairs (pinned): %d page-locked "+
				"buffers (%s), %d reuses, %d asynchronous copies waited for, %d fallbacks\n", run.Report.Served,
				len(run.Report.Pairs), npairs, pin.Buffers, units.Bytes(pin.Bytes), pin.Reused, pin.Syncs, pin.Fallbacks)
		} else {
			more := ""
			if len(ids) > 0 {
				more = fmt.Sprintf("; %d more (%s) left as written: no linking copy at the plan's sites joined their "+
					"planned buffers (another allocation in a planned slot, or a plan that is not this program's)",
					len(ids), strings.Join(ids, ", "))
			}
			fmt.Fprintf(stderr, "echoctl: %d of %d pairs merged (%s), %d copies elided, %d fallbacks%s\n",
				run.Report.Served, npairs, strategy, run.Report.CopiesElided, run.Report.Fallbacks, more)
		}
		printFallbacks(stderr, run.Report)
		printProcesses(stderr, run.Processes)
	}
	return statusError(run.ExitCode)
}

// planAndCommand checks the arguments of the commands that run a program on a plan:
// PLAN -- CMD [ARGS...].
func planAndCommand(cmd *cobra.Command, args []string) error {
	if len(args) < 2 || cmd.ArgsLenAtDash() != 1 {
		return errors.New("give the plan, then -- and the command")
	}
	return nil
}
