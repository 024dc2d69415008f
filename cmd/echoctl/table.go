package main

import (
	"slices"
	"strings"

	"charm.land/lipgloss/v2"
	"charm.land/lipgloss/v2/table"
)

// columns is a table for the text commands print (plan, check, stats, calibrate, attach
// --once): lipgloss's table with no borders, two spaces between columns and every line
// trimmed at its end, so that the columns stay put and a pipe reads them with awk. Styles
// are the caller's; they show only where the writer is a terminal (see planStyles).
type columns struct {
	headers   []string
	rows      [][]string
	right     []int                             // right-aligned columns: numbers
	rule      bool                              // a rule under the headers (plan, check); none where a script reads the rows
	ruleStyle lipgloss.Style                    // the rule's
	style     func(row, col int) lipgloss.Style // nil: no styling; row is table.HeaderRow for the headers
}

// render lays the table out; it ends in a newline.
func (c columns) render() string {
	last := len(c.headers) - 1
	t := table.New().
		Border(lipgloss.NormalBorder()).
		BorderTop(false).BorderBottom(false).BorderLeft(false).BorderRight(false).
		BorderColumn(false).BorderRow(false).BorderHeader(c.rule).
		BorderStyle(c.ruleStyle).
		Headers(c.headers...).
		Rows(c.rows...).
		StyleFunc(func(row, col int) lipgloss.Style {
			s := lipgloss.NewStyle()
			if c.style != nil {
				s = c.style(row, col)
			}
			if col < last {
				s = s.PaddingRight(2)
			}
			if slices.Contains(c.right, col) {
				s = s.Align(lipgloss.Right)
			}
			return s
		})
	lines := strings.Split(t.Render(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}
