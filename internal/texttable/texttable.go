// Package texttable lays out the text Echo's commands print: columns a pipe reads with awk,
// and paragraphs wrapped to a width.
package texttable

import (
	"slices"
	"strings"

	"charm.land/lipgloss/v2"
	"charm.land/lipgloss/v2/table"
)

// Columns is a table for the text commands print (plan, check, stats, calibrate, attach
// --once): lipgloss's table with no borders, two spaces between columns and every line
// trimmed at its end, so that the columns stay put and a pipe reads them with awk. Styles
// are the caller's; they show only where the writer is a terminal (see planview.Styles).
type Columns struct {
	Headers   []string
	Rows      [][]string
	Right     []int                             // right-aligned columns: numbers
	Rule      bool                              // a rule under the headers (plan, check); none where a script reads the rows
	RuleStyle lipgloss.Style                    // the rule's
	Style     func(row, col int) lipgloss.Style // nil: no styling; row is table.HeaderRow for the headers
}

// Render lays the table out; it ends in a newline.
func (c Columns) Render() string {
	last := len(c.Headers) - 1
	t := table.New().
		Border(lipgloss.NormalBorder()).
		BorderTop(false).BorderBottom(false).BorderLeft(false).BorderRight(false).
		BorderColumn(false).BorderRow(false).BorderHeader(c.Rule).
		BorderStyle(c.RuleStyle).
		Headers(c.Headers...).
		Rows(c.Rows...).
		StyleFunc(func(row, col int) lipgloss.Style {
			s := lipgloss.NewStyle()
			if c.Style != nil {
				s = c.Style(row, col)
			}
			if col < last {
				s = s.PaddingRight(2)
			}
			if slices.Contains(c.Right, col) {
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

// WrapLines breaks text at spaces into lines of at most width columns (a longer word is cut),
// keeping at most maxLines and ending the last kept one with … when text goes on.
func WrapLines(text string, width, maxLines int) []string {
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

// RenderLines styles each line of text on its own: lipgloss would pad a block of lines to
// one width.
func RenderLines(style lipgloss.Style, text string) string {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for i, l := range lines {
		lines[i] = style.Render(l)
	}
	return strings.Join(lines, "\n") + "\n"
}

// WrapIndented wraps a paragraph to width, indenting every line after the first.
func WrapIndented(text, indent string, width int) string {
	lines := WrapLines(text, width-len(indent), 0)
	return strings.Join(lines, "\n"+indent) + "\n"
}
