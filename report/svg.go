package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/echo-uma/echo/calibrate"
)

// The charts are drawn here, as coordinates; the template writes them out as SVG elements,
// escaping every label on the way, so nothing a trace holds can become markup.

// Rect is one bar or box of a chart.
type Rect struct {
	X, Y, W, H float64
	Class      string // what it is, for the page's style: kind of call, or chart part
	Title      string // its tooltip
	Pairs      string // pairs it belongs to, for highlighting from the pair table
}

// Text is a label at a point.
type Text struct {
	X, Y   float64
	Anchor string // start, middle, end
	Class  string
	S      string
}

// Line is a rule or a whisker.
type Line struct {
	X1, Y1, X2, Y2 float64
	Class          string
}

// Dot is one measurement.
type Dot struct {
	X, Y  float64
	Title string
}

// Chart is one SVG picture.
type Chart struct {
	W, H  float64
	Rects []Rect
	Texts []Text
	Lines []Line
	Dots  []Dot
}

// Geometry of the timeline.
const (
	chartW    = 1160.0
	laneLabel = 190.0 // the lane names' column
	laneH     = 24.0
	barH      = 16.0
	axisH     = 22.0
	minBarW   = 3.0 // a call too short to see at this scale is still drawn
)

// timelineCharts draws the iteration before and after the plan on one time scale, the
// before's length, so what the plan removes shows as the after's shorter span.
func timelineCharts(tl *Timeline) (before, after Chart) {
	lanes := laneOrder(tl.Before)
	span := float64(max(tl.BeforeNS, 1))
	return laneChart(tl.Before, lanes, span, tl.BeforeNS), laneChart(tl.After, lanes, span, tl.AfterNS)
}

// laneOrder: the legacy stream, the per-thread one, the created streams in the order they
// first appear, and the waits on the device and events last.
func laneOrder(bars []Bar) []string {
	rank := func(l string) int {
		switch l {
		case "legacy stream":
			return 0
		case "per-thread stream":
			return 1
		case waitLane:
			return 3
		}
		return 2
	}
	var lanes []string
	for _, b := range bars {
		if !slices.Contains(lanes, b.Lane) {
			lanes = append(lanes, b.Lane)
		}
	}
	slices.SortStableFunc(lanes, func(a, b string) int { return cmp.Compare(rank(a), rank(b)) })
	return lanes
}

func laneChart(bars []Bar, lanes []string, span float64, length uint64) Chart {
	plot := chartW - laneLabel - 10
	x := func(ns uint64) float64 { return laneLabel + plot*float64(ns)/span }
	c := Chart{W: chartW, H: axisH + laneH*float64(max(len(lanes), 1)) + 6}
	for i, l := range lanes {
		y := axisH + laneH*float64(i)
		c.Texts = append(c.Texts, Text{X: laneLabel - 8, Y: y + laneH/2 + 4, Anchor: "end", Class: "lane", S: l})
		c.Lines = append(c.Lines, Line{X1: laneLabel, Y1: y + laneH, X2: chartW - 10, Y2: y + laneH, Class: "grid"})
	}
	for _, t := range ticks(span / 1e6) {
		tx := laneLabel + plot*t*1e6/span
		c.Lines = append(c.Lines, Line{X1: tx, Y1: axisH - 4, X2: tx, Y2: c.H - 6, Class: "tick"})
		c.Texts = append(c.Texts, Text{X: tx, Y: axisH - 8, Anchor: "middle", Class: "axis", S: formatMS(t)})
	}
	end := x(length)
	c.Lines = append(c.Lines, Line{X1: end, Y1: axisH - 4, X2: end, Y2: c.H - 6, Class: "end"})
	// The long calls first, so that a launch or a synchronize next to a copy stays in sight.
	bars = slices.Clone(bars)
	slices.SortStableFunc(bars, func(a, b Bar) int { return cmp.Compare(drawLast(a.Kind), drawLast(b.Kind)) })
	for _, b := range bars {
		y := axisH + laneH*float64(slices.Index(lanes, b.Lane)) + (laneH-barH)/2
		class := "bar " + b.Kind
		if b.Pinned {
			class += " pinned"
		}
		if b.Elided {
			class += " elided"
		}
		c.Rects = append(c.Rects, Rect{X: x(b.Start), Y: y, W: max(minBarW, x(b.End)-x(b.Start)), H: barH,
			Class: class, Title: fmt.Sprintf("%s: %s from %s", b.Label, formatMS(float64(b.End-b.Start)/1e6),
				formatMS(float64(b.Start)/1e6)), Pairs: b.Pairs})
	}
	return c
}

// drawLast ranks the kinds of call by drawing order: the short ones on top.
func drawLast(kind string) int {
	if kind == kindCopy || kind == kindKept {
		return 0
	}
	return 1
}

// ticks are round values from 0 to below max, about six of them.
func ticks(max float64) []float64 {
	if max <= 0 {
		return nil
	}
	step := math.Pow(10, math.Floor(math.Log10(max/6)))
	for _, m := range []float64{1, 2, 5, 10} {
		if max/(step*m) <= 7 {
			step *= m
			break
		}
	}
	var out []float64
	for t := 0.0; t < max*0.999; t += step {
		out = append(out, t)
	}
	return out
}

// calibrationChart draws each variant's rounds on one ms/iteration axis: a dot per round,
// a whisker from the fastest to the slowest, and a box of the median ± half the spread
// (the spread is twice the median absolute deviation, so the box is one deviation either
// side), with the median marked.
func calibrationChart(c Calibration) *Chart {
	vs := c.variants()
	if len(vs) == 0 {
		return nil
	}
	const rowH, left, right = 34.0, 150.0, 230.0
	top := axisH
	hi := 0.0
	for _, v := range vs {
		for _, ms := range v.RoundMS {
			hi = max(hi, ms)
		}
		hi = max(hi, v.MedianMS+v.SpreadMS/2)
	}
	if hi == 0 {
		return nil
	}
	hi *= 1.08
	plot := chartW - left - right
	x := func(ms float64) float64 { return left + plot*ms/hi }
	ch := &Chart{W: chartW, H: top + rowH*float64(len(vs)) + 8}
	for _, t := range ticks(hi) {
		ch.Lines = append(ch.Lines, Line{X1: x(t), Y1: top - 4, X2: x(t), Y2: ch.H - 6, Class: "tick"})
		ch.Texts = append(ch.Texts, Text{X: x(t), Y: top - 8, Anchor: "middle", Class: "axis", S: formatMS(t)})
	}
	base := vs[0].MedianMS
	for i, v := range vs {
		y := top + rowH*float64(i)
		mid := y + rowH/2
		name := string(v.Strategy)
		class := "variant"
		if v.Strategy == c.Record.Chosen && c.Record.Chosen != "" {
			name += " ✓ chosen"
			class += " chosen"
		}
		ch.Texts = append(ch.Texts, Text{X: left - 10, Y: mid + 4, Anchor: "end", Class: "lane", S: name})
		if len(v.RoundMS) > 0 {
			lo, hiR := slices.Min(v.RoundMS), slices.Max(v.RoundMS)
			ch.Lines = append(ch.Lines, Line{X1: x(lo), Y1: mid, X2: x(hiR), Y2: mid, Class: "whisker"})
		}
		ch.Rects = append(ch.Rects, Rect{X: x(max(0, v.MedianMS-v.SpreadMS/2)), Y: mid - 8, W: max(minBarW, x(v.SpreadMS)-x(0)),
			H: 16, Class: class, Title: fmt.Sprintf("%s: median %s, spread %s over %d rounds", v.Strategy,
				formatMS(v.MedianMS), formatMS(v.SpreadMS), len(v.RoundMS))})
		ch.Lines = append(ch.Lines, Line{X1: x(v.MedianMS), Y1: mid - 10, X2: x(v.MedianMS), Y2: mid + 10, Class: "median"})
		for r, ms := range v.RoundMS {
			ch.Dots = append(ch.Dots, Dot{X: x(ms), Y: mid, Title: fmt.Sprintf("%s round %d: %s", v.Strategy, r+1, formatMS(ms))})
		}
		ch.Texts = append(ch.Texts, Text{X: chartW - right + 12, Y: mid + 4, Anchor: "start", Class: "value",
			S: verdictText(v, base)})
	}
	return ch
}

// verdictText is the figures beside a variant's row.
func verdictText(v calibrate.Variant, base float64) string {
	s := fmt.Sprintf("%s ± %s", formatMS(v.MedianMS), formatMS(v.SpreadMS/2))
	if v.MedianMS > 0 && v.Strategy != "as written" {
		s += fmt.Sprintf("  %.2f×", base/v.MedianMS)
	}
	if v.Strategy != "as written" && v.Refusal() != "" {
		s += "  (!)"
	}
	return s
}
