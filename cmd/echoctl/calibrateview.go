package main

import (
	"fmt"
	"io"

	"github.com/echo-uma/echo/calibrate"
	"github.com/echo-uma/echo/planner"
)

// renderCalibration prints the variants side by side and what the plan now says.
func renderCalibration(w io.Writer, r *calibrate.Result, p *planner.Plan, planPath string) error {
	t := columns{headers: []string{"variant", "ms/iter", "spread", "speed-up", "output"}, right: []int{1, 2, 3}}
	row := func(name string, v calibrate.Variant) {
		out := "same"
		switch {
		case v.OutputDiff != "":
			out = "DIFFERS: " + v.OutputDiff
		case v.Untouched != "":
			out = "ran untouched: " + v.Untouched
		}
		t.rows = append(t.rows, []string{name, fmt.Sprintf("%.3f", v.MedianMS), fmt.Sprintf("%.3f", v.SpreadMS),
			fmt.Sprintf("%.2f×", r.Baseline.MedianMS/v.MedianMS), out})
	}
	row("baseline", r.Baseline)
	for _, v := range r.Variants {
		row(v.Strategy, v)
	}
	if _, err := io.WriteString(w, t.render()); err != nil {
		return err
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
