package view

import (
	"fmt"
	"strings"

	"github.com/echo-uma/echo/internal/units"
	"github.com/echo-uma/echo/live"
	"github.com/echo-uma/echo/symbols"
)

// detailLines renders the detail pane for r within width w: what it runs, what was probed,
// where its copy time goes, which pairs the planner found, and the command to try next.
func detailLines(r live.Row, w int) (lines []string, tail int) {
	title := fmt.Sprintf("── %d %s ", r.PID, r.Comm)
	lines = []string{titleStyle.Render(title + strings.Repeat("─", max(w-len([]rune(title)), 0)))}
	lines = append(lines, "command    "+orNone(r.Command))
	lines = append(lines, "libraries  "+orNone(strings.Join(r.Libraries, ", ")))
	if r.Error != "" {
		lines = append(lines, errorStyle.Render("error      "+r.Error))
	}

	d := r.Detail
	sites := make([][]string, len(d.TopSites))
	for i, s := range d.TopSites {
		sites[i] = []string{symbols.Label(s.Site, s.Symbol), s.API, s.Direction, units.Bytes(s.BytesPerCopy),
			count(s.PerS), percent(s.Share)}
	}
	lines = append(lines, section("top copy sites", "none in this interval", []column{
		{"SITE", 0, false}, {"API", 18, false}, {"DIR", 4, false},
		{"BYTES/COPY", 10, true}, {"PER S", 6, true}, {"SHARE", 6, true},
	}, sites, w)...)

	pairs := make([][]string, len(d.PairList))
	for i, p := range d.PairList {
		pairs[i] = []string{string(p.Direction), units.Bytes(p.Bytes), speedup(p.Speedup),
			string(p.Status), p.Reason}
	}
	lines = append(lines, section("pairs", "none found yet", []column{
		{"DIR", 6, false}, {"BYTES", 10, true}, {"BOUND", 8, true},
		{"STATUS", 10, false}, {"REASON", 0, false},
	}, pairs, w)...)

	lines = append(lines, "predicted speed-up  "+speedup(d.PredictedSpeedup))
	tail = 1
	if d.Optimize != "" {
		// The command is for copying whole, so it wraps rather than being cut at the edge.
		for _, l := range wrap("try: "+d.Optimize, w) {
			lines = append(lines, tryStyle.Render(l))
			tail++
		}
	}
	return lines, tail
}

// wrap splits s into lines of at most w runes.
func wrap(s string, w int) []string {
	r := []rune(s)
	if w <= 0 {
		return []string{s}
	}
	var out []string
	for len(r) > w {
		out = append(out, string(r[:w]))
		r = r[w:]
	}
	return append(out, string(r))
}

// shorten fits the pane into h lines. The last tail lines, the total and the command to
// try, are what the pane is for, so the cut falls in the middle.
func shorten(lines []string, h, tail int) []string {
	if len(lines) <= h {
		return lines
	}
	if h < tail+2 {
		return lines[:max(h, 0)]
	}
	out := append([]string(nil), lines[:h-tail-1]...)
	out = append(out, faintStyle.Render(fmt.Sprintf("  … %d lines cut; enlarge the terminal to see them", len(lines)-h+1)))
	return append(out, lines[len(lines)-tail:]...)
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// section is a titled table of rows, or one line saying there is none ("title: none").
func section(title, none string, cols []column, rows [][]string, w int) []string {
	if len(rows) == 0 {
		return []string{title + ": " + none}
	}
	return append([]string{title}, grid(cols, rows, w, "  ")...)
}
