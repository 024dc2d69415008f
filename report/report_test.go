package report

import (
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/echo-uma/echo/calibrate"
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/planner"
)

// The page shows every pair, every copy site and every rejection of the plan, and is
// self-contained: a CSP that forbids loads, and no reference to anything outside it.
func TestReportShowsThePlan(t *testing.T) {
	planPath, p := streamPlan(t, plainProgram)
	if len(p.Pairs) < 3 || len(p.Rejected) == 0 {
		t.Fatalf("the synthetic plan has %d pairs and %d rejections, want 3 or more and some", len(p.Pairs), len(p.Rejected))
	}
	doc, pg := render(t, Options{PlanPath: planPath})
	text := html.UnescapeString(doc) // html/template escapes more than it must (+ as &#43;)
	if pg.TracePath == "" {
		t.Fatal("the plan's trace was not found beside it")
	}
	var want []string
	for _, pair := range p.Pairs {
		want = append(want, `data-pair="`+pair.ID+`"`, siteName(nil, pair.Host.Site), siteName(nil, pair.Device.Site))
		for _, c := range pair.Copies {
			want = append(want, siteName(nil, c.Site))
		}
	}
	for _, r := range p.Rejected {
		want = append(want, siteName(nil, r.Site), r.Reason)
	}
	want = append(want, `http-equiv="Content-Security-Policy"`, "default-src 'none'", "not calibrated",
		"stream 0x5000", "legacy stream", p.Pairs[1].Reason)
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("the page lacks %q", w)
		}
	}
	for _, banned := range []*regexp.Regexp{regexp.MustCompile(`(?i)https?://`), regexp.MustCompile(`(?i)<link\b`),
		regexp.MustCompile(`(?i)\bsrc\s*=`), regexp.MustCompile(`(?i)url\(`), regexp.MustCompile(`(?i)@import`)} {
		if loc := banned.FindStringIndex(doc); loc != nil {
			t.Errorf("the page refers outside itself: %q", doc[max(0, loc[0]-40):min(len(doc), loc[1]+40)])
		}
	}
}

// Names from the trace and the plan land escaped: a command line or a module path cannot
// become markup.
func TestReportEscapesNames(t *testing.T) {
	const evil = `<script>alert("x")</script>&`
	planPath, _ := streamPlan(t, program{command: []string{"./stream", evil}, exe: "/opt/<b>app</b>/stream"})
	doc, _ := render(t, Options{PlanPath: planPath})
	for _, raw := range []string{evil, "<b>app</b>", `alert("x")`} {
		if strings.Contains(doc, raw) {
			t.Errorf("the page holds %q unescaped", raw)
		}
	}
	if !strings.Contains(doc, "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;&amp;") {
		t.Error("the page lacks the escaped command line")
	}
	if !strings.Contains(doc, "&lt;b&gt;app&lt;/b&gt;") {
		t.Error("the page lacks the escaped module path")
	}
	if n := strings.Count(doc, "<script>"); n != 1 {
		t.Errorf("%d <script> elements, want the page's own one", n)
	}
}

// The iteration drawn after the plan lacks the copies of the pairs it merges; the copies it
// rejects stay; and its length is the plan's one estimate (Forecast), scaled to this
// iteration, not a second projection of its own.
func TestReportTimeline(t *testing.T) {
	planPath, p := streamPlan(t, plainProgram)
	_, pg := render(t, Options{PlanPath: planPath})
	tl := pg.Timeline
	if tl.Missing != "" {
		t.Fatalf("no timeline: %s", tl.Missing)
	}
	count := func(bars []Bar, kind string, bytes string) int {
		n := 0
		for _, b := range bars {
			if b.Kind == kind && strings.Contains(b.Label, bytes) {
				n++
			}
		}
		return n
	}
	for _, c := range []struct {
		what          string
		bars          []Bar
		big, small, k int
	}{
		{"before", tl.Before, 2, 1, 1},
		{"after", tl.After, 0, 1, 1},
	} {
		if got := count(c.bars, kindCopy, " 4.0 MiB"); got != c.big {
			t.Errorf("%s: %d 4 MiB copies, want %d", c.what, got, c.big)
		}
		if got := count(c.bars, kindCopy, " 1.0 KiB"); got != c.small {
			t.Errorf("%s: %d 1 KiB copies, want %d", c.what, got, c.small)
		}
		if got := count(c.bars, kindKernel, ""); got != c.k {
			t.Errorf("%s: %d kernel launches, want %d", c.what, got, c.k)
		}
	}
	h := planner.ForecastFor(p).Headline
	if tl.Elided != 2 || h == nil || tl.Predicted == nil || *tl.Predicted != *h ||
		tl.AfterNS != uint64(float64(tl.BeforeNS)/h.Speedup) {
		t.Errorf("elided %d copies, %d ns → %d ns, predicted %+v: want 2 copies and the forecast's %+v", tl.Elided,
			tl.BeforeNS, tl.AfterNS, tl.Predicted, h)
	}
}

// The calibration section charts the rounds of each strategy from the record beside the
// plan, and only a record made for this plan.
func TestReportCalibration(t *testing.T) {
	rec := calibrate.Result{
		Baseline: calibrate.Variant{RoundMS: []float64{3.1, 3.3, 2.9}, MedianMS: 3.1, SpreadMS: 0.4},
		Variants: []calibrate.Variant{
			{Strategy: "mapped", RoundMS: []float64{1.2, 1.25, 1.3}, MedianMS: 1.25, SpreadMS: 0.1, Served: 2},
			{Strategy: "managed", RoundMS: []float64{4.5, 4.1, 4.7}, MedianMS: 4.5, SpreadMS: 0.4, Served: 2,
				OutputDiff: "line 3: checksum=1 vs checksum=2"},
			{Strategy: "pinned", RoundMS: []float64{2.0, 2.1, 2.0}, MedianMS: 2.0, SpreadMS: 0.1, Served: 2,
				Verdict: "set-up not repaid: 40.0 ms of set-up against 10.0 ms its 5 iterations save"},
		},
		Chosen: "mapped",
	}
	for _, c := range []struct {
		name   string
		record func(planPath string, p *plan.Plan)
		want   []string
		absent []string
	}{
		{"none", func(string, *plan.Plan) {}, []string{"not calibrated"}, []string{"round 1"}},
		{"for this plan", func(planPath string, p *plan.Plan) {
			if err := calibrate.WriteRecord(planPath, p, &rec); err != nil {
				t.Fatal(err)
			}
		}, []string{"as written", "mapped ✓ chosen", "managed", "mapped round 3: 1.30 ms", "as written round 2: 3.30 ms",
			"managed: line 3: checksum=1 vs checksum=2", "pinned: set-up not repaid: 40.0 ms of set-up",
			"Chosen: <b>mapped</b>"}, []string{"not calibrated"}},
		{"for an earlier plan", func(planPath string, p *plan.Plan) {
			older := *p
			older.Created = p.Created.Add(-1)
			if err := calibrate.WriteRecord(planPath, &older, &rec); err != nil {
				t.Fatal(err)
			}
		}, []string{"not calibrated"}, []string{"round 1", "✓ chosen"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			planPath, p := streamPlan(t, plainProgram)
			c.record(planPath, p)
			doc, _ := render(t, Options{PlanPath: planPath})
			for _, w := range c.want {
				if !strings.Contains(doc, w) {
					t.Errorf("the page lacks %q", w)
				}
			}
			for _, a := range c.absent {
				if strings.Contains(doc, a) {
					t.Errorf("the page holds %q", a)
				}
			}
		})
	}
}

// The page's headline speed-up is the plan's estimate, with the Amdahl bound beside it, and
// the calibration section sets each strategy's estimate against what calibration measured.
func TestReportPredictions(t *testing.T) {
	planPath, p := streamPlan(t, plainProgram)
	doc, _ := render(t, Options{PlanPath: planPath})
	e := planner.ForecastFor(p).Headline
	if e == nil {
		t.Fatal("the synthetic plan has no estimate")
	}
	card := fmt.Sprintf("<b>%.2f×</b><span>predicted speed-up (%s; Amdahl bound of the copies %.2f×; assuming %s)</span>",
		e.Speedup, e.Strategy, p.PredictedSpeedup, planner.ForecastFor(p).Assumes)
	if !strings.Contains(doc, card) {
		t.Errorf("the page lacks the card %q", card)
	}
	if strings.Contains(doc, "predicted against measured") {
		t.Error("an uncalibrated plan's page sets predictions against measurements")
	}
	rec := calibrate.Result{
		Baseline: calibrate.Variant{RoundMS: []float64{3.0}, MedianMS: 3.0},
		Variants: []calibrate.Variant{
			{Strategy: e.Strategy, RoundMS: []float64{1.5}, MedianMS: 1.5, Served: 2},
			{Strategy: "managed", RoundMS: []float64{6}, MedianMS: 6, Served: 2},
		},
	}
	if planner.EstimateFor(p.Estimates, "managed") != nil {
		t.Fatal("the synthetic plan estimates managed: pick a strategy it does not")
	}
	if err := calibrate.WriteRecord(planPath, p, &rec); err != nil {
		t.Fatal(err)
	}
	doc, _ = render(t, Options{PlanPath: planPath})
	for _, w := range []string{
		fmt.Sprintf(`<tr><td>%s</td><td class="num">%.2f×</td><td class="num">2.00×</td><td class="num">%+.0f %%</td></tr>`,
			e.Strategy, e.Speedup, 100*(e.Speedup/2-1)),
		`<tr><td>managed</td><td class="num">–</td><td class="num">0.50×</td><td class="num">–</td></tr>`,
	} {
		if !strings.Contains(doc, w) {
			t.Errorf("the page lacks the row %q", w)
		}
	}
}

// The trace is found where the plan says or where optimize and plan put it, and a file
// there that is another trace is passed over; without one, the page has the plan's figures.
func TestFindTrace(t *testing.T) {
	planPath, p := streamPlan(t, plainProgram)
	dir := filepath.Dir(planPath)
	recorded := filepath.Join(dir, "app.bin")
	for _, c := range []struct {
		name  string
		setup func(t *testing.T) // the plan is at app.bin.plan, its trace at app.bin
		want  string
	}{
		{"recorded path", func(*testing.T) {}, recorded},
		{"optimize's side file", func(t *testing.T) {
			if err := os.Rename(recorded, planPath+".trace"); err != nil {
				t.Fatal(err)
			}
		}, planPath + ".trace"},
		{"another process's trace there", func(t *testing.T) {
			if err := os.Remove(planPath + ".trace"); err != nil {
				t.Fatal(err)
			}
			writeStreamTrace(t, recorded, program{command: []string{"./other"}, exe: "/opt/app/other", pid: 5000})
		}, ""},
	} {
		c.setup(t)
		if got := FindTrace(planPath, p); got != c.want {
			t.Errorf("%s: FindTrace = %q, want %q", c.name, got, c.want)
		}
	}
	doc, pg := render(t, Options{PlanPath: planPath})
	if !strings.Contains(pg.Timeline.Missing, "no trace") || !strings.Contains(doc, "give it with --trace") {
		t.Errorf("without its trace the page does not say so: %q", pg.Timeline.Missing)
	}
	for _, pair := range p.Pairs {
		for _, c := range pair.Copies {
			if !strings.Contains(html.UnescapeString(doc), siteName(nil, c.Site)+"</td>") {
				t.Errorf("without its trace the page lacks %s's copy site %s", pair.ID, siteName(nil, c.Site))
			}
		}
	}
	// Named with --trace, another trace is drawn, and the page says it is another.
	_, pg = render(t, Options{PlanPath: planPath, TracePath: recorded})
	if len(pg.Notes) == 0 || !strings.Contains(pg.Notes[0], "is not the trace the plan was made from") {
		t.Errorf("notes %q: want one saying the trace is another", pg.Notes)
	}
}

// shifter cuts the removed intervals out of the iteration's time, overlapping ones once.
func TestShifter(t *testing.T) {
	for _, c := range []struct {
		name    string
		removed [][2]uint64
		at      []uint64
		want    []uint64
	}{
		{"none", nil, []uint64{0, 5, 100}, []uint64{0, 5, 100}},
		{"one", [][2]uint64{{10, 20}}, []uint64{5, 10, 15, 20, 30}, []uint64{5, 10, 10, 10, 20}},
		{"two, out of order", [][2]uint64{{40, 50}, {10, 20}}, []uint64{30, 45, 60}, []uint64{20, 30, 40}},
		{"overlapping", [][2]uint64{{10, 30}, {20, 40}}, []uint64{25, 40, 50}, []uint64{10, 10, 20}},
		{"nested", [][2]uint64{{10, 40}, {20, 30}}, []uint64{35, 60}, []uint64{10, 30}},
	} {
		shift := shifter(c.removed)
		for i, at := range c.at {
			if got := shift(at); got != c.want[i] {
				t.Errorf("%s: shift(%d) = %d, want %d", c.name, at, got, c.want[i])
			}
		}
	}
}

// A calibrated plan's costs and savings (paper §4.3–4.4) are a small table under the
// calibration: time and energy per iteration before and after, bytes skipped, capacity saved,
// what finding the plan cost and when it pays back.
func TestReportSavings(t *testing.T) {
	planPath, p := streamPlan(t, plainProgram)
	doc, _ := render(t, Options{PlanPath: planPath})
	if strings.Contains(doc, "Costs and savings") {
		t.Errorf("an uncalibrated plan's page shows savings")
	}
	p.Savings = plan.NewSavings(p, plan.StrategyMapped, 3.1, 1.25, plan.RunCost{}, plan.Finding{TraceMS: 700, CalibrateMS: 2300})
	p.Savings.BytesSkipped, p.Savings.CapacitySaved = 8<<20, 4<<20
	p.Savings.Energy = plan.Energy{Source: "nvml", BeforeMJ: 412.5, AfterMJ: 130.25}
	if err := plan.WriteFile(planPath, p); err != nil {
		t.Fatal(err)
	}
	doc, _ = render(t, Options{PlanPath: planPath})
	for _, want := range []string{"Costs and savings", "3.100 ms", "1.250 ms", "412.5 mJ", "130.2 mJ (nvml)", "8.0 MiB", "4.0 MiB",
		"took 3.0 s (trace 0.7, validation 0.0, calibration 2.3)", "pays back after 1622 iterations"} {
		if !strings.Contains(doc, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}
