package view

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/echo-uma/echo/internal/texttable"
	"github.com/echo-uma/echo/internal/units"
	"github.com/echo-uma/echo/live"
)

// WriteRows prints a sample as a plain table, for output that is not a terminal: the
// live view's columns, numbers right-aligned, and for a process that could not be traced
// an ERROR column saying why in place of numbers that would all be zero and mislead.
func WriteRows(w io.Writer, rows []live.Row) error {
	noun := "processes"
	if len(rows) == 1 {
		noun = "process"
	}
	fmt.Fprintf(w, "%s  %d %s\n", time.Now().Format("15:04:05"), len(rows), noun)
	t := texttable.Columns{Headers: []string{"PID", "COMMAND", "COPY%", "H2D/s", "D2H/s", "COPIES/s", "LAUNCH/s", "PAIRS", "LOST"},
		Right: []int{0, 2, 3, 4, 5, 6, 7, 8}}
	failed := false
	for _, r := range rows {
		failed = failed || r.Error != ""
	}
	if failed {
		t.Headers = append(t.Headers, "ERROR")
	}
	for _, r := range rows {
		row := []string{strconv.Itoa(r.PID), r.Comm, "", "", "", "", "", "", ""}
		if r.Error == "" {
			launches := fmt.Sprintf("%.0f", r.LaunchesPerS)
			if r.NoLaunches {
				launches = "not traced" // 0 would say they were probed and none came
			}
			row = []string{strconv.Itoa(r.PID), r.Comm, fmt.Sprintf("%.1f", 100*r.CopyShare),
				units.Rate(r.H2DBytesPerS), units.Rate(r.D2HBytesPerS), fmt.Sprintf("%.0f", r.CopiesPerS),
				launches, strconv.Itoa(r.Pairs), strconv.FormatUint(r.Lost, 10)}
		}
		if failed {
			row = append(row, r.Error)
		}
		t.Rows = append(t.Rows, row)
	}
	_, err := io.WriteString(w, t.Render())
	return err
}
