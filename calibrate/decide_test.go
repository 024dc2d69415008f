package calibrate

import "testing"

func TestDecide(t *testing.T) {
	base := Variant{RoundMS: []float64{1.00, 1.02, 0.98, 2.90, 1.01}} // one round slowed by the machine
	cases := []struct {
		name     string
		variants []Variant
		want     string
	}{
		{"a clear win despite one slow baseline round", []Variant{
			{Strategy: "mapped", RoundMS: []float64{0.50, 0.52, 0.49, 0.51, 0.50}, Merged: 2},
		}, "mapped"},
		{"the fastest of two wins", []Variant{
			{Strategy: "mapped", RoundMS: []float64{0.50, 0.52, 0.49, 0.51, 0.50}, Merged: 2},
			{Strategy: "managed", RoundMS: []float64{0.40, 0.41, 0.40, 0.39, 0.40}, Merged: 2},
		}, "managed"},
		{"within the baseline's spread", []Variant{
			{Strategy: "mapped", RoundMS: []float64{0.99, 0.98, 0.99, 0.98, 0.99}, Merged: 2},
		}, ""},
		{"a variant too noisy to trust", []Variant{
			{Strategy: "mapped", RoundMS: []float64{0.30, 1.60, 0.90, 0.20, 1.50}, Merged: 2},
		}, ""},
		{"different output", []Variant{
			{Strategy: "mapped", RoundMS: []float64{0.50, 0.52, 0.49, 0.51, 0.50}, Merged: 2, OutputDiff: "printed x"},
		}, ""},
		{"nothing merged", []Variant{
			{Strategy: "mapped", RoundMS: []float64{0.50, 0.52, 0.49, 0.51, 0.50}},
		}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &Result{Baseline: base, Variants: c.variants}
			r.decide()
			if r.Chosen != c.want {
				t.Errorf("chose %q (baseline %.3f ± %.3f); want %q", r.Chosen, r.Baseline.MedianMS, r.Baseline.SpreadMS, c.want)
			}
		})
	}
}
