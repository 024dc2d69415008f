package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/echo-uma/echo/calibrate"
	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/planner"
	"github.com/echo-uma/echo/planview"
	"github.com/echo-uma/echo/report"
)

// Every predicted figure a command prints, and every break-even, as the outputs write them.
var (
	predictedFigure = regexp.MustCompile(`predicted (?:speed-up )?\(?(\d+\.\d\d)× \(?(\w+)`)
	boundFigure     = regexp.MustCompile(`Amdahl bound (?:of the copies )?~?(\d+\.\d\d)×`)
	breakEvenFigure = regexp.MustCompile(`(?:pays back|repaid) after (\d+) iterations`)
	reportCard      = regexp.MustCompile(`<b>(\d+\.\d\d)×</b><span>predicted speed-up \((\w+);`)
	reportRow       = regexp.MustCompile(`<tr><td>(\w+)</td><td class="num">(\d+\.\d\d)×</td>`)
)

// One plan, one prediction (issue 41: one optimize printed 2.11× for system, 1.40× for mapped
// and an Amdahl bound of 4.56×; a report's headline said 1.40× while its timeline drew 33×;
// one output said "repaid after 2 iterations" and "pays back after 3632 iterations"). A real
// optimize of the emulator's stream, then its plan shown, its report and the plan's --json:
// every predicted speed-up each prints is the plan's Forecast (its headline, or the estimate
// of the strategy it names), every Amdahl bound is the forecast's, and all of them together
// hold one break-even figure, the plan's savings'.
func TestOnePredictionEverywhere(t *testing.T) {
	testenv.RequireRoot(t)
	dir := t.TempDir()
	planPath := filepath.Join(dir, "stream.plan")
	env := []string{"CUDA_EMU_COPY_DELAY_US=3000"} // copies dear enough that a merge surely wins
	opt := testenv.Echoctl(t, env, "optimize", "--ignore", "^iter_ms=", "-o", planPath, "--",
		testenv.Built(t, "workloads/stream"), "--size", "256K", "--iters", "8", "--warmup", "1")
	if opt.ExitCode != 0 {
		t.Fatalf("optimize: exit %d: %s", opt.ExitCode, opt.Stderr)
	}
	p := testenv.ReadPlan(t, planPath)
	f := planner.ForecastFor(p)
	if f.Headline == nil || p.Savings == nil || p.Savings.BreakEvenIterations <= 0 {
		t.Fatalf("forecast %+v, savings %+v: want an enabled plan with a prediction and a break-even\n%s", f, p.Savings, opt.Stdout)
	}
	view := testenv.Echoctl(t, nil, "plan", planPath)
	js := testenv.Echoctl(t, nil, "plan", "--json", planPath)
	rep := testenv.Echoctl(t, nil, "report", planPath)
	for name, r := range map[string]testenv.Result{"plan": view, "plan --json": js, "report": rep} {
		if r.ExitCode != 0 {
			t.Fatalf("echoctl %s: exit %d: %s", name, r.ExitCode, r.Stderr)
		}
	}
	page, err := os.ReadFile(planPath + ".html")
	if err != nil {
		t.Fatal(err)
	}
	outputs := map[string]string{"optimize": opt.Stderr + opt.Stdout, "plan": view.Stdout, "report": string(page)}
	checkOneForecast(t, f, outputs)

	// --json: the plan document holds the same estimates, bound and break-even.
	var doc plan.Plan
	if err := json.Unmarshal([]byte(js.Stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if got := planner.ForecastFor(&doc); got.Headline == nil || *got.Headline != *f.Headline || got.Bound != f.Bound || got.FCopy != f.FCopy {
		t.Errorf("plan --json forecasts %+v; the plan file %+v", got, f)
	}
	breakEvens := map[string]bool{fmt.Sprintf("%.0f", doc.Savings.BreakEvenIterations): true}
	for name, out := range outputs {
		for _, m := range breakEvenFigure.FindAllStringSubmatch(out, -1) {
			breakEvens[m[1]] = true
			t.Logf("%s: break-even %s", name, m[0])
		}
	}
	if len(breakEvens) != 1 {
		t.Errorf("break-even figures %v across optimize, plan, report and --json: want one", slices.Sorted(maps.Keys(breakEvens)))
	}
}

// checkOneForecast checks that every predicted figure in outputs is f's: a headline figure is
// its headline's, or the estimate of the strategy it names; every Amdahl bound is f's; and
// each output that prints a prediction prints the headline.
func checkOneForecast(t *testing.T, f planner.Forecast, outputs map[string]string) {
	t.Helper()
	headline := fmt.Sprintf("%.2f", f.Headline.Speedup)
	for name, out := range outputs {
		found := false
		figures := append(predictedFigure.FindAllStringSubmatch(out, -1), reportCard.FindAllStringSubmatch(out, -1)...)
		for _, m := range figures {
			want := fmt.Sprintf("%.2f", f.Speedup(plan.Strategy(m[2])))
			if m[1] != want {
				t.Errorf("%s: %q, where the forecast of %s is %s×", name, m[0], m[2], want)
			}
			found = found || m[1] == headline && m[2] == string(f.Headline.Strategy)
		}
		if !found {
			t.Errorf("%s does not print the forecast's headline, %s× (%s):\n%s", name, headline, f.Headline.Strategy, out)
		}
		for _, m := range boundFigure.FindAllStringSubmatch(out, -1) {
			if m[1] != fmt.Sprintf("%.2f", f.Bound) {
				t.Errorf("%s: %q, where the forecast's bound is %.2f×", name, m[0], f.Bound)
			}
		}
		for _, m := range reportRow.FindAllStringSubmatch(out, -1) {
			if want := fmt.Sprintf("%.2f", f.Speedup(plan.Strategy(m[1]))); m[2] != want {
				t.Errorf("%s: the row %q, where the forecast of %s is %s×", name, m[0], m[1], want)
			}
		}
	}
	// The optimize table's predicted column: each strategy's estimate, "–" where none.
	for _, line := range strings.Split(outputs["optimize"], "\n") {
		fields := strings.Fields(line)
		if len(fields) < 5 || !slices.Contains([]string{"mapped", "system", "pinned"}, fields[0]) {
			continue
		}
		want := "–"
		if s := f.Speedup(plan.Strategy(fields[0])); s > 0 {
			want = planview.FormatSpeedup(s)
		}
		if fields[3] != want {
			t.Errorf("optimize's %s row predicts %s, the forecast %s: %q", fields[0], fields[3], want, line)
		}
	}
}

// A plan whose pairs were all refused predicts nothing, and every output says so rather than
// print a copy share of 0 % as if it had been measured: the plan view, the calibration table,
// optimize's line, the report and the calibrate --json document.
func TestRefusedPlanPredictsNothing(t *testing.T) {
	p := streamPlan()
	for i := range p.Pairs {
		if p.Pairs[i].Status != plan.StatusRefused {
			p.Pairs[i].RefuseCalibrated("output differs: merged with the mapped strategy the program printed x")
		}
	}
	planner.Recount(p)
	f := planner.ForecastFor(p)
	if f.None == "" {
		t.Fatalf("forecast %+v: want none", f)
	}
	var view, table bytes.Buffer
	if err := planview.Render(&view, p, "app.plan", func(string) bool { return true }); err != nil {
		t.Fatal(err)
	}
	res := &calibrate.Result{Baseline: calibrate.Variant{MedianMS: 10},
		Variants: []calibrate.Variant{{Strategy: "mapped", MedianMS: 5, OutputDiff: "printed x", Verdict: "output differs"}}}
	if err := planview.Calibration(&table, res, p, "app.plan"); err != nil {
		t.Fatal(err)
	}
	planPath := testenv.WritePlan(t, p, "app.plan")
	pg, err := report.Build(report.Options{PlanPath: planPath})
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := pg.Render(&page); err != nil {
		t.Fatal(err)
	}
	doc, err := json.Marshal(planview.CalibrationDocOf(schemaCalibrate, planPath, p, res, ""))
	if err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"plan": view.String(), "calibrate": table.String(),
		"optimize": planview.ForecastLine(f), "report": page.String(), "--json": string(doc)} {
		if !strings.Contains(out, f.None) {
			t.Errorf("%s does not say why there is no prediction (%q):\n%s", name, f.None, out)
		}
		for _, bad := range []string{"f_copy 0.0%", ">0.0%<", "predicted 1.", `"f_copy":0,`, "Amdahl bound 1.00×"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s prints %q for a plan with nothing left to serve", name, bad)
			}
		}
	}
	if math.IsNaN(f.Bound) || f.Bound != 0 {
		t.Errorf("bound %v: want none", f.Bound)
	}
}
