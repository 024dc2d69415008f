package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/echo-uma/echo/internal/shell"
	"github.com/echo-uma/echo/internal/units"
	"github.com/echo-uma/echo/plan"
)

// The page is one html/template, so every name from the plan or the trace (a command line,
// a module path, a reason) is escaped where it lands.
//
//go:embed page.html.tmpl
var pageTemplate string

var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"bytes":          units.Bytes,
	"ms":             formatMS,
	"percent":        percent,
	"speedup":        func(x float64) string { return fmt.Sprintf("%.2f×", x) },
	"signed_percent": func(x float64) string { return fmt.Sprintf("%+.0f %%", 100*x) },
	"strategies": func(ss []plan.Strategy) string {
		names := make([]string, len(ss))
		for i, s := range ss {
			names[i] = string(s)
		}
		return strings.Join(names, ", ")
	},
	"last":  func(s []string) string { return s[len(s)-1] },
	"site":  func(s plan.Site) string { return siteName(nil, s) }, // Render names them
	"nsms":  func(ns uint64) float64 { return float64(ns) / 1e6 },
	"ms_s":  func(ms float64) float64 { return ms / 1000 },
	"width": func(share float64) string { return fmt.Sprintf("%.1f", 220*min(max(share, 0), 1)) },
}).Parse(pageTemplate))

// view is what the template reads: the page and the charts drawn from it.
type view struct {
	*Page
	Command     string
	Before      *Chart
	After       *Chart
	CalChart    *Chart
	CalProblems []string
	Predictions []predictionRow
	Pairs       []pairView
}

// pairView is one pair's row.
type pairView struct {
	plan.Pair
	Treatment string // what the report's "after" does with its copies
	CopySites []string
}

// Render writes the page as one self-contained HTML document.
func (pg *Page) Render(w io.Writer) error {
	v := view{Page: pg, Command: shell.Join(pg.Plan.Trace.Command)}
	if tl := pg.Timeline; tl != nil && tl.Missing == "" {
		b, a := timelineCharts(tl)
		v.Before, v.After = &b, &a
	}
	v.CalChart = calibrationChart(pg.Calibration)
	v.Predictions = predictions(pg.Forecast, pg.Calibration)
	for _, vr := range pg.Calibration.variants() {
		if why := vr.Refusal(); why != "" && vr.Strategy != "as written" {
			v.CalProblems = append(v.CalProblems, string(vr.Strategy)+": "+why)
		}
	}
	for _, pair := range pg.Plan.Pairs {
		pv := pairView{Pair: pair, Treatment: treatment(pg.Plan, pair)}
		for _, c := range pair.Copies {
			pv.CopySites = append(pv.CopySites, fmt.Sprintf("%s %s %s ×%d", c.Direction, c.Site.Call, siteName(pg.names, c.Site), c.Count))
		}
		v.Pairs = append(v.Pairs, pv)
	}
	t := template.Must(page.Clone()).Funcs(template.FuncMap{"site": func(s plan.Site) string { return siteName(pg.names, s) }})
	if err := t.Execute(w, v); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	return nil
}
