package pipeline

import (
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/echo-uma/echo/export"
	"github.com/echo-uma/echo/internal/outfile"
	"github.com/echo-uma/echo/trace"
)

// ExportTrace writes the trace r (read from tracePath) as a timeline in format to outPath
// ("-": stdout), which must be neither the trace nor the plan at planPath. A trace damaged
// part way still gives the timeline of what was readable, and the error says so; any other
// failure leaves outPath as it was. A plan none of whose copy sites the trace has is warned
// of: it is likely another program's.
func ExportTrace(stdout io.Writer, r *trace.Reader, format export.Format, xopts export.Options, tracePath, planPath, outPath string) (export.Summary, error) {
	if err := outfile.NotAnInput(outPath, "the trace", tracePath); err != nil {
		return export.Summary{}, err
	}
	if err := outfile.NotAnInput(outPath, "the plan", planPath); err != nil {
		return export.Summary{}, err
	}
	out, err := outfile.Create(outPath, stdout)
	if err != nil {
		return export.Summary{}, err
	}
	sum, err := export.Export(out, r, format, xopts)
	re, damaged := errors.AsType[*export.ReadError](err)
	if err != nil && !damaged {
		out.Abort()
	} else if cerr := out.Commit(); err == nil && cerr != nil {
		err = cerr
	}
	if damaged {
		where := outPath
		if where == "-" {
			where = "the output"
		}
		return sum, fmt.Errorf("reading %s: %w (%s holds the %d events before it and opens)", tracePath, re.Err, where, sum.Events)
	}
	if err != nil {
		return sum, fmt.Errorf("exporting %s to %s: %w", tracePath, outPath, err)
	}
	if xopts.Plan != nil && sum.Highlighted == 0 && len(xopts.Plan.Pairs) > 0 {
		slog.Warn("no copy in the trace is at a copy site of the plan's pairs: is the plan for another program or build?",
			"plan", planPath, "trace", tracePath)
	}
	return sum, nil
}
