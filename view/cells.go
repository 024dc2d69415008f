package view

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// column is one column of a text grid. A width of 0 takes what the others leave.
type column struct {
	title string
	width int
	right bool
}

const gap = "  "

// fit cuts s to exactly w cells, marking a cut with "…", and pads it on the side the
// column aligns away from.
func fit(s string, w int, right bool) string {
	if w <= 0 {
		return ""
	}
	s = ansi.Truncate(s, w, "…")
	pad := strings.Repeat(" ", w-ansi.StringWidth(s))
	if right {
		return pad + s
	}
	return s + pad
}

// clip cuts a finished, possibly styled line to w cells.
func clip(s string, w int) string {
	if ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// grid lays rows out under cols within width w, giving flexible columns the rest.
func grid(cols []column, rows [][]string, w int, indent string) []string {
	cols = flex(cols, w-ansi.StringWidth(indent))
	head := make([]string, len(cols))
	for i, c := range cols {
		head[i] = fit(c.title, c.width, c.right)
	}
	lines := []string{indent + colHeadStyle.Render(strings.TrimRight(strings.Join(head, gap), " "))}
	for _, r := range rows {
		cells := make([]string, len(cols))
		for i, c := range cols {
			cells[i] = fit(r[i], c.width, c.right)
		}
		lines = append(lines, indent+strings.TrimRight(strings.Join(cells, gap), " "))
	}
	return lines
}

// flex hands the width the fixed columns and gaps leave to the columns of width 0,
// splitting it evenly.
func flex(cols []column, w int) []column {
	out := append([]column(nil), cols...)
	used, n := len(gap)*(len(out)-1), 0
	for _, c := range out {
		used += c.width
		if c.width == 0 {
			n++
		}
	}
	if n == 0 {
		return out
	}
	share := max((w-used)/n, 4)
	for i := range out {
		if out[i].width == 0 {
			out[i].width = share
		}
	}
	return out
}
