package main

import (
	"fmt"
	"io"
	"time"

	"github.com/echo-uma/echo/calibrate"
	"github.com/echo-uma/echo/internal/units"
	"github.com/echo-uma/echo/planner"
)

// msSince is the wall time since t, in milliseconds.
func msSince(t time.Time) float64 { return float64(time.Since(t).Nanoseconds()) / 1e6 }

// predictionLine says the best strategy's estimate and, labelled as such, the Amdahl bound.
func predictionLine(p *planner.Plan) string {
	bound := fmt.Sprintf("Amdahl bound %.2f×", p.PredictedSpeedup)
	best := planner.EstimateFor(p.Estimates, p.Context.Strategy) // the strategy calibration chose
	if best == nil {
		best = planner.Best(p.Estimates)
	}
	if best == nil {
		return bound
	}
	return fmt.Sprintf("predicted %.2f× (%s), %s", best.Speedup, best.Strategy, bound)
}

// savingsOf is what the calibrated plan saves, from the chosen strategy's measured median,
// or nil when calibration enabled nothing.
func savingsOf(p *planner.Plan, cal *calibrate.Result, found planner.Finding) *planner.Savings {
	if cal.Chosen == "" {
		return nil
	}
	for _, v := range cal.Variants {
		if v.Strategy == cal.Chosen {
			s := planner.NewSavings(p, cal.Chosen, cal.Baseline.MedianMS, v.MedianMS, found)
			s.Energy = cal.Energy(cal.Chosen)
			return s
		}
	}
	return nil
}

// renderSavings prints the costs and savings of the enabled plan in a few lines after the
// calibration table (paper §4.3–4.4).
func renderSavings(w io.Writer, s *planner.Savings) {
	if s == nil {
		return
	}
	for _, line := range savingsLines(s) {
		fmt.Fprintln(w, line)
	}
}

// savingsLines are the lines renderSavings prints.
func savingsLines(s *planner.Savings) []string {
	f := s.Finding
	lines := []string{
		fmt.Sprintf("skips %s of copies per iteration and frees %s of buffers (%s)",
			units.Bytes(s.BytesSkipped), units.Bytes(s.CapacitySaved), s.Strategy),
		fmt.Sprintf("finding it took %.1f s (trace %.1f, validation %.1f, calibration %.1f)",
			f.TotalMS()/1000, f.TraceMS/1000, f.ValidateMS/1000, f.CalibrateMS/1000),
	}
	if s.BreakEvenIterations > 0 {
		lines = append(lines, fmt.Sprintf("pays back after %.0f iterations (%.1f s of the run as written)",
			s.BreakEvenIterations, s.BreakEvenS))
	} else {
		lines = append(lines, "never pays back: an iteration saves nothing")
	}
	return lines // the energy is calibration's line (energyLine), printed above
}

// energyLine says a marked iteration's energy as written and as deployed, where the machine
// measured it (shim/energy.c).
func energyLine(e planner.Energy) string {
	if !e.Measured() {
		return "energy per iteration: not measured (no NVML, no INA3221 rails)"
	}
	return fmt.Sprintf("energy per iteration: %.1f mJ as written, %.1f mJ deployed (%s)", e.BeforeMJ, e.AfterMJ, e.Source)
}
