package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/echo-uma/echo/pipeline"
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/plandir"
	"github.com/echo-uma/echo/planview"
)

func newPlansCmd(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plans",
		Short: "Keep a directory of plans that one preload library serves to every program and GPU",
		Long: `A plan directory holds calibrated plans, each beside its deployment (NAME.plan and
NAME.plan.shim). Synced to every node of a fleet, it is served by the preload library with
ECHO_PLAN_DIR=DIR (or echoctl run --plans DIR -- CMD): at start the library keeps the
deployments made for the running executable, and at the first allocation at one of their
sites chooses the one calibrated on this GPU (name, compute capability, driver, runtime).
None, or two: the program runs untouched, and one line on stderr says why. It reads only a
directory root or this user owns that nobody else may write, and in it only regular files of
those owners (no links, no FIFOs); a file it cannot use is skipped: said once by echoctl run
--plans, by the library itself only under ECHO_VERBOSE=1, and listed by plans ls.`,
	}
	cmd.AddCommand(newPlansAddCmd(g), newPlansLsCmd(g))
	return cmd
}

func newPlansAddCmd(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "add DIR PLAN...",
		Short: "Add calibrated plans and their compact plans to a plan directory",
		Long: `add copies each PLAN into DIR (made if missing) with the deployment echoctl run would
use beside it. Only a calibrated plan that enables pairs is added: on a fleet, what runs
is what calibration measured. A plan for the executable and GPU of another plan in DIR is
refused (the library would run that program untouched); a plan of the same name replaces
the one there.`,
		Example: `  echoctl plans add /srv/echo/plans app.plan
  ECHO_PLAN_DIR=/srv/echo/plans LD_PRELOAD=... ./app`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, planPath := range args[1:] {
				if err := addPlan(cmd.ErrOrStderr(), args[0], planPath); err != nil {
					return fmt.Errorf("adding %s: %w", planPath, err)
				}
			}
			return nil
		},
	}
}

func addPlan(stderr io.Writer, dir, planPath string) error {
	p, err := plan.ReadFile(planPath)
	if err != nil {
		return err
	}
	compact, d, err := pipeline.Deployed(p)
	if err != nil {
		return err
	}
	name := plandir.Name(planPath)
	if err := plandir.Add(dir, name, p, compact); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "echoctl: %s: %d pairs (%s) for %s on %s\n", name, len(d.Pairs), d.Strategy,
		filepath.Base(p.Context.Executable.Path), p.Context.GPU)
	return nil
}

func newPlansLsCmd(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "ls DIR",
		Short: "List what each plan of a plan directory is for, and what is wrong with any",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return listPlans(cmd.OutOrStdout(), g, args[0])
		},
	}
}

func listPlans(out io.Writer, g *globalOptions, dir string) error {
	rows, err := plandir.Audit(dir)
	if err != nil {
		return err
	}
	if g.json {
		if rows == nil {
			rows = []plandir.Row{}
		}
		return printJSON(out, struct {
			Schema string        `json:"schema"`
			Dir    string        `json:"dir"`
			Plans  []plandir.Row `json:"plans"`
		}{schemaPlans, dir, rows})
	}
	_, err = io.WriteString(out, planview.PlanDir(rows))
	return err
}
