package planview

import (
	"bytes"
	"strings"
	"testing"

	"github.com/echo-uma/echo/calibrate"
	"github.com/echo-uma/echo/plan"
)

// The calibration table: one row per variant, numbers right-aligned under their headers, the
// plan's prediction (its Forecast) beside the speed-up the paired rounds measured, the
// verdict last, with its reason where the variant was refused (a calibration once printed
// mapped 2.83× and managed 2.88× with the same output, then enabled pinned, and only
// `echoctl plan` said why), the rounds, then what the plan now says.
func TestRenderCalibration(t *testing.T) {
	res := &calibrate.Result{
		Baseline: calibrate.Variant{MedianMS: 12.5, SpreadMS: 0.25, RunMedianMS: 140, EnergyMedianMJ: 250},
		Variants: []calibrate.Variant{
			{Strategy: "managed", MedianMS: 10, SpreadMS: 1.125, RunMedianMS: 120, Enabled: true, EnergyMedianMJ: 200,
				Paired:  &calibrate.Paired{Speedup: 1.26, Outcome: calibrate.OutcomeFaster},
				Verdict: "complete run faster: 120.0 ms against 140.0 ms"},
			{Strategy: "mapped", MedianMS: 125, SpreadMS: 3, RunMedianMS: 1300, OutputDiff: "line 3",
				Verdict: "output differs: the program printed x"},
			{Strategy: "system", MedianMS: 4, SpreadMS: 0.1, RunMedianMS: 60,
				Verdict: "not believed: it saves 8.5 ms per iteration"},
			{Strategy: "pinned", MedianMS: 11, SpreadMS: 0.1, RunMedianMS: 150,
				Verdict: "set-up not repaid: 25.0 ms of set-up"},
		},
		Chosen: "managed",
		Rounds: 9, Stopped: "every strategy decided",
	}
	res.Device.EnergySource = "nvml"
	p := &plan.Plan{Context: plan.Context{Strategy: "managed", GPU: "NVIDIA H200"}, Loop: plan.Loop{Iterations: 10, MS: 12},
		FCopy: 0.5, PredictedSpeedup: 2,
		Pairs:     []plan.Pair{{ID: "p1", Status: plan.StatusEnabled}},
		Estimates: []plan.Estimate{{Strategy: "mapped", Speedup: 1.5}, {Strategy: "pinned", Speedup: 1.2}}}
	var buf bytes.Buffer
	if err := Calibration(&buf, res, p, "app.plan"); err != nil {
		t.Fatal(err)
	}
	want := "predicted 1.50× (mapped), Amdahl bound 2.00× (f_copy 50.0%) from the trace, assuming a discrete GPU (NVIDIA H200)\n" +
		"variant   ms/iter  spread  predicted  measured  run ms  verdict\n" +
		"baseline   12.500   0.250                1.00×   140.0  as written\n" +
		"managed    10.000   1.125          –     1.26×   120.0  enabled: complete run faster: 120.0 ms against 140.0 ms\n" +
		"mapped    125.000   3.000      1.50×     0.10×  1300.0  output differs: the program printed x\n" +
		"system      4.000   0.100          –     3.12×    60.0  not believed: it saves 8.5 ms per iteration\n" +
		"pinned     11.000   0.100      1.20×     1.14×   150.0  set-up not repaid: 25.0 ms of set-up\n" +
		"9 paired rounds; a strategy is faster where its rounds show it 2% faster or more, 99% sure (measured: the " +
		"median of the rounds' speed-ups); stopped: every strategy decided\n" +
		"energy per iteration: 250.0 mJ as written, 200.0 mJ deployed (nvml)\n" +
		"\nenabled with the managed strategy on NVIDIA H200\n" +
		"wrote app.plan\n"
	if got := buf.String(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if strings.Contains(buf.String(), "\x1b") {
		t.Errorf("escape sequences in plain output")
	}
}
