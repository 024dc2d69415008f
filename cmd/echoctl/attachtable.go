package main

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/echo-uma/echo/internal/units"
	"github.com/echo-uma/echo/live"
)

// writeRowsTable prints a sample as a plain table, for output that is not a terminal.
func writeRowsTable(w io.Writer, rows []live.Row) error {
	noun := "processes"
	if len(rows) == 1 {
		noun = "process"
	}
	fmt.Fprintf(w, "%s  %d %s\n", time.Now().Format("15:04:05"), len(rows), noun)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "PID\tCOMMAND\tCOPY%\tH2D/s\tD2H/s\tCOPIES/s\tLAUNCH/s\tPAIRS\tLOST\t")
	for _, r := range rows {
		if r.Error != "" {
			fmt.Fprintf(tw, "%d\t%s\t\t\t\t\t\t\t\t%s\n", r.PID, r.Comm, r.Error)
			continue
		}
		fmt.Fprintf(tw, "%d\t%s\t%.1f\t%s\t%s\t%.0f\t%.0f\t%d\t%d\t\n", r.PID, r.Comm, 100*r.CopyShare,
			units.Rate(r.H2DBytesPerS), units.Rate(r.D2HBytesPerS),
			r.CopiesPerS, r.LaunchesPerS, r.Pairs, r.Lost)
	}
	return tw.Flush()
}
