package calibrate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/echo-uma/echo/internal/infile"
	"github.com/echo-uma/echo/internal/outfile"
	"github.com/echo-uma/echo/plan"
)

// RecordSchema names the format of a calibration record; a reader refuses any other.
const RecordSchema = "echo.calibration/1"

// RecordPath is where a plan's calibration record lies: beside the plan, named after it like
// its trace (PLAN.trace) and deployed form (PLAN.shim), so one .gitignore line covers them.
func RecordPath(planPath string) string { return plan.SideFile(planPath, plan.SideCalibration) }

// Record is what a calibration measured, round by round: the plan keeps only the verdict and
// the medians in its evidence, and a person looking at the choice (echoctl report) wants to
// see how far the rounds of each strategy spread.
type Record struct {
	Schema string `json:"schema"`
	// PlanCreated is the measured plan's creation time: a plan made afresh from another trace
	// at the same path keeps an older record beside it, which must not pass for its own.
	PlanCreated time.Time     `json:"plan_created"`
	Device      string        `json:"device,omitempty"` // GPU name, as the run reported it
	Baseline    Variant       `json:"baseline"`
	Variants    []Variant     `json:"variants"`
	Chosen      plan.Strategy `json:"chosen,omitempty"`
	CopyMS      float64       `json:"copy_ms"`
	// EnergySource says what measured the variants' energy ("nvml", "ina3221"); "" not measured.
	EnergySource string `json:"energy_source,omitempty"`
}

// WriteRecord writes the record of r, a calibration of p, beside the plan at planPath.
func WriteRecord(planPath string, p *plan.Plan, r *Result) error {
	rec := Record{Schema: RecordSchema, PlanCreated: p.Created, Device: r.Device.GPU,
		Baseline: r.Baseline, Variants: r.Variants, Chosen: r.Chosen, CopyMS: r.CopyMS,
		EnergySource: r.Device.EnergySource}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the calibration record: %w", err)
	}
	return outfile.WriteFile(RecordPath(planPath), append(data, '\n'), nil)
}

// ReadRecord reads the calibration record beside the plan at planPath, made for p. It
// returns nil and no error when there is none, or when the one there is for another plan.
func ReadRecord(planPath string, p *plan.Plan) (*Record, error) {
	path := RecordPath(planPath)
	data, err := infile.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the calibration record: %w", err)
	}
	var rec Record
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if rec.Schema != RecordSchema {
		return nil, fmt.Errorf("reading %s: schema %q, want %q", path, rec.Schema, RecordSchema)
	}
	if !rec.PlanCreated.Equal(p.Created) {
		return nil, nil // a record of an earlier plan at this path
	}
	return &rec, nil
}
