package main

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

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
			rate(r.H2DBytesPerS), rate(r.D2HBytesPerS),
			r.CopiesPerS, r.LaunchesPerS, r.Pairs, r.Lost)
	}
	return tw.Flush()
}

// rate prints bytes per second with a binary unit: 0, 812, 3.4K, 1.2G.
func rate(b float64) string {
	units := []string{"", "K", "M", "G", "T"}
	i := 0
	for ; b >= 1024 && i < len(units)-1; i++ {
		b /= 1024
	}
	if i == 0 {
		return fmt.Sprintf("%.0f", b)
	}
	return fmt.Sprintf("%.1f%s", b, units[i])
}
