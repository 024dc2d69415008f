package planview

import (
	"fmt"
	"io"
	"strings"

	"github.com/echo-uma/echo/calibrate"
	"github.com/echo-uma/echo/internal/texttable"
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/planner"
)

// Calibration prints the plan's prediction (its one Forecast), then the variants side
// by side, each with that prediction's estimate, the speed-up its rounds measured paired with
// the baseline's, its verdict and how sure it is, the reason where it was refused; then how
// many rounds ran and why no more, and what the plan now says.
func Calibration(w io.Writer, r *calibrate.Result, p *plan.Plan, planPath string) error {
	f := planner.ForecastFor(p)
	fmt.Fprintln(w, ForecastLine(f))
	t := texttable.Columns{Headers: []string{"variant", "ms/iter", "spread", "predicted", "measured", "run ms", "verdict"},
		Right: []int{1, 2, 3, 4, 5}}
	row := func(name, predicted, measured string, v calibrate.Variant, verdict string) {
		t.Rows = append(t.Rows, []string{name, fmt.Sprintf("%.3f", v.MedianMS), fmt.Sprintf("%.3f", v.SpreadMS),
			predicted, measured, fmt.Sprintf("%.1f", v.RunMedianMS), verdict})
	}
	base := "as written"
	if r.Baseline.OutputDiff != "" {
		base = "output differs between its own runs: the program " + r.Baseline.OutputDiff
	}
	row("baseline", "", "1.00×", r.Baseline, base)
	for _, v := range r.Variants {
		verdict := v.Refusal()
		if v.Enabled {
			verdict = "enabled: " + v.Verdict
		}
		predicted := "–"
		if s := f.Speedup(v.Strategy); s > 0 {
			predicted = FormatSpeedup(s)
		}
		measured := "–"
		switch {
		case v.Paired != nil:
			measured = FormatSpeedup(v.Paired.Speedup)
		case v.MedianMS > 0:
			measured = FormatSpeedup(r.Baseline.MedianMS / v.MedianMS)
		}
		row(string(v.Strategy), predicted, measured, v, verdict)
	}
	if _, err := io.WriteString(w, t.Render()); err != nil {
		return err
	}
	fmt.Fprintln(w, roundsLine(r))
	fmt.Fprintln(w, energyLine(r.Energy(r.Chosen), r.Device.EnergySource))
	if len(r.Varying) > 0 {
		fmt.Fprintf(w, "not compared, as they differ between runs as written in their numbers alone: %s (--ignore names such lines)\n",
			strings.Join(r.Varying, ", "))
	}
	switch {
	case r.Chosen != "" && p.Context.Strategy != "":
		on := ""
		if p.Context.GPU != "" {
			on = " on " + p.Context.GPU
		}
		fmt.Fprintf(w, "\nenabled with the %s strategy%s\n", r.Chosen, on)
	default:
		for _, pair := range p.Pairs {
			if pair.Status == plan.StatusRefused && pair.Reason != "" {
				fmt.Fprintf(w, "\n%s refused: %s\n", pair.ID, pair.Reason)
				break
			}
		}
		if p.Context.Strategy == "" {
			fmt.Fprintln(w, "\nnothing enabled: the program runs as written")
		}
	}
	_, err := fmt.Fprintf(w, "wrote %s\n", planPath)
	return err
}

// roundsLine says how many paired rounds the verdicts rest on, how sure a verdict must be,
// and why calibration ran no more.
func roundsLine(r *calibrate.Result) string {
	line := fmt.Sprintf("%d paired rounds; a strategy is faster where its rounds show it %.0f%% faster or more, %.0f%% sure "+
		"(measured: the median of the rounds' speed-ups)", r.Rounds, 100*calibrate.MinGain, 100*calibrate.Confidence)
	if r.Stopped != "" {
		line += "; stopped: " + r.Stopped
	}
	return line
}
