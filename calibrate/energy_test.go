package calibrate_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/echo-uma/echo/calibrate"
	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/plan"
)

// Calibration keeps each variant's energy per iteration where the shim measured it: here
// through the stand-in libnvidia-ml.so.1 (testdata/nvml), found first on LD_LIBRARY_PATH.
func TestCalibrateRecordsEnergy(t *testing.T) {
	testenv.RequireRoot(t)
	t.Setenv("CUDA_EMU_COPY_DELAY_US", "2000")
	t.Setenv("CUDA_EMU_KERNEL_DELAY_US", "3000")                       // merged too, the loop lasts
	args := []string{"--size", "1M", "--iters", "40", "--warmup", "1"} // the 100 ms NVML needs
	p, _ := testenv.Plan(t, "stream", args...)
	var pairs []plan.Pair
	for _, pair := range p.Pairs {
		if pair.Status == plan.StatusCandidate && pair.Merges() {
			pairs = append(pairs, pair)
		}
	}
	t.Setenv("ECHO_SHIM", testenv.Built(t, "lib/libechoshim.so"))
	t.Setenv("LD_LIBRARY_PATH", filepath.Dir(testenv.Built(t, "tests/nvml/libnvidia-ml.so.1")))
	argv := append([]string{testenv.Built(t, "workloads/stream")}, args...)
	res, err := calibrate.Calibrate(context.Background(), p, pairs, argv,
		calibrate.Options{Rounds: 2, Strategies: []plan.Strategy{plan.StrategyMapped}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Variants) != 1 || len(res.Baseline.EnergyMJ) < 2 || len(res.Variants[0].EnergyMJ) < 2 {
		t.Fatalf("baseline energy %v, variants %+v; want a reading per round of each", res.Baseline.EnergyMJ, res.Variants)
	}
	e := res.Energy(plan.StrategyMapped)
	if e.Source != "nvml" || e.BeforeMJ != res.Baseline.EnergyMedianMJ || e.AfterMJ != res.Variants[0].EnergyMedianMJ {
		t.Errorf("energy %+v; want nvml, the baseline's and mapped's medians", e)
	}
}
