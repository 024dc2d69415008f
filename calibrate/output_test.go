package calibrate

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/echo-uma/echo/planner"
)

func out(s string) runOutput { return runOutput{stdout: []byte(s)} }

// A line that differs between runs as written in its numbers alone is noise, compared by its
// words; anything else that differs leaves nothing to compare against.
func TestNoiseOf(t *testing.T) {
	cases := []struct {
		name    string
		runs    []runOutput
		ignore  string
		varying []int  // the lines (after --ignore) compared by their words alone
		problem string // "": the runs can be compared against
	}{
		{"the same every run", []runOutput{out("checksum=ab\niter_ms=1\n"), out("checksum=ab\niter_ms=1\n")}, "", nil, ""},
		{"a timing", []runOutput{out("checksum=ab\niter_ms=0.4276\n"), out("checksum=ab\niter_ms=0.4301\n"),
			out("checksum=ab\niter_ms=1.5e-03\n")}, "", []int{1}, ""},
		{"a timing --ignore names", []runOutput{out("t=1\nchecksum=ab\nms=0.42\n"), out("t=2\nchecksum=ab\nms=0.43\n")},
			"^t=", []int{1}, ""},
		{"a result that varies", []runOutput{out("checksum=4c77bf315a3a4ec7\n"), out("checksum=0000bf315a3a4ec7\n")}, "", nil,
			`printed "checksum=0000bf315a3a4ec7" where another run printed "checksum=4c77bf315a3a4ec7"`},
		{"a word that varies", []runOutput{out("PASS 1\n"), out("FAIL 1\n")}, "", nil, `printed "FAIL 1"`},
		{"a line more", []runOutput{out("a\n"), out("a\nb\n")}, "", nil, `printed 2 lines in one run and 3 in another`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var ignore *regexp.Regexp
			if c.ignore != "" {
				ignore = regexp.MustCompile(c.ignore)
			}
			n := noiseOf(c.runs, ignore)
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
	base := Variant{outputs: []runOutput{out("checksum=ab\niter_ms=0.42\n"), out("checksum=ab\niter_ms=0.45\n")}}
	cases := []struct {
		name string
		runs []runOutput
		want string
	}{
		{"faster, same result", []runOutput{out("checksum=ab\niter_ms=0.21\n"), out("checksum=ab\niter_ms=0.2\n")}, ""},
		{"another result in one run", []runOutput{out("checksum=ab\niter_ms=0.21\n"), out("checksum=cd\niter_ms=0.2\n")},
			`printed "checksum=cd" where the baseline printed "checksum=ab"`},
		{"the varying line says something else", []runOutput{out("checksum=ab\niter_ms=NaN\n")},
			`printed "iter_ms=NaN" where the baseline printed "iter_ms=0.42"`},
		{"another status", []runOutput{{stdout: []byte("checksum=ab\niter_ms=0.42\n"), code: 1}}, "exit status 1 instead of 0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &Result{Baseline: base, Variants: []Variant{{Strategy: "mapped", outputs: c.runs}}}
			r.compareOutputs(nil)
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
	r := &Result{Baseline: Variant{outputs: []runOutput{out("total 12 ms\n"), out("total 12 ms\n")}},
		Variants: []Variant{{Strategy: "mapped", outputs: []runOutput{out("total 8 ms\n")}}}}
	r.compareOutputs(nil)
	if d := r.Variants[0].OutputDiff; !strings.Contains(d, "calibrate again with --ignore") {
		t.Errorf("output diff %q; want it to say that --ignore takes a timing out", d)
	}
}

// validatedPlan is a plan of two validated pairs, as validate leaves stream's.
func validatedPlan() *planner.Plan {
	const exe = "/opt/app/stream"
	site := func(off uint64, call string) planner.Site {
		return planner.Site{Module: exe, BuildID: "ab12", Offset: off, Call: call, Bytes: 1 << 20}
	}
	pair := func(id string, dir planner.PairDirection, copyDir planner.CopyDirection, off uint64) planner.Pair {
		return planner.Pair{ID: id, Direction: dir, Bytes: 1 << 20,
			Host:   planner.Buffer{Site: site(off, "malloc"), Kind: "pageable"},
			Device: planner.Buffer{Site: site(off+0x10, "cudaMalloc"), Kind: "device"},
			Copies: []planner.Copy{{Site: site(off+0x20, "cudaMemcpy"), Direction: copyDir, Stream: "legacy",
				Count: 10, PerIteration: 1, MS: 1}},
			BytesPerIteration: 1 << 20, CopyMSPerIteration: 1, FCopy: 0.1, PredictedSpeedup: 1 / 0.9,
			Status: planner.StatusValidated, Strategies: []planner.Strategy{planner.StrategyMapped, planner.StrategyPinned},
			Evidence: []string{"validated: no conflicting access in 10 copies"}}
	}
	p := &planner.Plan{Version: planner.Version, Created: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Tool: "test",
		Trace:   planner.Source{Path: "trace.bin", Command: []string{exe}},
		Context: planner.Context{Executable: planner.Module{Path: exe, BuildID: "ab12"}},
		Loop:    planner.Loop{Iterations: 10, MS: 10},
		Pairs:   []planner.Pair{pair("p1", "input", "h2d", 0x100), pair("p2", "output", "d2h", 0x200)}}
	p.Recount()
	return p
}

// A calibration whose merged runs printed something else refuses the pairs, but keeps what a
// calibration again needs: their strategies and the status they had, so that a rerun with
// --ignore finds them to measure, and a win there enables them. A calibration that could not
// compare (the program as written printed other lines run to run) refuses nothing.
func TestApplyKeepsWhatARerunNeeds(t *testing.T) {
	p := validatedPlan()
	measured := p.PairsIn(planner.StatusValidated)
	refused := &Result{Baseline: Variant{RoundMS: []float64{1}},
		Variants: []Variant{{Strategy: "mapped", RoundMS: []float64{0.5}, OutputDiff: `printed "total 8 ms" where the baseline printed "total 12 ms"`}}}
	refused.decide()
	if err := Apply(p, measured, refused); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatalf("the refused plan does not write: %v", err)
	}
	if _, err := planner.Read(&buf); err != nil {
		t.Fatalf("the refused plan does not read back: %v", err)
	}
	for _, pair := range p.Pairs {
		if pair.Status != planner.StatusRefused || pair.RefusedFrom != planner.StatusValidated || len(pair.Strategies) != 2 ||
			!strings.HasPrefix(pair.Reason, "output differs") {
			t.Errorf("%s: %s from %q, strategies %v, %q; want refused from validated, its strategies kept",
				pair.ID, pair.Status, pair.RefusedFrom, pair.Strategies, pair.Reason)
		}
	}
	again := p.PairsToMeasure(planner.StatusValidated, planner.StatusCalibrated, planner.StatusEnabled)
	if len(again) != 2 {
		t.Fatalf("a rerun measures %d pairs; want the 2 refused", len(again))
	}
	if n := len(p.PairsToMeasure(planner.StatusCandidate)); n != 0 {
		t.Errorf("a rerun of candidates measures %d of them; they were validated", n)
	}
	won := &Result{Baseline: Variant{RoundMS: []float64{1, 1, 1}, RunMS: []float64{100, 100, 100}}, CopyMS: 1,
		Variants: []Variant{{Strategy: "mapped", RoundMS: []float64{0.5, 0.5, 0.5}, RunMS: []float64{60, 60, 60}, Served: 2,
			Iterations: 10}}}
	won.decide()
	if won.Chosen != "mapped" {
		t.Fatalf("the rerun chose %q: %+v", won.Chosen, won.Variants)
	}
	if err := Apply(p, again, won); err != nil {
		t.Fatal(err)
	}
	for _, pair := range p.Pairs {
		if pair.Status != planner.StatusEnabled || pair.Reason != "" || pair.RefusedAt != "" || pair.RefusedFrom != "" {
			t.Errorf("%s: %s %q at %q from %q; want enabled, the refusal gone", pair.ID, pair.Status, pair.Reason, pair.RefusedAt, pair.RefusedFrom)
		}
	}
	if err := p.Check(); err != nil {
		t.Error(err)
	}

	p = validatedPlan()
	unchecked := &Result{Baseline: Variant{RoundMS: []float64{1}, OutputDiff: `printed "b" where another run printed "a"`},
		Variants: []Variant{{Strategy: "mapped", RoundMS: []float64{0.5}, Served: 2, OutputDiff: `printed "b"`}}}
	unchecked.decide()
	if err := Apply(p, p.PairsIn(planner.StatusValidated), unchecked); err != nil {
		t.Fatal(err)
	}
	for _, pair := range p.Pairs {
		if pair.Status != planner.StatusCalibrated || !strings.Contains(strings.Join(pair.Evidence, " "), "not checked") {
			t.Errorf("%s: %s %q %v; want calibrated, not enabled, saying nothing could be checked", pair.ID, pair.Status, pair.Reason, pair.Evidence)
		}
	}
}
