package runner_test

import (
	"path/filepath"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/planner"
)

// The shim reads the GPU's energy through NVML where libnvidia-ml.so.1 loads: the stand-in
// in testdata/nvml (its counter grows with the clock) is found first on LD_LIBRARY_PATH, so
// the real dlopen path runs, and the report gives the run's energy and a marked iteration's.
// Without the library the report says "not measured" (source "") and the run is the same.
func TestReportEnergy(t *testing.T) {
	testenv.RequireRoot(t)
	args := []string{"--size", "1M", "--iters", "5", "--warmup", "1"}
	p, _ := testenv.Plan(t, "stream", args...)
	compact, err := planner.Compact(p, nil, "mapped", planner.ModeMeasure)
	if err != nil {
		t.Fatal(err)
	}
	argv := append([]string{testenv.Built(t, "workloads/stream")}, args...)
	fake := filepath.Dir(testenv.Built(t, "tests/nvml/libnvidia-ml.so.1"))

	res := deploy(t, compact, []string{delay, "LD_LIBRARY_PATH=" + fake}, argv...)
	r := res.Report
	if res.ExitCode != 0 || r.EnergySource != "nvml" || r.EnergyMJ <= 0 || r.IterationEnergyMJ <= 0 ||
		r.IterationEnergyMJ >= r.EnergyMJ {
		t.Errorf("with NVML: exit %d, energy %q %.3f mJ, %.3f mJ per iteration; want nvml, a run's energy above one iteration's above 0",
			res.ExitCode, r.EnergySource, r.EnergyMJ, r.IterationEnergyMJ)
	}

	res = deploy(t, compact, []string{delay, "LD_LIBRARY_PATH=" + t.TempDir()}, argv...)
	r = res.Report
	if res.ExitCode != 0 || r.EnergySource != "" || r.EnergyMJ != 0 || r.IterationEnergyMJ != 0 {
		t.Errorf("without NVML: exit %d, energy %q %.3f mJ, %.3f mJ per iteration; want not measured",
			res.ExitCode, r.EnergySource, r.EnergyMJ, r.IterationEnergyMJ)
	}
}
