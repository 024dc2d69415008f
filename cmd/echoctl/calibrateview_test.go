package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/echo-uma/echo/calibrate"
	"github.com/echo-uma/echo/planner"
)

// The calibration table: one row per variant, numbers right-aligned under their headers,
// the output verdict last, then what the plan now says.
func TestRenderCalibration(t *testing.T) {
	res := &calibrate.Result{
		Baseline: calibrate.Variant{MedianMS: 12.5, SpreadMS: 0.25},
		Variants: []calibrate.Variant{
			{Strategy: "managed", MedianMS: 10, SpreadMS: 1.125},
			{Strategy: "mapped", MedianMS: 125, SpreadMS: 3, OutputDiff: "line 3"},
		},
		Chosen: "managed",
	}
	p := &planner.Plan{Context: planner.Context{Strategy: "managed", GPU: "NVIDIA H200"}}
	var buf bytes.Buffer
	if err := renderCalibration(&buf, res, p, "app.plan"); err != nil {
		t.Fatal(err)
	}
	want := "variant   ms/iter  spread  speed-up  output\n" +
		"baseline   12.500   0.250     1.00×  same\n" +
		"managed    10.000   1.125     1.25×  same\n" +
		"mapped    125.000   3.000     0.10×  DIFFERS: line 3\n" +
		"\nenabled with the managed strategy on NVIDIA H200\n" +
		"wrote app.plan\n"
	if got := buf.String(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if strings.Contains(buf.String(), "\x1b") {
		t.Errorf("escape sequences in plain output")
	}
}
