package view

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/echo-uma/echo/internal/units"
	"github.com/echo-uma/echo/live"
)

// procCol is a column of the process table. drop orders what goes first when the
// terminal is narrow; 0 is never dropped.
type procCol struct {
	column
	drop int
	cell func(live.Row) string
}

const (
	markWidth   = 2  // "▸ " before the selected row
	commMin     = 15 // TASK_COMM_LEN-1: a comm is never longer, so never cut at this width
	cmdlineMin  = 20 // below this a command line says too little to be worth a column
	cmdlineName = "CMDLINE"
)

func procCols() []procCol {
	return []procCol{
		{column{"PID", 7, true}, 0, func(r live.Row) string { return strconv.Itoa(r.PID) }},
		{column{"COMMAND", commMin, false}, 0, func(r live.Row) string { return r.Comm }},
		{column{"COPY%", 6, true}, 0, func(r live.Row) string { return percent(r.CopyShare) }},
		{column{"H2D/s", 10, true}, 4, func(r live.Row) string { return units.Rate(r.H2DBytesPerS) }},
		{column{"D2H/s", 10, true}, 3, func(r live.Row) string { return units.Rate(r.D2HBytesPerS) }},
		{column{"COPIES/s", 8, true}, 2, func(r live.Row) string { return count(r.CopiesPerS) }},
		{column{"LAUNCH/s", len(notTraced), true}, 1, func(r live.Row) string { return launches(r) }},
		{column{"PAIRS", 5, true}, 0, func(r live.Row) string { return strconv.Itoa(r.Pairs) }},
		{column{"LOST", 6, true}, 0, func(r live.Row) string { return count(float64(r.Lost)) }},
	}
}

// notTraced is what a count says when its calls were not probed: 0 would say they were and
// none came.
const notTraced = "not traced"

// launches is a row's launches per second, or that they were not probed.
func launches(r live.Row) string {
	if r.NoLaunches {
		return notTraced
	}
	return count(r.LaunchesPerS)
}

// layout picks the columns that fit in w, dropping the least telling first, and gives a
// wide terminal's spare room to the command line.
func layout(w int) []procCol {
	cols := procCols()
	for width(cols) > w {
		worst := -1
		for i, c := range cols {
			if c.drop > 0 && (worst < 0 || c.drop < cols[worst].drop) {
				worst = i
			}
		}
		if worst < 0 {
			break // the line is clipped at the edge instead
		}
		cols = append(cols[:worst], cols[worst+1:]...)
	}
	if spare := w - width(cols) - len(gap); spare >= cmdlineMin {
		cols = append(cols, procCol{column{cmdlineName, spare, false}, 0,
			func(r live.Row) string { return r.Command }})
	}
	return cols
}

func width(cols []procCol) int {
	n := markWidth + len(gap)*(len(cols)-1)
	for _, c := range cols {
		n += c.width
	}
	return n
}

func tableHead(cols []procCol) string {
	cells := make([]string, len(cols))
	for i, c := range cols {
		cells[i] = fit(c.title, c.width, c.right)
	}
	return strings.Repeat(" ", markWidth) + colHeadStyle.Render(strings.TrimRight(strings.Join(cells, gap), " "))
}

// tableRow renders one process. A process that could not be traced shows why in place of
// its numbers, which would all be zero and mislead.
func tableRow(r live.Row, cols []procCol, w int, selected bool) string {
	mark := "  "
	if selected {
		mark = "▸ "
	}
	var cells []string
	for _, c := range cols {
		if r.Error != "" && c.title != "PID" && c.title != "COMMAND" {
			rest := w - ansi.StringWidth(mark+strings.Join(cells, gap)) - len(gap)
			// The error is the last cell: trimmed before it is styled, or the style's reset
			// after the padding would keep the line's end from being trimmed.
			cells = append(cells, styled(errorStyle, strings.TrimRight(fit("error: "+r.Error, rest, false), " "), selected))
			break
		}
		cell := fit(c.cell(r), c.width, c.right)
		if c.title == "LOST" && r.Lost > 0 {
			cell = styled(lostStyle, cell, selected)
		}
		cells = append(cells, cell)
	}
	line := strings.TrimRight(mark+strings.Join(cells, gap), " ")
	if selected {
		return selectedStyle.Render(line)
	}
	return line
}

// styled applies s unless the row is selected: a cell's reset would end the selected
// row's reverse video halfway along.
func styled(s lipgloss.Style, cell string, selected bool) string {
	if selected {
		return cell
	}
	return s.Render(cell)
}

// moreLine says how many rows did not fit, above and below the window.
func moreLine(above, below int) string {
	switch {
	case above > 0 && below > 0:
		return fmt.Sprintf("  … %d above, %d more", above, below)
	case above > 0:
		return fmt.Sprintf("  … %d above", above)
	default:
		return fmt.Sprintf("  … %d more", below)
	}
}
