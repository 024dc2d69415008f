package planview

import (
	"fmt"

	"github.com/echo-uma/echo/internal/texttable"
	"github.com/echo-uma/echo/plandir"
)

// PlanDir is echoctl plans ls's table: what each plan of a plan directory is for (the
// executable, its build-id cut to 12 digits, the GPU), what it deploys, and what is wrong
// with any.
func PlanDir(rows []plandir.Row) string {
	t := texttable.Columns{Headers: []string{"NAME", "EXECUTABLE", "BUILD-ID", "GPU", "STRATEGY", "PAIRS", "CREATED", "STATUS"}, Right: []int{5}, Rule: true}
	for _, r := range rows {
		id := r.Executable.BuildID
		if len(id) > 12 {
			id = id[:12]
		} else if id == "" && r.Executable.Size > 0 {
			id = fmt.Sprintf("size %d", r.Executable.Size)
		}
		gpu := r.GPU
		if r.ComputeCapability != "" {
			gpu += " (" + r.ComputeCapability + ")"
		}
		created := ""
		if !r.Created.IsZero() {
			created = r.Created.Local().Format("2006-01-02 15:04")
		}
		status := r.Status
		if r.Problem != "" {
			status += ": " + r.Problem
		}
		t.Rows = append(t.Rows, []string{r.Name, r.Executable.Path, id, gpu, string(r.Strategy), fmt.Sprint(r.Pairs), created, status})
	}
	return t.Render()
}
