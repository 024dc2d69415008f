package planview

import (
	"fmt"
	"io"

	"github.com/echo-uma/echo/internal/units"
	"github.com/echo-uma/echo/plan"
)

// Savings prints the costs and savings of the enabled plan in a few lines after the
// calibration table (paper §4.3–4.4).
func Savings(w io.Writer, s *plan.Savings) {
	if s == nil {
		return
	}
	for _, line := range savingsLines(s) {
		fmt.Fprintln(w, line)
	}
}

// savingsLines are the lines Savings prints.
func savingsLines(s *plan.Savings) []string {
	f := s.Finding
	lines := []string{
		fmt.Sprintf("skips %s of copies per iteration and frees %s of buffers (%s)",
			units.Bytes(s.BytesSkipped), units.Bytes(s.CapacitySaved), s.Strategy),
		fmt.Sprintf("finding it took %.1f s (trace %.1f, validation %.1f, calibration %.1f)",
			f.TotalMS()/1000, f.TraceMS/1000, f.ValidateMS/1000, f.CalibrateMS/1000),
	}
	lines = append(lines, breakEvenLine(s))
	return lines // the energy is calibration's line (energyLine), printed above
}

// breakEvenLine says the plan's one break-even (plan.BreakEven): finding the plan and the
// set-up each run pays, repaid by the iterations' saving.
func breakEvenLine(s *plan.Savings) string {
	setup := ""
	if s.SetupMS > 0 && s.RunIterations > 0 {
		setup = fmt.Sprintf(" and each run's %.1f ms of set-up", s.SetupMS)
	}
	switch {
	case s.BreakEvenIterations > 0:
		return fmt.Sprintf("pays back after %.0f iterations (%.1f s of the run as written): finding it%s, repaid by "+
			"%.3f ms saved per iteration", s.BreakEvenIterations, s.BreakEvenS, setup, s.BeforeMS-s.AfterMS)
	case s.BeforeMS > s.AfterMS:
		return fmt.Sprintf("never pays back: each run's set-up (%.1f ms) takes what its %d iterations save", s.SetupMS,
			s.RunIterations)
	}
	return "never pays back: an iteration saves nothing"
}

// energyLine says a marked iteration's energy as written and as deployed, where the machine
// measured it (shim/energy.c); source is what the machine measures energy with, "" nothing.
func energyLine(e plan.Energy, source string) string {
	switch {
	case !e.Measured() && source != "":
		return "energy per iteration: not measured (the marked loop ran under 100 ms: " + source +
			"'s counter moves in steps coarser than its iterations)"
	case !e.Measured():
		return "energy per iteration: not measured (no NVML, no INA3221 rails)"
	}
	return fmt.Sprintf("energy per iteration: %.1f mJ as written, %.1f mJ deployed (%s)", e.BeforeMJ, e.AfterMJ, e.Source)
}
