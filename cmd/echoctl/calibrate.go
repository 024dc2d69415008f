package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/echo-uma/echo/calibrate"
	"github.com/echo-uma/echo/internal/outfile"
	"github.com/echo-uma/echo/internal/texttable"
	"github.com/echo-uma/echo/pipeline"
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/planview"
)

type calibrateOptions struct {
	*globalOptions
	calibrationFlags
	strategies  []string
	output      string
	unvalidated bool
}

func newCalibrateCmd(g *globalOptions) *cobra.Command {
	o := &calibrateOptions{globalOptions: g, calibrationFlags: defaultCalibrationFlags()}
	cmd := &cobra.Command{
		Use:   "calibrate PLAN -- CMD [ARGS...]",
		Short: "Measure whether merging pays, and enable the plan only where it does",
		Long: `calibrate runs CMD as written (the preload library only timing its loop) and with the
plan's pairs merged by each applicable strategy (mapped, and system where the device
reaches pageable memory) and pinned, alternating, for --rounds rounds, and for more rounds,
up to --budget, while a strategy that could win is undecided. A strategy is enabled only if
its rounds, each paired with the baseline's run beside it, show it 2 % faster or more, 99 %
sure (a sign test: seven rounds all won are the fewest that can), and only if the
program printed and returned exactly what it did as written (--ignore drops lines that carry
timings from that comparison; a line that differs between runs as written in its numbers
alone is compared by its words only, and said so); otherwise the pairs are refused with
"output differs", keeping their strategies, so that calibrating again (with --ignore, say)
measures them afresh. Each
run is also timed whole: a strategy is enabled only where its complete run is faster, or its
iterations repay its set-up (page-locking, pools); else "set-up not repaid". Every row of
the table says its verdict and how sure it is. The
plan is updated in place (or written to -o) with the numbers, the device and the strategy.

Pairs that were never validated are calibrated only with --unvalidated: the output
comparison then is the only check that merging keeps the program's results.`,
		Example: `  echoctl calibrate --ignore '^iter_ms=' app.plan -- ./app --size 64M`,
		Args:    planAndCommand,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCalibrate(cmd, o, args[0], args[1:])
		},
	}
	f := cmd.Flags()
	o.calibrationFlags.add(f)
	f.StringSliceVar(&o.strategies, "strategy", nil, "strategies to try (default: all the device allows)")
	f.StringVarP(&o.output, "output", "o", "", `write the calibrated plan here instead of over PLAN ("-": standard output)`)
	f.BoolVar(&o.unvalidated, "unvalidated", false, "calibrate candidate pairs that were never validated")
	return cmd
}

func runCalibrate(cmd *cobra.Command, o *calibrateOptions, planPath string, argv []string) error {
	if err := o.calibrationFlags.check(); err != nil {
		return err
	}
	if err := oneStdout(o.output, o.json, "plan"); err != nil {
		return err
	}
	tried, err := strategies(o.strategies)
	if err != nil {
		return err
	}
	p, err := pipeline.LoadPlanFor(planPath, argv)
	if err != nil {
		return err
	}
	pairs, again := pipeline.PairsToCalibrate(p, o.unvalidated)
	if len(again) > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "calibrate: measuring again %d %s an earlier calibration refused (%s: %s)\n",
			len(again), texttable.Plural(len(again), "pair", "pairs"), again[0].ID, again[0].Reason)
	}
	if len(pairs) == 0 {
		return errors.New("no pair to calibrate: validate the plan first (echoctl validate), or calibrate its " +
			"candidates unvalidated with --unvalidated")
	}
	stderr := cmd.ErrOrStderr()
	// What the enabled plan saves goes into the plan, for plan --json and the report; finding
	// it is only this calibration's time here (optimize adds the trace's and validation's).
	res, err := pipeline.Calibrate(cmd.Context(), p, pairs, argv, calibrate.Options{
		Rounds: o.rounds, Budget: budgetOption(o.budget), Ignore: o.ignore.re, Strategies: tried,
		Progress: func(format string, args ...any) { fmt.Fprintf(stderr, "calibrate: "+format+"\n", args...) },
	}, plan.Finding{})
	if err != nil {
		return err
	}
	out := o.output
	if out == "" {
		out = planPath
	}
	if err := writePlan(cmd, out, p); err != nil {
		return err
	}
	if out != outfile.Stdout {
		if err := calibrate.WriteRecord(out, p, res); err != nil { // the rounds, for echoctl report
			return err
		}
	}
	if out == outfile.Stdout {
		return planview.Calibration(cmd.ErrOrStderr(), res, p, out) // the plan is on stdout
	}
	if o.json {
		return printJSON(cmd.OutOrStdout(), planview.CalibrationDocOf(schemaCalibrate, out, p, res, ""))
	}
	return planview.Calibration(cmd.OutOrStdout(), res, p, out)
}

// strategies are the --strategy names, each one Echo serves.
func strategies(names []string) ([]plan.Strategy, error) {
	var out []plan.Strategy
	for _, n := range names {
		s, err := plan.ParseStrategy(n)
		if err != nil {
			return nil, fmt.Errorf("--strategy: %w", err)
		}
		out = append(out, s)
	}
	return out, nil
}
