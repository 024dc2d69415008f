package main

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/echo-uma/echo/pipeline"
	"github.com/echo-uma/echo/plandir"
	"github.com/echo-uma/echo/planner"
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
		Short: "Add calibrated plans and their deployments to a plan directory",
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
				if err := addPlan(cmd.ErrOrStderr(), g, args[0], planPath); err != nil {
					return fmt.Errorf("adding %s: %w", planPath, err)
				}
			}
			return nil
		},
	}
}

func addPlan(stderr io.Writer, g *globalOptions, dir, planPath string) error {
	p, err := planner.ReadFile(planPath)
	if err != nil {
		return err
	}
	compact, d, err := deployed(p, g)
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

// deployed is the deployment echoctl run would give the shim for p, with no --force or
// --strategy: the calibrated pairs and strategy.
func deployed(p *planner.Plan, g *globalOptions) (string, pipeline.Deployment, error) {
	d, err := pipeline.Deploy(p, "", false, io.Discard)
	if err != nil {
		return "", d, err
	}
	if d.Untouched != "" {
		return "", d, fmt.Errorf("%s: there is nothing to deploy", d.Untouched)
	}
	compact, err := planner.Compact(p, d.Pairs, d.Strategy, planner.ModeDeploy)
	return compact, d, err
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

// planRow is one plan of `plans ls` (echo.plans/1 in docs/json.md).
type planRow struct {
	Name       string `json:"name"`
	Plan       string `json:"plan"`       // its file, "" for a deployment without one
	Deployment string `json:"deployment"` // the file the shim reads, "" when missing
	Executable struct {
		Path    string `json:"path"`
		BuildID string `json:"build_id"`
		Size    int64  `json:"size"`
	} `json:"executable"`
	GPU               string    `json:"gpu"`
	ComputeCapability string    `json:"compute_capability"`
	Driver            int       `json:"driver"`
	Runtime           int       `json:"runtime"`
	Strategy          string    `json:"strategy"`
	Pairs             int       `json:"pairs"` // enabled pairs the deployment serves
	Created           time.Time `json:"created"`
	Status            string    `json:"status"`  // ok, missing, stale, orphan, unreadable, undeployable, conflict
	Problem           string    `json:"problem"` // what is wrong and what to do, "" when ok
}

func planRows(dir string, g *globalOptions) ([]planRow, error) {
	entries, err := plandir.Read(dir)
	if err != nil {
		return nil, err
	}
	var rows []planRow
	for _, e := range entries {
		r := planRow{Name: e.Name, Status: "ok"}
		if e.Deployment != nil {
			r.Deployment = e.DeploymentPath(dir)
		}
		if e.Plan != nil || e.Err != nil {
			r.Plan = e.PlanPath(dir)
		}
		problem := func(status, format string, a ...any) {
			if r.Status == "ok" {
				r.Status, r.Problem = status, fmt.Sprintf(format, a...)
			}
		}
		if e.Err != nil {
			problem("unreadable", "%v: the shim skips a deployment it cannot read; remove or replace it", e.Err)
		}
		if p := e.Plan; p != nil {
			c := p.Context
			r.Executable.Path, r.Executable.BuildID, r.Executable.Size = c.Executable.Path, c.Executable.BuildID, c.Executable.Size
			r.GPU, r.ComputeCapability, r.Driver, r.Runtime, r.Created = c.GPU, c.ComputeCapability, c.Driver, c.Runtime, p.Created
			compact, d, err := deployed(p, g)
			r.Strategy, r.Pairs = d.Strategy, len(d.Pairs)
			switch {
			case err != nil:
				problem("undeployable", "%v", err)
			case e.Deployment == nil:
				problem("missing", "no deployment beside it, so the shim does not see it: echoctl plans add %s %s", dir, r.Plan)
			case !bytes.Equal(e.Deployment, []byte(compact)):
				problem("stale", "its deployment is not the plan's: echoctl plans add %s %s", dir, r.Plan)
			}
			if other := plandir.Conflict(entries, e.Name, p); other != "" {
				problem("conflict", "%s is for the same executable and GPU: the shim runs the program untouched until one goes", other)
			}
		} else if e.Err == nil {
			problem("orphan", "a deployment without its plan: the shim uses it, but what it is for cannot be listed; add its plan")
		}
		rows = append(rows, r)
	}
	return rows, nil
}

func listPlans(out io.Writer, g *globalOptions, dir string) error {
	rows, err := planRows(dir, g)
	if err != nil {
		return err
	}
	if g.json {
		if rows == nil {
			rows = []planRow{}
		}
		return printJSON(out, struct {
			Schema string    `json:"schema"`
			Dir    string    `json:"dir"`
			Plans  []planRow `json:"plans"`
		}{schemaPlans, dir, rows})
	}
	t := columns{headers: []string{"NAME", "EXECUTABLE", "BUILD-ID", "GPU", "STRATEGY", "PAIRS", "CREATED", "STATUS"}, right: []int{5}, rule: true}
	for _, r := range rows {
		id := r.Executable.BuildID
		if len(id) > 12 {
			id = id[:12]
		} else if id == "" && r.Executable.Size > 0 {
			id = fmt.Sprintf("size %d", r.Executable.Size)
		}
		gpu := r.GPU
		if r.ComputeCapability != "" {
			gpu += " (" + r.ComputeCapability + ")"
		}
		created := ""
		if !r.Created.IsZero() {
			created = r.Created.Local().Format("2006-01-02 15:04")
		}
		status := r.Status
		if r.Problem != "" {
			status += ": " + r.Problem
		}
		t.rows = append(t.rows, []string{r.Name, r.Executable.Path, id, gpu, r.Strategy, fmt.Sprint(r.Pairs), created, status})
	}
	_, err = io.WriteString(out, t.render())
	return err
}
