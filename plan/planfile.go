package plan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
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
	raw, err := ReadFileBytes(path)
	if err != nil {
		return nil, err
	}
	return ParseFile(path, raw)
}

// ReadFileBytes is the plan file at path as ReadFile reads it (no more than a plan can be),
// for a caller that keys something by the bytes before it parses them (ParseFile): read
// once, the key and the plan are of the same file.
func ReadFileBytes(path string) ([]byte, error) {
	f, err := infile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening plan: %w", err)
	}
	defer f.Close()
	raw, err := infile.ReadAll(f, maxPlanSize+1)
	if err != nil {
		return nil, fmt.Errorf("reading %s: reading plan: %w", path, err)
	}
	return raw, nil
}

// ParseFile checks raw, the bytes of the plan file at path, as ReadFile does.
func ParseFile(path string, raw []byte) (*Plan, error) {
	p, err := parse(raw)
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
	raw, err := infile.ReadAll(r, maxPlanSize+1)
	if err != nil {
		return nil, fmt.Errorf("reading plan: %w", err)
	}
	return parse(raw)
}

func parse(raw []byte) (*Plan, error) {
	tree, err := oneObject(raw)
	if err != nil {
		return nil, err
	}
	if err := checkVersion(tree); err != nil {
		return nil, err
	}
	if err := checkShape(tree); err != nil {
		return nil, err
	}
	var p Plan // checkShape refused unknown keys, more strictly than DisallowUnknownFields
	if err := json.Unmarshal(raw, &p); err != nil {
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

// oneObject is the single JSON object raw holds, as generic JSON, and fails on anything
// else: nothing, a truncated value, a value that is not an object, or more after it. One
// parse serves the version and shape checks, and the plan's struct is decoded from the text
// once more: `echoctl run` reads the whole plan before the program starts, so every pass over
// a large plan (a streamcluster-style program's 901 pairs make 1.6 MB) is start-up time the
// deployed program pays (BenchmarkReadLargePlan).
func oneObject(raw []byte) (map[string]any, error) {
	if len(raw) > maxPlanSize {
		return nil, fmt.Errorf("not an Echo plan: larger than %d MiB", maxPlanSize>>20)
	}
	var tree any
	if json.Unmarshal(raw, &tree) != nil {
		return nil, notOneValue(raw)
	}
	obj, ok := tree.(map[string]any)
	if !ok {
		return nil, errors.New("not an Echo plan: the JSON is not an object")
	}
	return obj, nil
}

// notOneValue says why raw, which json.Unmarshal refused, is not one JSON value: nothing, a
// value cut short, invalid JSON, or a value with more after it. A decoder finds where the
// first value ends, which Unmarshal's error does not tell.
func notOneValue(raw []byte) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	var first json.RawMessage
	err := dec.Decode(&first)
	if err == nil {
		return fmt.Errorf("plan: unexpected data after the plan at byte %d", dec.InputOffset())
	}
	var syntax *json.SyntaxError
	switch {
	case errors.Is(err, io.EOF):
		return errors.New("not an Echo plan: the file is empty")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("plan is cut short: the JSON ends before the plan does")
	case errors.As(err, &syntax):
		return fmt.Errorf("not an Echo plan: invalid JSON at byte %d: %w", syntax.Offset, err)
	}
	return fmt.Errorf("reading plan: %w", err)
}

// checkVersion reads the version before anything else, so that a plan from a newer echoctl
// is reported as such rather than as a list of fields this one does not know.
func checkVersion(head map[string]any) error {
	v, ok := head["version"]
	if !ok {
		return errors.New("not an Echo plan: no version")
	}
	n, isNumber := v.(float64)
	if !isNumber || n != math.Trunc(n) || math.Abs(n) > 1<<53 {
		text, _ := json.Marshal(v)
		return fmt.Errorf("not an Echo plan: version %s is not a whole number", text)
	}
	version := int64(n)
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
