package runner_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/plan"
)

// The shim reads the GPU's energy through NVML where libnvidia-ml.so.1 loads: the stand-in
// in testdata/nvml (its counter grows with the clock) is found first on LD_LIBRARY_PATH, so
// the real dlopen path runs, and the report gives the run's energy and a marked iteration's.
// Without the library the report says "not measured" (source "") and the run is the same.
func TestReportEnergy(t *testing.T) {
	testenv.RequireRoot(t)
	compact, argv, fake := measureStream(t, "80") // 2 ms kernels: a loop of the 100 ms NVML needs
	res := deploy(t, compact, []string{delay, "LD_LIBRARY_PATH=" + fake}, argv...)
	r := res.Report
	if res.ExitCode != 0 || r.EnergySource != "nvml" || r.EnergyMJ <= 0 || r.IterationEnergyMJ <= 0 ||
		r.IterationEnergyMJ >= r.EnergyMJ {
		t.Errorf("with NVML: exit %d, energy %q %.3f mJ, %.3f mJ per iteration; want nvml, a run's energy above one iteration's above 0",
			res.ExitCode, r.EnergySource, r.EnergyMJ, r.IterationEnergyMJ)
	}
	// A loop shorter than the counter's updates can tell (100 ms) gets no energy per
	// iteration (the run's still counts): 5 iterations of about 2 ms. Where this machine runs
	// them far longer (the arm64 VM's emulated CPU), the loop is long and gets it: the rule's
	// other side. Near the line, the shim's span (between energy samples) and the iterations'
	// sum differ too much to say.
	short, argv5, _ := measureStream(t, "5")
	res = deploy(t, short, []string{delay, "LD_LIBRARY_PATH=" + fake}, argv5...)
	r = res.Report
	var span uint64
	for _, ns := range r.IterationNS {
		span += ns
	}
	if res.ExitCode != 0 || r.EnergySource != "nvml" || r.EnergyMJ <= 0 {
		t.Errorf("a short loop: exit %d, energy %q %.3f mJ; want the run's energy", res.ExitCode, r.EnergySource, r.EnergyMJ)
	}
	switch ms := float64(span) / 1e6; {
	case ms < 80 && r.IterationEnergyMJ != 0:
		t.Errorf("a %.0f ms loop: %.3f mJ per iteration; want none", ms, r.IterationEnergyMJ)
	case ms > 150 && r.IterationEnergyMJ <= 0:
		t.Errorf("a %.0f ms loop (this machine runs it slowly): no energy per iteration; want it", ms)
	case ms >= 80 && ms <= 150:
		t.Logf("a %.0f ms loop, near the 100 ms line: %.3f mJ per iteration", ms, r.IterationEnergyMJ)
	}

	res = deploy(t, compact, []string{delay, "LD_LIBRARY_PATH=" + t.TempDir()}, argv...)
	r = res.Report
	if res.ExitCode != 0 || r.EnergySource != "" || r.EnergyMJ != 0 || r.IterationEnergyMJ != 0 {
		t.Errorf("without NVML: exit %d, energy %q %.3f mJ, %.3f mJ per iteration; want not measured",
			res.ExitCode, r.EnergySource, r.EnergyMJ, r.IterationEnergyMJ)
	}
}

// An energy read takes time (a real driver's, milliseconds), which must not count as the
// program's: with every read made to take 30 ms by the stand-in, the marked iterations are
// no longer than without NVML, give or take this machine's noise, where counting the reads
// made each sampled one 30 ms longer (streamcluster on the H200: 2.5 ms calls timed at 5.1).
func TestEnergyReadsOutsideIterations(t *testing.T) {
	testenv.RequireRoot(t)
	compact, argv, fake := measureStream(t, "12")
	medianMS := func(env ...string) float64 {
		res := deploy(t, compact, append([]string{delay}, env...), argv...)
		ns := res.Report.IterationNS
		if res.ExitCode != 0 || len(ns) < 5 {
			t.Fatalf("exit %d, %d iterations timed", res.ExitCode, len(ns))
		}
		sorted := slices.Clone(ns)
		slices.Sort(sorted)
		return float64(sorted[len(sorted)/2]) / 1e6
	}
	without := medianMS("LD_LIBRARY_PATH=" + t.TempDir())
	with := medianMS("LD_LIBRARY_PATH="+fake, "FAKE_NVML_READ_US=30000")
	if with > without+15 {
		t.Errorf("median iteration %.2f ms with 30 ms energy reads, %.2f ms without NVML: the reads are counted", with, without)
	}
}

// measureStream is the measure-mode plan (nothing merged, the loop timed) of the emulator's
// stream at 1 MiB for iters iterations, its command line, and the stand-in NVML's directory.
func measureStream(t *testing.T, iters string) (compact string, argv []string, fakeNVML string) {
	t.Helper()
	args := []string{"--size", "1M", "--iters", iters, "--warmup", "1"}
	p, _ := testenv.Plan(t, "stream", args...)
	compact = compactPlan(t, p, nil, "mapped", plan.ModeMeasure)
	argv = append([]string{testenv.Built(t, "workloads/stream")}, args...)
	return compact, argv, filepath.Dir(testenv.Built(t, "tests/nvml/libnvidia-ml.so.1"))
}
