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

// renderTable lays rows out in columns under a rule, right-aligning the columns in right;
// the last column wraps to what is left of the view's width, cut after maxLines lines when
// maxLines > 0 (cut says which rows were). verdict, when not nil, colours column 5 (the
// verdict) of each row.
func renderTable(st planStyles, headers []string, rows [][]string, right []int, maxLines int,
	verdict func(row int) lipgloss.Style) (_ string, cut []bool) {
	last := len(headers) - 1
	used := 0
	for col := range last {
		w := lipgloss.Width(headers[col])
		for _, row := range rows {
			w = max(w, lipgloss.Width(row[col]))
		}
		used += w + 2
	}
	reasonWidth := max(viewWidth-used, minReasonWidth)
	cut = make([]bool, len(rows))
	for i, row := range rows {
		lines := wrapLines(row[last], reasonWidth, 0)
		if maxLines > 0 && len(lines) > maxLines {
			lines, cut[i] = wrapLines(row[last], reasonWidth, maxLines), true
		}
		row[last] = strings.Join(lines, "\n")
	}
	return columns{headers: headers, rows: rows, right: right, rule: true, ruleStyle: st.dim,
		style: func(row, col int) lipgloss.Style {
			switch {
			case row == table.HeaderRow:
				return st.header
			case col == 5 && verdict != nil:
				return verdict(row)
			}
			return lipgloss.NewStyle()
		}}.render(), cut
}

// wrapLines breaks text at spaces into lines of at most width columns (a longer word is cut),
// keeping at most maxLines and ending the last kept one with … when text goes on.
func wrapLines(text string, width, maxLines int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		if lipgloss.Width(word) > width { // a word longer than a line: cut it
			if line != "" {
				lines, line = append(lines, line), ""
			}
			// Decoded and measured once: cutting and re-measuring the rest per line made a
			// 200 000-character argument take seconds.
			runes := []rune(word)
			for len(runes) > width {
				lines, runes = append(lines, string(runes[:width])), runes[width:]
			}
			word = string(runes)
		}
		switch {
		case line == "":
			line = word
		case lipgloss.Width(line)+1+lipgloss.Width(word) <= width:
			line += " " + word
		default:
			lines, line = append(lines, line), word
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	if maxLines > 0 && len(lines) > maxLines {
		lines = lines[:maxLines]
		cut := []rune(lines[maxLines-1])
		if len(cut) >= width {
			cut = cut[:width-1]
		}
		lines[maxLines-1] = strings.TrimRight(string(cut), " ") + "…"
	}
	return lines
}

// renderLines styles each line of text on its own: lipgloss would pad a block of lines to
// one width.
func renderLines(style lipgloss.Style, text string) string {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for i, l := range lines {
		lines[i] = style.Render(l)
	}
	return strings.Join(lines, "\n") + "\n"
}

// wrapIndented wraps a paragraph to width, indenting every line after the first.
func wrapIndented(text, indent string, width int) string {
	lines := wrapLines(text, width-len(indent), 0)
	return strings.Join(lines, "\n"+indent) + "\n"
}
