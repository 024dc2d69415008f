package report

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/echo-uma/echo/calibrate"
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/planner"
	"github.com/echo-uma/echo/symbols"
)

// Options say what to report on.
type Options struct {
	PlanPath string
	// TracePath is the trace to draw the iteration from; "": the plan's own trace, where
	// FindTrace finds it.
	TracePath string
}

// Page is everything the report shows, ready for the template.
type Page struct {
	PlanPath  string
	TracePath string // "" when there is no trace
	Plan      *plan.Plan
	// Forecast is the plan's prediction: every predicted figure the page shows is its.
	Forecast    planner.Forecast
	Generated   time.Time
	Notes       []string // what the reader should know about the report itself
	Timeline    *Timeline
	Sites       []SiteRow
	Calibration Calibration

	names *symbols.Resolver // names the sites: function and source line
}

// Build reads the plan, its calibration record and its trace, and works out the page.
func Build(o Options) (*Page, error) {
	p, err := plan.ReadFile(o.PlanPath)
	if err != nil {
		return nil, err // ReadFile names the plan
	}
	rec, err := calibrate.ReadRecord(o.PlanPath, p)
	if err != nil {
		return nil, err
	}
	pg := &Page{PlanPath: o.PlanPath, Plan: p, Forecast: planner.ForecastFor(p), Generated: time.Now().UTC(),
		Calibration: calibration(p, rec), names: symbols.NewResolver()}
	pg.TracePath = o.TracePath
	if pg.TracePath == "" {
		pg.TracePath = FindTrace(o.PlanPath, p)
	}
	if pg.TracePath == "" {
		pg.Sites = siteRows(p, nil, pg.names)
		pg.Timeline = &Timeline{Missing: fmt.Sprintf("no trace: the plan's (%s) is not there, nor beside the plan; "+
			"give it with --trace to see an iteration and the traced copy time per site", p.Trace.Path)}
		return pg, nil
	}
	sc, complete, err := scan(pg.TracePath, p)
	if err != nil {
		return nil, err
	}
	if o.TracePath != "" {
		if err := sameTrace(pg.TracePath, p); err != nil {
			pg.Notes = append(pg.Notes, err.Error()) // the user chose it: draw it, saying so
		}
	}
	if !complete {
		pg.Notes = append(pg.Notes, "the trace is damaged or cut short: what follows is drawn from the part that reads")
	}
	pg.Sites = siteRows(p, sc.stats, pg.names)
	pg.Timeline, err = drawIteration(pg.TracePath, p, sc)
	return pg, err
}

// drawIteration picks the iteration to draw and works out its timeline, or says why there
// is none.
func drawIteration(tracePath string, p *plan.Plan, sc *scanned) (*Timeline, error) {
	if p.Loop.Marker == nil {
		return &Timeline{Missing: "the plan found no loop in the trace, so there is no iteration to draw"}, nil
	}
	index, start, end, ok := sc.pick()
	if !ok {
		return &Timeline{Missing: fmt.Sprintf("the trace holds %d calls at the loop's marker: too few to bound an iteration",
			len(sc.starts))}, nil
	}
	calls, err := collect(tracePath, sc.pid, start, end)
	if err != nil {
		return nil, err
	}
	tl := timeline(p, calls, start, end-start)
	tl.Index, tl.Of, tl.NoLaunches = index+1, len(sc.starts), sc.stats.NoLaunches
	tl.What = "the plan's prediction"
	if h := planner.ForecastFor(p).Headline; h != nil && h.Strategy == plan.StrategyPinned {
		tl.What += ": pinned, the copies kept, their host side pinned"
	} else if h != nil {
		tl.What += ": " + string(h.Strategy) + ", the copies of the pairs it merges removed"
	}
	if calibrated(p) {
		tl.What = "as deployed: the copies of the enabled pairs removed"
		if p.Context.Strategy == plan.StrategyPinned {
			tl.What = "as deployed: the enabled pairs' copies kept, their host side pinned"
		}
		if !calibratedEnabled(p) {
			tl.What = "as deployed: calibration enabled no pair, so the program runs as written"
		}
	}
	return tl, nil
}

// calibratedEnabled reports whether calibration enabled any pair.
func calibratedEnabled(p *plan.Plan) bool {
	for _, pair := range p.Pairs {
		if pair.Status == plan.StatusEnabled {
			return p.Context.Strategy != ""
		}
	}
	return false
}

// FindTrace finds the trace a plan was made from: the path the plan records (as given then,
// so also beside the plan when relative), then where optimize (PLAN.trace) and plan
// (TRACE.plan) put it. A file there that is another trace is passed over. "" when none is.
func FindTrace(planPath string, p *plan.Plan) string {
	var candidates []string
	if t := p.Trace.Path; t != "" {
		candidates = append(candidates, t)
		if !filepath.IsAbs(t) {
			candidates = append(candidates, filepath.Join(filepath.Dir(planPath), t))
		}
	}
	candidates = append(candidates, plan.SideFile(planPath, plan.SideTrace))
	if base, ok := strings.CutSuffix(planPath, ".plan"); ok {
		candidates = append(candidates, base)
	}
	for _, c := range candidates {
		if sameTrace(c, p) == nil {
			return c
		}
	}
	return ""
}

// sameTrace checks that the trace at path is the one the plan was made from: the same
// traced process, started at the same time.
func sameTrace(path string, p *plan.Plan) error {
	r, c, err := openTrace(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err != nil {
		return err
	}
	defer c.Close()
	h := r.Header()
	if h.PID != p.Trace.PID || !h.Start.Equal(p.Trace.Start) {
		return fmt.Errorf("%s is not the trace the plan was made from (pid %d at %s, the plan's: pid %d at %s): "+
			"what it shows may not match the plan", path, h.PID, h.Start.Format(time.RFC3339), p.Trace.PID,
			p.Trace.Start.Format(time.RFC3339))
	}
	return nil
}
