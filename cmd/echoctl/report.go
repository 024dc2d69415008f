package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/echo-uma/echo/internal/outfile"
	"github.com/echo-uma/echo/pipeline"
	"github.com/echo-uma/echo/plan"
)

// reportOptions are the flags of `echoctl report`.
type reportOptions struct {
	global *globalOptions
	trace  string // "": the plan's own trace, where it is found
	output string // "": PLAN.html; "-": stdout
}

func newReportCmd(global *globalOptions) *cobra.Command {
	opts := &reportOptions{global: global}
	cmd := &cobra.Command{
		Use:   "report PLAN",
		Short: "Write a plan, its trace and its calibration as one self-contained HTML page",
		Long: `report draws what a plan decided as one HTML file for a person to look at: one
iteration of the program's loop before and after the plan (every copy, kernel launch and
synchronize per stream; the copies the plan removes gone), the copy share of each copy
site, the pairs with their status, strategies and reasons, the rejected copy sites, and
the calibration rounds of every strategy with their spread.

The page is self-contained: its pictures are inline SVG drawn by echoctl, it has no
external scripts, styles, fonts or images, and its Content-Security-Policy forbids any
load, so it opens the same from a CI artifact, a mail or a machine without network.

The iteration and the traced copy times come from the trace the plan was made from: the
path the plan records, or PLAN.trace (optimize's), or the plan's path without .plan
(plan's), whichever holds that trace; --trace names another. Without one the page has
the plan's figures only. The calibration rounds come from PLAN.calibration, which
calibrate and optimize write beside the plan; a plan calibrated before they did shows
the verdict only.`,
		Example: `  sudo echoctl optimize -o app.plan -- ./app  # writes app.plan, app.plan.trace, app.plan.calibration
  echoctl report app.plan                     # writes app.plan.html
  echoctl report app.bin.plan --trace app.bin -o /tmp/app.html
  echoctl report app.plan -o - > app.html`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReport(cmd.OutOrStdout(), args[0], opts)
		},
	}
	cmd.Flags().StringVar(&opts.trace, "trace", "", "trace the plan was made from (default: the plan's, where it is found)")
	cmd.Flags().StringVarP(&opts.output, "output", "o", "", `HTML file to write (default PLAN.html; "-": standard output)`)
	return cmd
}

// reportJSON is what `report --json` prints: where the page went and what it shows.
type reportJSON struct {
	Schema      string `json:"schema"` // schemaReport
	Output      string `json:"output"`
	Plan        string `json:"plan"`
	Trace       string `json:"trace,omitempty"` // "" when there was none
	Pairs       int    `json:"pairs"`
	Timeline    bool   `json:"timeline"`              // an iteration is drawn
	NoTimeline  string `json:"no_timeline,omitempty"` // why not
	Calibration bool   `json:"calibration"`           // the rounds are charted
}

func runReport(stdout io.Writer, planPath string, opts *reportOptions) error {
	outPath := opts.output
	if outPath == "" {
		outPath = plan.SideFile(planPath, plan.SideReport)
	}
	if outPath == outfile.Stdout && opts.global.json {
		return fmt.Errorf("--json with -o -: the page and the JSON would both go to standard output; write the page to a file")
	}
	pg, err := pipeline.WriteReport(stdout, planPath, opts.trace, outPath)
	if err != nil {
		return err
	}
	if outPath == outfile.Stdout {
		return nil
	}
	if opts.global.json {
		return printJSON(stdout, reportJSON{Schema: schemaReport, Output: outPath, Plan: planPath, Trace: pg.TracePath,
			Pairs: len(pg.Plan.Pairs), Timeline: pg.Timeline.Missing == "", NoTimeline: pg.Timeline.Missing,
			Calibration: pg.Calibration.Record != nil})
	}
	_, err = fmt.Fprintf(stdout, "wrote %s\n", outPath)
	if err == nil && pg.Timeline.Missing != "" {
		_, err = fmt.Fprintf(stdout, "(no timeline: %s)\n", pg.Timeline.Missing)
	}
	return err
}
