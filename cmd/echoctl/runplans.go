package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/echo-uma/echo/internal/shell"
	"github.com/echo-uma/echo/internal/texttable"
	"github.com/echo-uma/echo/runner"
)

// dirAndCommand checks the arguments of run --plans DIR: -- CMD [ARGS...], no PLAN.
func dirAndCommand(cmd *cobra.Command, args []string) error {
	if len(args) < 1 || cmd.ArgsLenAtDash() != 0 {
		return errors.New("with --plans, give no plan: only -- and the command")
	}
	return nil
}

// runPlans runs argv on a plan directory: the shim chooses the deployment, so echoctl
// checks nothing of a plan itself; it says what the shim did where the shim kept quiet
// (a program no plan there is for).
func runPlans(cmd *cobra.Command, o *runOptions, argv []string) error {
	switch {
	case o.dryRun || o.force || o.strategy != "":
		return errors.New("--plans runs what the directory's compact plans say: --dry-run, --force and --strategy do not apply (echoctl plans ls shows them)")
	case o.json:
		return errors.New("--plans has no --json output: echoctl plans ls --json describes the directory")
	}
	if st, err := os.Stat(o.plans); err != nil || !st.IsDir() {
		return fmt.Errorf("--plans %s: not a directory", o.plans)
	}
	if o.printEnv {
		return printPlansEnv(cmd, o)
	}
	stderr := cmd.ErrOrStderr()
	stdio := runner.IO{Stdin: cmd.InOrStdin(), Stdout: stdoutFile(cmd.OutOrStdout()), Stderr: stderr, Forward: true}
	run, err := runner.RunDir(cmd.Context(), argv, o.plans, stdio)
	if errors.Is(err, runner.ErrNoReport) {
		fmt.Fprintf(stderr, "echoctl: warning: %v\n", err)
	} else if err != nil {
		return err
	}
	r := run.Report
	if r.Skipped > 0 && os.Getenv("ECHO_QUIET") == "" {
		// Said here, once, not by each process of the environment (shim/plandir.c).
		fmt.Fprintf(stderr, "echoctl: skipped %d unusable file%s in the plan directory %s; the first, %s "+
			"(echoctl plans ls %[3]s lists them)\n", r.Skipped, texttable.Plural(r.Skipped, "", "s"), o.plans, r.SkippedFirst)
	}
	switch {
	case run.Signaled:
	case !r.Active && !r.Said && r.Reason != "" && os.Getenv("ECHO_QUIET") == "":
		fmt.Fprintf(stderr, "echoctl: the program ran untouched: %s\n", r.Reason)
	case r.Active && o.verbose > 0:
		fmt.Fprintf(stderr, "echoctl: plan %s: %d pairs served, %d copies elided, %d fallbacks\n", r.Plan, r.Served,
			r.CopiesElided, r.Fallbacks)
	}
	return statusError(run.ExitCode)
}

// printPlansEnv prints the environment that serves the plan directory to programs something
// else starts.
func printPlansEnv(cmd *cobra.Command, o *runOptions) error {
	shim, err := runner.FindShim()
	if err != nil {
		return err
	}
	if shim, err = filepath.Abs(shim); err != nil {
		return err
	}
	dir, err := filepath.Abs(o.plans)
	if err != nil {
		return err
	}
	env := [][2]string{{"LD_PRELOAD", shim}, {"ECHO_PLAN_DIR", dir}}
	out := cmd.OutOrStdout()
	for _, kv := range env {
		fmt.Fprintf(out, "export %s=%s\n", kv[0], shell.Quote(kv[1]))
	}
	return nil
}
