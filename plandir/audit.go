package plandir

import (
	"bytes"
	"fmt"
	"time"

	"github.com/echo-uma/echo/pipeline"
	"github.com/echo-uma/echo/plan"
)

// Row is what Audit says of one plan of a directory (`echoctl plans ls`, echo.plans/1 in
// docs/json.md).
type Row struct {
	Name       string `json:"name"`
	Plan       string `json:"plan"`       // its file, "" for a compact plan without one
	Deployment string `json:"deployment"` // the compact plan, the file the shim reads; "" when missing
	Executable struct {
		Path    string `json:"path"`
		BuildID string `json:"build_id"`
		Size    int64  `json:"size"`
	} `json:"executable"`
	GPU               string        `json:"gpu"`
	ComputeCapability string        `json:"compute_capability"`
	Driver            int           `json:"driver"`
	Runtime           int           `json:"runtime"`
	Strategy          plan.Strategy `json:"strategy"`
	Pairs             int           `json:"pairs"` // enabled pairs the compact plan serves
	Created           time.Time     `json:"created"`
	Status            string        `json:"status"`  // ok, missing, stale, orphan, unreadable, undeployable, conflict
	Problem           string        `json:"problem"` // what is wrong and what to do, "" when ok
}

// Audit reads the plan directory dir and says, per plan, what it is for and what is wrong
// with it: unreadable, undeployable, missing or stale deployment, orphan deployment, or a
// conflict with another plan for the same executable and GPU (the first problem found).
func Audit(dir string) ([]Row, error) {
	entries, err := Read(dir)
	if err != nil {
		return nil, err
	}
	var rows []Row
	for _, e := range entries {
		r := Row{Name: e.Name, Status: "ok"}
		if e.Deployment != nil {
			r.Deployment = e.DeploymentPath(dir)
		}
		if e.Plan != nil || e.Err != nil {
			r.Plan = e.PlanPath(dir)
		}
		problem := func(status, format string, a ...any) {
			if r.Status == "ok" {
				r.Status, r.Problem = status, fmt.Sprintf(format, a...)
			}
		}
		if e.Err != nil {
			problem("unreadable", "%v: the shim skips a compact plan it cannot read; remove or replace it", e.Err)
		}
		if p := e.Plan; p != nil {
			c := p.Context
			r.Executable.Path, r.Executable.BuildID, r.Executable.Size = c.Executable.Path, c.Executable.BuildID, c.Executable.Size
			r.GPU, r.ComputeCapability, r.Driver, r.Runtime, r.Created = c.GPU, c.ComputeCapability, c.Driver, c.Runtime, p.Created
			compact, d, err := pipeline.Deployed(p)
			r.Strategy, r.Pairs = d.Strategy, len(d.Pairs)
			switch {
			case err != nil:
				problem("undeployable", "%v", err)
			case e.Deployment == nil:
				problem("missing", "no compact plan beside it, so the shim does not see it: echoctl plans add %s %s", dir, r.Plan)
			case !bytes.Equal(e.Deployment, []byte(compact)):
				problem("stale", "its compact plan is not the plan's: echoctl plans add %s %s", dir, r.Plan)
			}
			if other := Conflict(entries, e.Name, p); other != "" {
				problem("conflict", "%s is for the same executable and GPU: the shim runs the program untouched until one goes", other)
			}
		} else if e.Err == nil {
			problem("orphan", "a compact plan without its plan: the shim uses it, but what it is for cannot be listed; add its plan")
		}
		rows = append(rows, r)
	}
	return rows, nil
}
