package pipeline

import (
	"io"

	"github.com/echo-uma/echo/calibrate"
	"github.com/echo-uma/echo/internal/outfile"
	"github.com/echo-uma/echo/report"
)

// WriteReport writes the HTML report of the plan at planPath (with the trace at tracePath,
// or the plan's own) to outPath ("-": stdout), which must be none of its inputs; a page that
// fails to render leaves outPath as it was.
func WriteReport(stdout io.Writer, planPath, tracePath, outPath string) (*report.Page, error) {
	for what, in := range map[string]string{"the plan": planPath, "the trace": tracePath,
		"the calibration record": calibrate.RecordPath(planPath)} {
		if err := outfile.NotAnInput(outPath, what, in); err != nil {
			return nil, err
		}
	}
	pg, err := report.Build(report.Options{PlanPath: planPath, TracePath: tracePath})
	if err != nil {
		return nil, err
	}
	// The trace the page draws is known only now: the plan's own (PLAN.trace) is found, not named.
	if err := outfile.NotAnInput(outPath, "the plan's trace", pg.TracePath); err != nil {
		return nil, err
	}
	out, err := outfile.Create(outPath, stdout)
	if err != nil {
		return nil, err
	}
	if err := pg.Render(out); err != nil {
		out.Abort()
		return nil, err
	}
	return pg, out.Commit()
}
