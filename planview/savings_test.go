package planview

import (
	"strings"
	"testing"

	"github.com/echo-uma/echo/plan"
)

func TestSavingsLines(t *testing.T) {
	s := &plan.Savings{Strategy: "mapped", BytesSkipped: 8 << 20, CapacitySaved: 4 << 20,
		Finding: plan.Finding{TraceMS: 700, ValidateMS: 2000, CalibrateMS: 5400}, BreakEvenIterations: 1207, BreakEvenS: 9.2}
	got := strings.Join(savingsLines(s), "\n")
	for _, want := range []string{"skips 8.0 MiB of copies per iteration and frees 4.0 MiB of buffers (mapped)",
		"finding it took 8.1 s (trace 0.7, validation 2.0, calibration 5.4)", "pays back after 1207 iterations (9.2 s"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	s.BreakEvenIterations = 0
	if got := strings.Join(savingsLines(s), "\n"); !strings.Contains(got, "never pays back") {
		t.Errorf("a plan that saves nothing: %s", got)
	}
}

func TestEnergyLine(t *testing.T) {
	if got, want := energyLine(plan.Energy{}, ""), "energy per iteration: not measured (no NVML, no INA3221 rails)"; got != want {
		t.Errorf("energy line without a source: %q, want %q", got, want)
	}
	if got, want := energyLine(plan.Energy{}, "nvml"), "energy per iteration: not measured (the marked loop ran under 100 ms: "+
		"nvml's counter moves in steps coarser than its iterations)"; got != want {
		t.Errorf("not measured: %q, want %q", got, want)
	}
	e := plan.Energy{Source: "nvml", BeforeMJ: 412.5, AfterMJ: 130.25}
	if got, want := energyLine(e, "nvml"), "energy per iteration: 412.5 mJ as written, 130.2 mJ deployed (nvml)"; got != want {
		t.Errorf("measured: %q, want %q", got, want)
	}
}
