package pipeline

import (
	"fmt"

	"github.com/echo-uma/echo/internal/outfile"
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/planner"
	"github.com/echo-uma/echo/trace"
)

// PlanFromTrace plans from the trace at tracePath (echoctl plan) with o, tool naming the
// plan's writer, and says where the plan goes: output, or beside the trace (TRACE.plan),
// which must be neither the trace nor any of the source files given.
func PlanFromTrace(tracePath, output string, sources []string, o planner.Options, tool string) (string, *plan.Plan, error) {
	planPath := output
	if planPath == "" {
		planPath = tracePath + ".plan"
	}
	if err := outfile.NotAnInput(planPath, "the trace", tracePath); err != nil {
		return "", nil, err
	}
	for _, src := range sources {
		if err := outfile.NotAnInput(planPath, "the source file "+src, src); err != nil {
			return "", nil, err
		}
	}
	tf, err := trace.Open(tracePath)
	if err != nil {
		return "", nil, err
	}
	defer tf.Close()
	r := tf.Reader
	p, err := planner.Analyze(r, tracePath, o, tool)
	if err != nil {
		return "", nil, fmt.Errorf("planning: %w", err) // Analyze names the trace
	}
	return planPath, p, nil
}
