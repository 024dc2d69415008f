package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/trace"
)

// exported is the part of an export's JSON the command's tests look at.
type exported struct {
	TraceEvents []struct {
		Ph, Name, Cname string
		Args            map[string]any
	} `json:"traceEvents"`
	Metadata map[string]any `json:"metadata"`
}

func parseExport(t *testing.T, data []byte) exported {
	t.Helper()
	var doc exported
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("the export does not parse: %v\n%.2000s", err, data)
	}
	return doc
}

// slices are the names of the complete events.
func (d exported) slices() []string {
	var names []string
	for _, e := range d.TraceEvents {
		if e.Ph == "X" {
			names = append(names, e.Name)
		}
	}
	return names
}

func TestExportCommand(t *testing.T) {
	start := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	exe := trace.Module{Path: "/opt/app/stream", BuildID: "ab", Start: 0x400000, End: 0x500000, Base: 0x400000, Size: 4096}
	header := trace.Header{Host: "gpu01", Start: start, StartMonoNS: 1_000_000, PID: 4242,
		Command: []string{"./stream"}, Modules: []trace.Module{exe}}
	events := []trace.Event{
		{Type: trace.EventCUDAMalloc, PID: 4242, TID: 4242, Addr: 0x7000_0000, Bytes: 4 << 20, EnterNS: 1_000_000, ExitNS: 1_100_000},
		{Type: trace.EventCUDAMemcpy, PID: 4242, TID: 4242, Kind: trace.KindHostToDevice, Caller: 0x401746,
			Addr: 0x7000_0000, Src: 0x5000_0000, Bytes: 4 << 20, EnterNS: 1_200_000, ExitNS: 1_500_000},
		{Type: trace.EventCUDALaunchKernel, PID: 4242, TID: 4243, Addr: 0x401230, EnterNS: 1_500_000, ExitNS: 1_510_000},
		{Type: trace.EventCUDAMemcpy, PID: 4242, TID: 4242, Kind: trace.KindDeviceToHost, Caller: 0x402000,
			Addr: 0x5000_0000, Src: 0x7000_0000, Bytes: 4 << 20, EnterNS: 1_600_000, ExitNS: 1_700_000},
	}
	clean := &trace.Footer{Complete: true}
	planPath := writeExportPlan(t, exe)

	tests := []struct {
		name      string
		path      string                           // the trace
		args      func(trace, dir string) []string // after "export"
		wantErr   string
		errToo    string   // also in the error
		wantOut   []string // on stdout
		file      string   // the JSON file it writes, under dir; "" for -o - or none
		stdout    bool     // the JSON is on stdout
		wantNames []string // slices in the JSON
		noFile    string   // a file it must not create
	}{
		{
			name: "default output",
			path: writeTrace(t, header, clean, events...),
			args: func(p, _ string) []string { return []string{p} },
			wantOut: []string{"trace.bin.json: 4 events on 2 threads in 1 process", "ui.perfetto.dev",
				"offline, a timeline of one iteration per stream as one HTML page that loads nothing: echoctl plan ",
				"trace.bin && echoctl report ", "trace.bin.plan\n"},
			file:      "<trace>.json",
			wantNames: []string{"cudaMalloc", "cudaMemcpy h2d 4.0 MiB", "cudaLaunchKernel 0x401230", "cudaMemcpy d2h 4.0 MiB"},
		},
		{
			name:      "to stdout",
			path:      writeTrace(t, header, clean, events...),
			args:      func(p, _ string) []string { return []string{p, "--format", "perfetto", "-o", "-"} },
			stdout:    true,
			wantNames: []string{"cudaMalloc", "cudaMemcpy h2d 4.0 MiB", "cudaLaunchKernel 0x401230", "cudaMemcpy d2h 4.0 MiB"},
		},
		{
			name: "with a plan",
			path: writeTrace(t, header, clean, events...),
			args: func(p, dir string) []string {
				return []string{p, "--plan", planPath, "-o", filepath.Join(dir, "app.json")}
			},
			wantOut: []string{"app.json: 4 events", "1 copy at the plan's pair sites",
				"offline, a timeline of one iteration per stream as one HTML page that loads nothing: echoctl report " + planPath + " --trace "},
			file:      "app.json",
			wantNames: []string{"cudaMalloc", "cudaMemcpy h2d 4.0 MiB [p1 candidate]", "cudaLaunchKernel 0x401230", "cudaMemcpy d2h 4.0 MiB"},
		},
		{
			name:      "cut short",
			path:      writeTrace(t, header, nil, events[:3]...),
			args:      func(p, dir string) []string { return []string{p, "-o", filepath.Join(dir, "cut.json")} },
			wantErr:   "no footer: the trace was cut short (",
			errToo:    "cut.json holds the 3 events before it and opens)",
			file:      "cut.json",
			wantNames: []string{"cudaMalloc", "cudaMemcpy h2d 4.0 MiB", "cudaLaunchKernel 0x401230"},
		},
		{
			name: "unknown format",
			path: writeTrace(t, header, clean, events...),
			args: func(p, dir string) []string {
				return []string{p, "--format", "svg", "-o", filepath.Join(dir, "x.json")}
			},
			wantErr: `--format: unknown format "svg": supported formats are perfetto`,
			noFile:  "x.json",
		},
		{
			name:    "output over the trace",
			path:    writeTrace(t, header, clean, events...),
			args:    func(p, _ string) []string { return []string{p, "-o", p} },
			wantErr: "is the trace itself",
		},
		{
			name:    "missing trace",
			path:    filepath.Join(t.TempDir(), "nope.bin"),
			args:    func(p, dir string) []string { return []string{p, "-o", filepath.Join(dir, "nope.json")} },
			wantErr: "opening ",
			noFile:  "nope.json",
		},
		{
			name:    "not a plan",
			path:    writeTrace(t, header, clean, events...),
			args:    func(p, dir string) []string { return []string{p, "--plan", p, "-o", filepath.Join(dir, "np.json")} },
			wantErr: "not an Echo plan",
			noFile:  "np.json",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			out, err := execute(t, append([]string{"export"}, tt.args(tt.path, dir)...)...)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("error %v\n%s", err, out)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr) ||
				!strings.Contains(err.Error(), tt.errToo)):
				t.Fatalf("error %v, want one containing %q and %q", err, tt.wantErr, tt.errToo)
			}
			for _, w := range tt.wantOut {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			var data []byte
			var readErr error
			switch {
			case tt.stdout:
				data = []byte(out)
			case tt.file == "<trace>.json":
				data, readErr = os.ReadFile(tt.path + ".json")
			case tt.file != "":
				data, readErr = os.ReadFile(filepath.Join(dir, tt.file))
			}
			if readErr != nil {
				t.Fatalf("reading the export: %v", readErr)
			}
			if tt.file != "" || tt.stdout {
				got := parseExport(t, data).slices()
				if strings.Join(got, "|") != strings.Join(tt.wantNames, "|") {
					t.Errorf("slices %q, want %q", got, tt.wantNames)
				}
			}
			if tt.noFile != "" {
				if _, err := os.Stat(filepath.Join(dir, tt.noFile)); err == nil {
					t.Errorf("%s was created", tt.noFile)
				}
			}
		})
	}
}

// writeExportPlan writes a valid plan with one candidate pair whose copy site is the h2d copy
// of TestExportCommand's trace.
func writeExportPlan(t *testing.T, exe trace.Module) string {
	t.Helper()
	site := func(offset uint64, call string) plan.Site {
		return plan.Site{Module: exe.Path, BuildID: exe.BuildID, Offset: offset, Call: call, Bytes: 4 << 20}
	}
	p := &plan.Plan{
		Version: plan.Version, Created: time.Now(), Tool: "echoctl test",
		Trace:   plan.Source{Path: "trace.bin", Command: []string{"./stream"}, PID: 4242, Host: "gpu01"},
		Context: plan.Context{Executable: plan.Module{Path: exe.Path, BuildID: exe.BuildID}},
		Loop:    plan.Loop{Iterations: 1, MS: 1, CopyMS: 0.3},
		Pairs: []plan.Pair{{
			ID: "p1", Direction: "input", Bytes: 4 << 20,
			Host:   plan.Buffer{Site: site(0x1200, "malloc"), Kind: "pageable"},
			Device: plan.Buffer{Site: site(0x1100, "cudaMalloc"), Kind: "device"},
			Copies: []plan.Copy{{Site: site(0x1746, "cudaMemcpy"), Direction: "h2d", Stream: "legacy",
				Count: 1, PerIteration: 1, MS: 0.3}},
			BytesPerIteration: 4 << 20, CopyMSPerIteration: 0.3, FCopy: 0.3, PredictedSpeedup: 1 / 0.7,
			Status: plan.StatusCandidate, Strategies: plan.MergeStrategies, Evidence: []string{"needs validation"},
		}},
		FCopy: 0.3, PredictedSpeedup: 1 / 0.7,
	}
	path := filepath.Join(t.TempDir(), "app.plan")
	if err := plan.WriteFile(path, p); err != nil {
		t.Fatal(err)
	}
	return path
}
