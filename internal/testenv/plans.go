package testenv

import (
	"path/filepath"
	"testing"

	"github.com/echo-uma/echo/plan"
)

// ReadPlan reads the plan file at path, failing the test where it cannot.
func ReadPlan(t testing.TB, path string) *plan.Plan {
	t.Helper()
	p, err := plan.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// WritePlan writes p to a file named name in a fresh temporary directory and returns its path.
func WritePlan(t testing.TB, p *plan.Plan, name string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := plan.WriteFile(path, p); err != nil {
		t.Fatal(err)
	}
	return path
}

// SwappedDevices is p with its first two pairs' device sites swapped: a schema-valid edit
// that would merge the wrong buffers (and change the output), for the tests that a plan
// deploys only what validation and calibration saw. p is left as it was.
func SwappedDevices(p *plan.Plan) *plan.Plan {
	edited := *p
	edited.Pairs = append([]plan.Pair(nil), p.Pairs...)
	edited.Pairs[0].Device.Site, edited.Pairs[1].Device.Site = p.Pairs[1].Device.Site, p.Pairs[0].Device.Site
	return &edited
}
