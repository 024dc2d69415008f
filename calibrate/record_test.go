package calibrate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/echo-uma/echo/plan"
)

// A calibration record is read back for its own plan only: none, another plan's, or another
// format are told apart.
func TestRecord(t *testing.T) {
	created := time.Date(2026, 11, 29, 10, 0, 0, 123, time.UTC)
	p := &plan.Plan{Created: created}
	res := &Result{Baseline: Variant{RoundMS: []float64{2, 3}, MedianMS: 2.5},
		Variants: []Variant{{Strategy: "mapped", RoundMS: []float64{1, 1.1}, MedianMS: 1.05, Served: 2}}, Chosen: "mapped"}
	for _, c := range []struct {
		name    string
		write   func(planPath string)
		want    bool   // a record comes back
		wantErr string // "": none
	}{
		{"none", func(string) {}, false, ""},
		{"its own", func(path string) {
			if err := WriteRecord(path, p, res); err != nil {
				t.Fatal(err)
			}
		}, true, ""},
		{"an earlier plan's", func(path string) {
			if err := WriteRecord(path, &plan.Plan{Created: created.Add(-time.Second)}, res); err != nil {
				t.Fatal(err)
			}
		}, false, ""},
		{"another format", func(path string) {
			os.WriteFile(RecordPath(path), []byte(`{"schema": "echo.calibration/9"}`), 0o644)
		}, false, `schema "echo.calibration/9"`},
		{"not JSON", func(path string) { os.WriteFile(RecordPath(path), []byte("rounds"), 0o644) }, false, "reading"},
	} {
		planPath := filepath.Join(t.TempDir(), "app.plan")
		c.write(planPath)
		rec, err := ReadRecord(planPath, p)
		if (err == nil) != (c.wantErr == "") || (err != nil && !strings.Contains(err.Error(), c.wantErr)) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.wantErr)
		}
		if (rec != nil) != c.want {
			t.Errorf("%s: record %+v, want one: %v", c.name, rec, c.want)
		}
		if rec != nil && (rec.Chosen != "mapped" || len(rec.Variants) != 1 || rec.Variants[0].RoundMS[1] != 1.1 ||
			rec.Baseline.MedianMS != 2.5) {
			t.Errorf("%s: record %+v does not hold what was written", c.name, rec)
		}
	}
}
