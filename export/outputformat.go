package export

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/trace"
)

// Format names an output format.
type Format string

// FormatPerfetto is the Chrome trace-event JSON (object form) that ui.perfetto.dev and
// chrome://tracing open.
const FormatPerfetto Format = "perfetto"

// formats are the formats Export writes, the first the default.
var formats = []Format{FormatPerfetto}

// Formats lists the formats Export writes, for help text and errors.
func Formats() []Format { return slices.Clone(formats) }

// ParseFormat checks a format named by a user, so that a command can refuse an unknown one
// before it creates its output file.
func ParseFormat(name string) (Format, error) {
	f := Format(strings.ToLower(strings.TrimSpace(name)))
	if slices.Contains(formats, f) {
		return f, nil
	}
	names := make([]string, len(formats))
	for i, f := range formats {
		names[i] = string(f)
	}
	return "", fmt.Errorf("unknown format %q: supported formats are %s", name, strings.Join(names, ", "))
}

// Options change what an export shows.
type Options struct {
	// Plan, when set, marks the copies at the linking-copy sites of its pairs and adds a
	// summary of its pairs.
	Plan *plan.Plan
	// PlanPath names the plan in the output's metadata.
	PlanPath string
}

// Summary counts what an export wrote.
type Summary struct {
	Events      uint64 // event records read, each written as one slice
	Instants    uint64 // allocation, free and module instants
	Modules     uint64 // module records read
	Processes   int
	Threads     int    // tracks
	Highlighted uint64 // copies at a plan pair's copy sites
}

// ReadError is the trace reader's failure to go on (a damaged or cut short trace, or a
// failing file): the document written holds every record before it and is complete.
type ReadError struct{ Err error }

func (e *ReadError) Error() string { return e.Err.Error() }
func (e *ReadError) Unwrap() error { return e.Err }

// Export converts the trace r reads into format f, writing to w as it reads. When the trace
// is damaged or cut short, what was readable is written as a complete document and the
// reader's error is returned as a *ReadError; any other error is a failure to write.
func Export(w io.Writer, r *trace.Reader, f Format, opts Options) (Summary, error) {
	switch f {
	case FormatPerfetto:
		return writePerfetto(w, r, opts)
	}
	_, err := ParseFormat(string(f))
	return Summary{}, err
}
