package planview

import (
	"strings"

	"charm.land/lipgloss/v2"
	"charm.land/lipgloss/v2/table"

	"github.com/echo-uma/echo/internal/texttable"
)

// Table lays rows out in columns under a rule, right-aligning the columns in right;
// the last column wraps to what is left of the view's width, cut after maxLines lines when
// maxLines > 0 (cut says which rows were). verdict, when not nil, colours column 5 (the
// verdict) of each row.
func Table(st Styles, headers []string, rows [][]string, right []int, maxLines int,
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
	reasonWidth := max(Width-used, minReasonWidth)
	cut = make([]bool, len(rows))
	for i, row := range rows {
		lines := texttable.WrapLines(row[last], reasonWidth, 0)
		if maxLines > 0 && len(lines) > maxLines {
			lines, cut[i] = texttable.WrapLines(row[last], reasonWidth, maxLines), true
		}
		row[last] = strings.Join(lines, "\n")
	}
	return texttable.Columns{Headers: headers, Rows: rows, Right: right, Rule: true, RuleStyle: st.dim,
		Style: func(row, col int) lipgloss.Style {
			switch {
			case row == table.HeaderRow:
				return st.header
			case col == 5 && verdict != nil:
				return verdict(row)
			}
			return lipgloss.NewStyle()
		}}.Render(), cut
}
