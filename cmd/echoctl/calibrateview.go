package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/echo-uma/echo/calibrate"
	"github.com/echo-uma/echo/planner"
)

// renderCalibration prints the variants side by side, each with its verdict and the reason
// where it was refused, and what the plan now says.
func renderCalibration(w io.Writer, r *calibrate.Result, p *planner.Plan, planPath string) error {
	t := columns{headers: []string{"variant", "ms/iter", "spread", "speed-up", "run ms", "verdict"}, right: []int{1, 2, 3, 4}}
	row := func(name string, v calibrate.Variant, verdict string) {
		t.rows = append(t.rows, []string{name, fmt.Sprintf("%.3f", v.MedianMS), fmt.Sprintf("%.3f", v.SpreadMS),
			fmt.Sprintf("%.2f×", r.Baseline.MedianMS/v.MedianMS), fmt.Sprintf("%.1f", v.RunMedianMS), verdict})
	}
	base := "as written"
	if r.Baseline.OutputDiff != "" {
		base = "output differs between its own runs: the program " + r.Baseline.OutputDiff
	}
	row("baseline", r.Baseline, base)
	for _, v := range r.Variants {
		verdict := v.Refusal()
		if v.Enabled {
			verdict = "enabled: " + v.Verdict
		}
		row(string(v.Strategy), v, verdict)
	}
	if _, err := io.WriteString(w, t.render()); err != nil {
		return err
	}
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
			if pair.Status == planner.StatusRefused && pair.Reason != "" {
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
