package calibrate

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/planner"
)

// told is what each of outs printed, told against the first as calibration tells it.
func told(ignore *regexp.Regexp, outs ...string) (*reference, []runOutput) {
	ref := &reference{ignore: ignore}
	var runs []runOutput
	for _, o := range outs {
		runs = append(runs, ref.take([]byte(o), 0))
	}
	return ref, runs
}

// A line that differs between runs as written in its numbers alone is noise, compared by its
// words; anything else that differs leaves nothing to compare against.
func TestNoiseOf(t *testing.T) {
	cases := []struct {
		name    string
		runs    []string
		ignore  string
		varying []int  // the lines (after --ignore) compared by their words alone
		problem string // "": the runs can be compared against
	}{
		{"the same every run", []string{"checksum=ab\niter_ms=1\n", "checksum=ab\niter_ms=1\n"}, "", nil, ""},
		{"a timing", []string{"checksum=ab\niter_ms=0.4276\n", "checksum=ab\niter_ms=0.4301\n",
			"checksum=ab\niter_ms=1.5e-03\n"}, "", []int{1}, ""},
		{"a timing --ignore names", []string{"t=1\nchecksum=ab\nms=0.42\n", "t=2\nchecksum=ab\nms=0.43\n"},
			"^t=", []int{1}, ""},
		{"a result that varies", []string{"checksum=4c77bf315a3a4ec7\n", "checksum=0000bf315a3a4ec7\n"}, "", nil,
			`printed "checksum=0000bf315a3a4ec7" where another run printed "checksum=4c77bf315a3a4ec7"`},
		{"a word that varies", []string{"PASS 1\n", "FAIL 1\n"}, "", nil, `printed "FAIL 1"`},
		{"a line more", []string{"a\n", "a\nb\n"}, "", nil, `printed 2 lines in one run and 3 in another`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var ignore *regexp.Regexp
			if c.ignore != "" {
				ignore = regexp.MustCompile(c.ignore)
			}
			ref, runs := told(ignore, c.runs...)
			n := ref.noiseOf(runs)
			var varying []int
			for i := range n.shapes {
				varying = append(varying, i)
			}
			slices.Sort(varying)
			if !slices.Equal(varying, c.varying) || len(n.said) != len(c.varying) ||
				(c.problem == "") != (n.problem == "") || !strings.Contains(n.problem, c.problem) {
				t.Errorf("varying %v (said %q), problem %q; want %v, %q", varying, n.said, n.problem, c.varying, c.problem)
			}
		})
	}
}

// Each variant's every run is compared with the baseline's first, a varying line by its
// words alone.
func TestCompareOutputs(t *testing.T) {
	cases := []struct {
		name string
		runs []string
		code int
		want string
	}{
		{"faster, same result", []string{"checksum=ab\niter_ms=0.21\n", "checksum=ab\niter_ms=0.2\n"}, 0, ""},
		{"another result in one run", []string{"checksum=ab\niter_ms=0.21\n", "checksum=cd\niter_ms=0.2\n"}, 0,
			`printed "checksum=cd" where the baseline printed "checksum=ab"`},
		{"the varying line says something else", []string{"checksum=ab\niter_ms=NaN\n"}, 0,
			`printed "iter_ms=NaN" where the baseline printed "iter_ms=0.42"`},
		{"a line more", []string{"checksum=ab\niter_ms=0.2\nwarning\n"}, 0, `printed "warning" where the baseline printed "" (4 lines where it printed 3)`},
		{"a line less", []string{"checksum=ab\n"}, 0, `printed "" where the baseline printed "iter_ms=0.42" (2 lines where it printed 3)`},
		{"no newline at the end", []string{"checksum=ab\niter_ms=0.2"}, 0, `did not print ""`},
		{"another status", []string{"checksum=ab\niter_ms=0.42\n"}, 1, "exit status 1 instead of 0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ref, base := told(nil, "checksum=ab\niter_ms=0.42\n", "checksum=ab\niter_ms=0.45\n")
			v := Variant{Strategy: "mapped"}
			for _, o := range c.runs {
				v.outputs = append(v.outputs, ref.take([]byte(o), c.code))
			}
			r := &Result{Baseline: Variant{outputs: base}, Variants: []Variant{v}}
			r.compareOutputs(ref)
			if got := r.Variants[0].OutputDiff; (got == "") != (c.want == "") || !strings.Contains(got, c.want) {
				t.Errorf("output diff %q; want %q", got, c.want)
			}
			if r.Baseline.OutputDiff != "" || len(r.Varying) != 1 || !strings.Contains(r.Varying[0], "iter_ms=0.42") {
				t.Errorf("baseline diff %q, varying %q; want iter_ms's line alone, said", r.Baseline.OutputDiff, r.Varying)
			}
		})
	}
	// A line that did not vary as written, but does merged, in its numbers alone: refused,
	// with the way out.
	ref, base := told(nil, "total 12 ms\n", "total 12 ms\n")
	r := &Result{Baseline: Variant{outputs: base},
		Variants: []Variant{{Strategy: "mapped", outputs: []runOutput{ref.take([]byte("total 8 ms\n"), 0)}}}}
	r.compareOutputs(ref)
	if d := r.Variants[0].OutputDiff; !strings.Contains(d, "calibrate again with --ignore") {
		t.Errorf("output diff %q; want it to say that --ignore takes a timing out", d)
	}
}

// validatedPlan is a plan of two validated pairs, as validate leaves stream's.
func validatedPlan() *plan.Plan {
	const exe = "/opt/app/stream"
	site := func(off uint64, call string) plan.Site {
		return plan.Site{Module: exe, BuildID: "ab12", Offset: off, Call: call, Bytes: 1 << 20}
	}
	pair := func(id string, dir plan.PairDirection, copyDir plan.CopyDirection, off uint64) plan.Pair {
		return plan.Pair{ID: id, Direction: dir, Bytes: 1 << 20,
			Host:   plan.Buffer{Site: site(off, "malloc"), Kind: "pageable"},
			Device: plan.Buffer{Site: site(off+0x10, "cudaMalloc"), Kind: "device"},
			Copies: []plan.Copy{{Site: site(off+0x20, "cudaMemcpy"), Direction: copyDir, Stream: "legacy",
				Count: 10, PerIteration: 1, MS: 1}},
			BytesPerIteration: 1 << 20, CopyMSPerIteration: 1, FCopy: 0.1, PredictedSpeedup: 1 / 0.9,
			Status: plan.StatusValidated, Strategies: []plan.Strategy{plan.StrategyMapped, plan.StrategyPinned},
			Evidence: []string{"validated: no conflicting access in 10 copies"}}
	}
	p := &plan.Plan{Version: plan.Version, Created: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Tool: "test",
		Trace:   plan.Source{Path: "trace.bin", Command: []string{exe}},
		Context: plan.Context{Executable: plan.Module{Path: exe, BuildID: "ab12"}},
		Loop:    plan.Loop{Iterations: 10, MS: 10},
		Pairs:   []plan.Pair{pair("p1", "input", "h2d", 0x100), pair("p2", "output", "d2h", 0x200)}}
	planner.Recount(p)
	return p
}

// A calibration whose merged runs printed something else refuses the pairs, but keeps what a
// calibration again needs: their strategies and the status they had, so that a rerun with
// --ignore finds them to measure, and a win there enables them. A calibration that could not
// compare (the program as written printed other lines run to run) refuses nothing.
func TestApplyKeepsWhatARerunNeeds(t *testing.T) {
	p := validatedPlan()
	measured := p.PairsIn(plan.StatusValidated)
	refused := &Result{Baseline: Variant{RoundMS: []float64{1}},
		Variants: []Variant{{Strategy: "mapped", RoundMS: []float64{0.5}, OutputDiff: `printed "total 8 ms" where the baseline printed "total 12 ms"`}}}
	refused.decide(0)
	if err := Apply(p, measured, refused); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatalf("the refused plan does not write: %v", err)
	}
	if _, err := plan.Read(&buf); err != nil {
		t.Fatalf("the refused plan does not read back: %v", err)
	}
	for _, pair := range p.Pairs {
		if pair.Status != plan.StatusRefused || pair.RefusedFrom != plan.StatusValidated || len(pair.Strategies) != 2 ||
			!strings.HasPrefix(pair.Reason, "output differs") {
			t.Errorf("%s: %s from %q, strategies %v, %q; want refused from validated, its strategies kept",
				pair.ID, pair.Status, pair.RefusedFrom, pair.Strategies, pair.Reason)
		}
	}
	again := p.PairsToMeasure(plan.StatusValidated, plan.StatusCalibrated, plan.StatusEnabled)
	if len(again) != 2 {
		t.Fatalf("a rerun measures %d pairs; want the 2 refused", len(again))
	}
	if n := len(p.PairsToMeasure(plan.StatusCandidate)); n != 0 {
		t.Errorf("a rerun of candidates measures %d of them; they were validated", n)
	}
	seven := func(x float64) []float64 { return []float64{x, x, x, x, x, x, x} }
	won := &Result{Baseline: Variant{RoundMS: seven(1), RunMS: seven(100)}, CopyMS: 1,
		Variants: []Variant{{Strategy: "mapped", RoundMS: seven(0.5), RunMS: seven(60), Served: 2, Iterations: 10}}}
	won.decide(0)
	if won.Chosen != "mapped" {
		t.Fatalf("the rerun chose %q: %+v", won.Chosen, won.Variants)
	}
	if err := Apply(p, again, won); err != nil {
		t.Fatal(err)
	}
	for _, pair := range p.Pairs {
		if pair.Status != plan.StatusEnabled || pair.Reason != "" || pair.RefusedAt != "" || pair.RefusedFrom != "" {
			t.Errorf("%s: %s %q at %q from %q; want enabled, the refusal gone", pair.ID, pair.Status, pair.Reason, pair.RefusedAt, pair.RefusedFrom)
		}
	}
	if err := p.Check(); err != nil {
		t.Error(err)
	}

	p = validatedPlan()
	unchecked := &Result{Baseline: Variant{RoundMS: []float64{1}, OutputDiff: `printed "b" where another run printed "a"`},
		Variants: []Variant{{Strategy: "mapped", RoundMS: []float64{0.5}, Served: 2, OutputDiff: `printed "b"`}}}
	unchecked.decide(0)
	if err := Apply(p, p.PairsIn(plan.StatusValidated), unchecked); err != nil {
		t.Fatal(err)
	}
	for _, pair := range p.Pairs {
		if pair.Status != plan.StatusCalibrated || !strings.Contains(strings.Join(pair.Evidence, " "), "not checked") {
			t.Errorf("%s: %s %q %v; want calibrated, not enabled, saying nothing could be checked", pair.ID, pair.Status, pair.Reason, pair.Evidence)
		}
	}
}
