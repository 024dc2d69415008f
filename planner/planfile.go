package planner

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/echo-uma/echo/internal/infile"
	"github.com/echo-uma/echo/internal/outfile"
	"github.com/echo-uma/echo/trace"
)

// maxPlanSize bounds what Read takes in: a plan holds a few records per pair, so anything
// near this is not a plan, and a file given by mistake must not be read into memory whole.
const maxPlanSize = 64 << 20

// Write writes the plan as indented JSON (PLAN.md) with a trailing newline. It refuses a plan
// that Validate rejects: such a plan would not read back, so writing it is a bug upstream.
func (p *Plan) Write(w io.Writer) error {
	if err := p.Check(); err != nil {
		return fmt.Errorf("not writing an invalid plan: %w", err)
	}
	q := *p
	q.Schema = Schema()
	q.Trace.CommandBytes = trace.RawArgs(q.Trace.Command)
	if q.Pairs == nil { // "pairs": [] says no pair was found; null would read as a gap
		q.Pairs = []Pair{}
	}
	if q.Rejected == nil {
		q.Rejected = []Rejection{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // command lines keep their < > & readable
	if err := enc.Encode(&q); err != nil {
		return fmt.Errorf("encoding plan: %w", err)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("writing plan: %w", err)
	}
	return nil
}

// WriteFile writes the plan to path as outfile writes any output: "-" is standard output, a
// regular file is replaced whole (a reader never sees half a plan, and a failed write leaves
// the old plan in place), a link's target or a device is written in place.
func WriteFile(path string, p *Plan) error {
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		return err
	}
	return outfile.WriteFile(path, buf.Bytes(), os.Stdout)
}

// ReadFile reads and checks the plan at path (Read).
func ReadFile(path string) (*Plan, error) {
	f, err := infile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening plan: %w", err)
	}
	defer f.Close()
	p, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return p, nil
}

// Schema is the "schema" a plan written now carries: the plan format and its version, in
// the form every echoctl JSON document names itself.
func Schema() string { return schemaOf(Version) }

func schemaOf(version int) string { return fmt.Sprintf("echo.plan/%d", version) }

// Read parses a plan strictly: one JSON object and nothing after it, a version this package
// knows, no field it does not know, every field present that Write always writes, and
// values that pass Validate. A plan is acted on without a human looking at it again, so
// anything unexpected is an error rather than a guess.
func Read(r io.Reader) (*Plan, error) {
	raw, err := readOneValue(io.LimitReader(r, maxPlanSize+1))
	if err != nil {
		return nil, err
	}
	if err := checkVersion(raw); err != nil {
		return nil, err
	}
	var tree any
	if err := json.Unmarshal(raw, &tree); err != nil {
		return nil, fmt.Errorf("not an Echo plan: %w", err)
	}
	if err := checkShape(tree); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var p Plan
	if err := dec.Decode(&p); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			// Said in the plan's own terms, not the Go struct's.
			return nil, fmt.Errorf("plan: %s: %s, not a %s", typeErr.Field, typeErr.Value, typeErr.Type)
		}
		return nil, fmt.Errorf("plan: %w", err)
	}
	if p.Version < 3 { // before strategies were said per pair, every pair that counted could merge
		for i := range p.Pairs {
			if p.Pairs[i].Status.Counted() && p.Pairs[i].Strategies == nil {
				p.Pairs[i].Strategies = slices.Clone(MergeStrategies)
			}
		}
	}
	if p.Schema != "" && p.Schema != schemaOf(p.Version) {
		return nil, fmt.Errorf("plan: schema %q does not match version %d (%s)", p.Schema, p.Version, schemaOf(p.Version))
	}
	p.Trace.Command = trace.WithRawArgs(p.Trace.Command, p.Trace.CommandBytes)
	p.Trace.CommandBytes = nil
	p.Version = Version // an older plan is this version without what was added since
	p.Schema = ""       // Write names the document; in memory a plan is its fields
	if err := p.Check(); err != nil {
		return nil, err
	}
	return &p, nil
}

// readOneValue returns the single JSON object r holds, and fails on anything else: nothing,
// a truncated value, a value that is not an object, or more after it.
func readOneValue(r io.Reader) (json.RawMessage, error) {
	counted := &countingReader{r: r}
	dec := json.NewDecoder(counted)
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		var syntax *json.SyntaxError
		switch {
		case counted.n > maxPlanSize:
			return nil, fmt.Errorf("not an Echo plan: larger than %d MiB", maxPlanSize>>20)
		case errors.Is(err, io.EOF):
			return nil, errors.New("not an Echo plan: the file is empty")
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, errors.New("plan is cut short: the JSON ends before the plan does")
		case errors.As(err, &syntax):
			return nil, fmt.Errorf("not an Echo plan: invalid JSON at byte %d: %w", syntax.Offset, err)
		}
		return nil, fmt.Errorf("reading plan: %w", err)
	}
	if raw[0] != '{' {
		return nil, errors.New("not an Echo plan: the JSON is not an object")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("plan: unexpected data after the plan at byte %d", dec.InputOffset())
	}
	if counted.n > maxPlanSize {
		return nil, fmt.Errorf("not an Echo plan: larger than %d MiB", maxPlanSize>>20)
	}
	return raw, nil
}

// checkVersion reads the version before anything else, so that a plan from a newer echoctl
// is reported as such rather than as a list of fields this one does not know.
func checkVersion(raw json.RawMessage) error {
	var head map[string]json.RawMessage
	if err := json.Unmarshal(raw, &head); err != nil {
		return fmt.Errorf("not an Echo plan: %w", err)
	}
	v, ok := head["version"]
	if !ok {
		return errors.New("not an Echo plan: no version")
	}
	var version int
	if err := json.Unmarshal(v, &version); err != nil {
		return fmt.Errorf("not an Echo plan: version %s is not a whole number", v)
	}
	switch {
	case version == 0:
		return errors.New("not an Echo plan: no version")
	case version < 0:
		return fmt.Errorf("not an Echo plan: version %d", version)
	case version > Version:
		return fmt.Errorf("plan format version %d is newer than this echoctl understands (%d)", version, Version)
	case version < oldestVersion:
		return fmt.Errorf("plan format version %d is older than this echoctl reads (%d): make a new plan with echoctl plan", version, oldestVersion)
	}
	return nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
