package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// examplePlan is a valid plan: an input and an output candidate and a refused pair, as
// echoctl plan writes for the stream workload.
func examplePlan() *Plan {
	exe := "/opt/app/stream"
	site := func(off uint64, call string, bytes uint64, ordinal int) Site {
		return Site{Module: exe, BuildID: "ab12cd34", Offset: off, Call: call, Bytes: bytes, Ordinal: ordinal}
	}
	const mib4 = 4 << 20
	pair := func(id string, dir PairDirection, copyDir CopyDirection, bytes uint64, hostOff, devOff, copyOff uint64, copyMS, f float64) Pair {
		return Pair{
			ID: id, Direction: dir, Bytes: bytes,
			Host:   Buffer{Site: site(hostOff, "malloc", bytes, 0), Kind: "pageable"},
			Device: Buffer{Site: site(devOff, "cudaMalloc", bytes, 0), Kind: "device"},
			Copies: []Copy{{Site: site(copyOff, "cudaMemcpy", bytes, 0), Direction: copyDir, Stream: "legacy",
				Count: 10, PerIteration: 1, MS: copyMS}},
			BytesPerIteration: bytes, CopyMSPerIteration: copyMS, FCopy: f, PredictedSpeedup: 1 / (1 - f),
			Status: StatusCandidate, Strategies: []Strategy{"managed", "mapped", "system", "pinned"}, Evidence: []string{"same sites in 10 of 10 iterations"},
		}
	}
	small := pair("p3", "input", "h2d", 4096, 0x1300, 0x2300, 0x3300, 0.01, 0.001)
	small.Status, small.Evidence, small.Reason, small.Strategies = StatusRefused, nil, "copies too small to pay (4.0 KiB < 64 KiB)", nil
	return &Plan{
		Version: Version,
		Created: time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC),
		Tool:    "echoctl 0.1.0",
		Trace: Source{Path: "trace.bin", Command: []string{"./stream", "--n", "1048576"}, PID: 4242,
			Host: "gpu01", Start: time.Date(2026, 11, 29, 9, 59, 0, 0, time.UTC)},
		Context: Context{Executable: Module{Path: exe, BuildID: "ab12cd34", Size: 123456},
			Libraries: []Module{{Path: "/usr/lib/libcudart.so.13", BuildID: "ee01", Size: 700000}}},
		Loop: Loop{Iterations: 10, MS: 10, CopyMS: 3, Marker: &Site{Module: exe, BuildID: "ab12cd34",
			Offset: 0x3100, Call: "cudaMemcpy", Bytes: mib4}},
		Pairs: []Pair{
			pair("p1", "input", "h2d", mib4, 0x1100, 0x2100, 0x3100, 2, 0.2),
			pair("p2", "output", "d2h", mib4, 0x1200, 0x2200, 0x3200, 1, 0.1),
			small,
		},
		Rejected: []Rejection{{Site: site(0x3400, "cudaMemcpy", 1024, 0), Direction: "h2d", Count: 10,
			Reason: "partial copy: 1.0 KiB of a 4.0 MiB buffer"}},
		FCopy:            0.3,
		PredictedSpeedup: 1 / (1 - 0.3),
	}
}

func TestPlanRoundTrip(t *testing.T) {
	for _, p := range []*Plan{examplePlan(), {Version: Version, Created: time.Unix(1, 0).UTC(), Tool: "t",
		Trace: Source{Path: "x", Command: []string{"x"}}, PredictedSpeedup: 1},
		// A command line that is not UTF-8 comes back byte for byte, not with U+FFFD.
		{Version: Version, Created: time.Unix(1, 0).UTC(), Tool: "t",
			Trace: Source{Path: "x", Command: []string{"./app\xff", "da\xfeta"}}, PredictedSpeedup: 1}} {
		var buf bytes.Buffer
		if err := p.Write(&buf); err != nil {
			t.Fatal(err)
		}
		if !bytes.HasSuffix(buf.Bytes(), []byte("}\n")) || !bytes.Contains(buf.Bytes(), fmt.Appendf(nil, "\n  \"version\": %d,\n", Version)) {
			t.Errorf("not indented JSON with a trailing newline:\n%s", buf.String())
		}
		got, err := Read(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("reading back what Write wrote: %v\n%s", err, buf.String())
		}
		if p.Pairs == nil { // written as [], read back as empty
			p.Pairs, p.Rejected = []Pair{}, []Rejection{}
		}
		if !reflect.DeepEqual(got, p) {
			t.Errorf("round trip changed the plan:\n got %+v\nwant %+v", got, p)
		}
	}
}

func TestWriteKeepsCommandReadable(t *testing.T) {
	p := examplePlan()
	p.Trace.Command = []string{"sh", "-c", "a < in > out && b"}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"a < in > out && b"`) {
		t.Errorf("command escaped:\n%s", buf.String())
	}
}

func TestWriteRefusesInvalidPlan(t *testing.T) {
	p := examplePlan()
	p.Pairs[0].Status = "merged"
	var buf bytes.Buffer
	err := p.Write(&buf)
	if err == nil || !strings.Contains(err.Error(), `status "merged"`) || buf.Len() != 0 {
		t.Errorf("Write of an invalid plan: %v, wrote %d bytes", err, buf.Len())
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "app.plan")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, examplePlan()); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, examplePlan()) {
		t.Errorf("ReadFile(WriteFile(plan)) differs")
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("plan file mode %v, %v; want the replaced file's 0600", st.Mode(), err)
	}

	bad := examplePlan()
	bad.Tool = ""
	if err := WriteFile(path, bad); err == nil || !strings.Contains(err.Error(), "no tool") {
		t.Errorf("WriteFile of an invalid plan: %v", err)
	}
	if _, err := ReadFile(path); err != nil {
		t.Errorf("a failed write damaged the old plan: %v", err)
	}
	if err := WriteFile(filepath.Join(dir, "missing", "app.plan"), examplePlan()); err == nil ||
		!strings.HasPrefix(err.Error(), "writing "+filepath.Join(dir, "missing", "app.plan")+": ") {
		t.Errorf("WriteFile into a missing directory: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

// A version 1 plan is a version 2 plan without a digest: it reads, as version 2.
func TestReadVersion1(t *testing.T) {
	raw := planJSON(t, func(m map[string]any) { m["version"] = 1; delete(m, "schema") })
	p, err := Read(strings.NewReader(raw))
	if err != nil || p.Version != Version || p.Context.PairsDigest != "" {
		t.Fatalf("Read of a version 1 plan: %v, %+v", err, p)
	}
}

// A plan names itself with the schema of its version; one that says another was edited by
// hand, and is refused rather than read as either.
func TestReadSchema(t *testing.T) {
	raw := planJSON(t, func(map[string]any) {})
	if !strings.Contains(raw, `"schema": "`+Schema()+`"`) {
		t.Errorf("a written plan does not name its schema %s:\n%.200s", Schema(), raw)
	}
	raw = planJSON(t, func(m map[string]any) { m["version"] = 1 })
	if _, err := Read(strings.NewReader(raw)); err == nil || !strings.Contains(err.Error(), "does not match version 1") {
		t.Errorf("Read of a version 1 plan that names %s: %v", Schema(), err)
	}
}

func TestReadFileErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadFile(filepath.Join(dir, "nope.plan")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: %v", err)
	}
	path := filepath.Join(dir, "bad.plan")
	os.WriteFile(path, fmt.Appendf(nil, `{"version": %d}`, Version+1), 0o644)
	if _, err := ReadFile(path); err == nil || err.Error() != fmt.Sprintf("reading %s: plan format version %d is newer than this echoctl understands (%d)", path, Version+1, Version) {
		t.Errorf("newer version: %v", err)
	}
}

// planJSON is the example plan as JSON, edited by f as a user might edit the file.
func planJSON(t *testing.T, f func(m map[string]any)) string {
	t.Helper()
	var buf bytes.Buffer
	if err := examplePlan().Write(&buf); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	f(m)
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func pairJSON(m map[string]any, i int) map[string]any {
	return m["pairs"].([]any)[i].(map[string]any)
}

func TestReadRejects(t *testing.T) {
	valid := planJSON(t, func(map[string]any) {})
	tests := []struct {
		name string
		text string
		want string // the error, or a part of it
	}{
		{"empty", "", "not an Echo plan: the file is empty"},
		{"blank", " \n", "not an Echo plan: the file is empty"},
		{"trace file", "ECHOTRC\x00\x01", "not an Echo plan: invalid JSON at byte 1"},
		{"truncated", valid[:len(valid)/2], "plan is cut short"},
		{"array", "[1, 2]", "not an Echo plan: the JSON is not an object"},
		{"null", "null", "not an Echo plan: the JSON is not an object"},
		{"two values", valid + "\n{}", "plan: unexpected data after the plan"},
		{"garbage after", valid + "x", "plan: unexpected data after the plan"},
		{"no version", planJSON(t, func(m map[string]any) { delete(m, "version") }), "not an Echo plan: no version"},
		{"version 0", planJSON(t, func(m map[string]any) { m["version"] = 0 }), "not an Echo plan: no version"},
		{"version string", planJSON(t, func(m map[string]any) { m["version"] = "1" }), `version "1" is not a whole number`},
		{"version negative", planJSON(t, func(m map[string]any) { m["version"] = -2 }), "not an Echo plan: version -2"},
		{"newer version", planJSON(t, func(m map[string]any) { m["version"] = Version + 1; m["novel"] = true }),
			fmt.Sprintf("plan format version %d is newer than this echoctl understands (%d)", Version+1, Version)},
		{"bad digest", planJSON(t, func(m map[string]any) { m["context"].(map[string]any)["pairs_digest"] = "ABC" }),
			`pairs_digest "ABC" is not 64 lowercase hex digits`},
		{"empty object", "{}", "not an Echo plan: no version"},
		{"unknown field", planJSON(t, func(m map[string]any) { m["colour"] = "red" }), `plan: unknown field "colour"`},
		{"unknown nested field", planJSON(t, func(m map[string]any) { pairJSON(m, 1)["host"].(map[string]any)["sizee"] = 1 }),
			`plan: pairs[1] (p2).host: unknown field "sizee"`},
		{"key in another case", planJSON(t, func(m map[string]any) { m["Tool"] = m["tool"]; delete(m, "tool") }),
			`plan: no "tool"`},
		{"missing field", planJSON(t, func(m map[string]any) {
			delete(pairJSON(m, 0)["copies"].([]any)[0].(map[string]any)["site"].(map[string]any), "offset")
		}),
			`plan: pairs[0] (p1).copies[0].site: no "offset"`},
		{"missing pairs", planJSON(t, func(m map[string]any) { delete(m, "pairs") }), `plan: no "pairs"`},
		{"wrong type", planJSON(t, func(m map[string]any) { pairJSON(m, 0)["bytes"] = "4M" }), "plan: pairs.bytes: string, not a uint64"},
		{"negative bytes", planJSON(t, func(m map[string]any) { pairJSON(m, 0)["bytes"] = -1 }), "plan: pairs.bytes: number -1, not a uint64"},
		{"invalid value", planJSON(t, func(m map[string]any) { pairJSON(m, 2)["status"] = "merged" }),
			`plan: pairs[2] (p3): status "merged" is not one of candidate, refused, validated, calibrated, enabled`},
		{"edited share", planJSON(t, func(m map[string]any) { pairJSON(m, 0)["f_copy"] = 0.5 }),
			"plan: pairs[0] (p1): predicted_speedup 1.25 is not 1/(1-f_copy) = 2"},
		{"bad time", planJSON(t, func(m map[string]any) { m["created"] = "yesterday" }), `plan: parsing time "yesterday"`},
		{"too big", "{" + strings.Repeat(" ", maxPlanSize+1) + "}", "not an Echo plan: larger than 64 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Read(strings.NewReader(tt.text))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Read: %v, want an error containing %q", err, tt.want)
			}
			if p != nil {
				t.Errorf("Read returned a plan with its error")
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(p *Plan)
		want string // "" for a valid plan, or a part of the error
	}{
		{"valid", func(*Plan) {}, ""},
		{"no pairs", func(p *Plan) { p.Pairs, p.FCopy, p.PredictedSpeedup, p.Loop.CopyMS = nil, 0, 1, 0 }, ""},
		{"no loop, all refused", func(p *Plan) {
			p.Loop = Loop{}
			p.Pairs = p.Pairs[2:]
			p.FCopy, p.PredictedSpeedup = 0, 1
		}, ""},
		{"attached, unresolved host", func(p *Plan) {
			p.Trace.Attached = true
			p.Pairs[0].Host = Buffer{Site: Site{Bytes: p.Pairs[0].Bytes}, Unresolved: true}
		}, ""},
		{"no executable", func(p *Plan) { p.Context.Executable = Module{} }, ""},
		{"enabled", func(p *Plan) {
			p.Pairs[0].Status = StatusEnabled
			p.Pairs[0].Evidence = append(p.Pairs[0].Evidence, "mapped: 9.1× faster over 20 runs")
			p.Context.Strategy = "mapped"
		}, ""},
		{"estimated", func(p *Plan) { p.Pairs[1].Estimated, p.Pairs[1].Copies[0].Estimated = true, true }, ""},
		{"both", func(p *Plan) {
			p.Pairs[0].Direction = "both"
			c := p.Pairs[0].Copies[0]
			c.Direction, c.Site.Offset = "d2h", 0x3500
			p.Pairs[0].Copies = append(p.Pairs[0].Copies, c)
		}, ""},

		{"version", func(p *Plan) { p.Version = 1 }, fmt.Sprintf("plan: version 1, not %d", Version)},
		{"refused at validation", func(p *Plan) { p.Pairs[2].RefusedAt = StageValidate }, ""},
		{"refusing stage on a candidate", func(p *Plan) { p.Pairs[0].RefusedAt = StageValidate }, "only a refused pair has a refusing stage"},
		{"unknown refusing stage", func(p *Plan) { p.Pairs[2].RefusedAt = "deploy" },
			`refused_at "deploy" is not one of plan, resolve, validation, calibration`},
		{"loop span and confidence", func(p *Plan) {
			p.Loop.Span = &LoopSpan{FirstEvent: 10, LastEvent: 200, FirstNS: 1000, LastNS: 9000, Repeats: 22, Calls: 2}
			p.Loop.Confidence = 0.95
		}, ""},
		{"confidence above 1", func(p *Plan) { p.Loop.Confidence = 1.5 }, "confidence 1.5"},
		{"span of one repeat", func(p *Plan) { p.Loop.Span = &LoopSpan{FirstEvent: 1, LastEvent: 2, Repeats: 1, Calls: 1} }, "span"},
		{"span without a loop", func(p *Plan) {
			p.Loop = Loop{Span: &LoopSpan{FirstEvent: 1, LastEvent: 2, Repeats: 2, Calls: 1}}
		}, "span"},
		{"no created", func(p *Plan) { p.Created = time.Time{} }, "plan: no created time"},
		{"no tool", func(p *Plan) { p.Tool = " " }, "plan: no tool"},
		{"no command", func(p *Plan) { p.Trace.Command = nil }, "plan: trace: no command"},
		{"empty command", func(p *Plan) { p.Trace.Command = []string{""} }, "plan: trace: no command"},
		{"no trace path", func(p *Plan) { p.Trace.Path = "" }, "plan: trace: no path"},
		{"executable without identity", func(p *Plan) { p.Context.Executable = Module{Path: "/a"} }, ""},
		{"capped share", func(p *Plan) {
			p.Loop.MS = 2.5
			p.Pairs[0].FCopy, p.Pairs[0].PredictedSpeedup = 0.8, 5
			p.Pairs[1].FCopy, p.Pairs[1].PredictedSpeedup = 0.4, 1/(1-0.4)
			p.FCopy, p.PredictedSpeedup = MaxFCopy, 1/(1-MaxFCopy)
		}, ""},
		{"zero-byte rejection", func(p *Plan) { p.Rejected[0].Site.Bytes = 0 }, ""},
		{"rejection of unknown kind", func(p *Plan) { p.Rejected[0].Direction = "kind(9)" }, ""},
		{"executable without path", func(p *Plan) { p.Context.Executable.Path = "" }, "plan: context.executable: no path"},
		{"library without path", func(p *Plan) { p.Context.Libraries[0].Path = "" }, "plan: context.libraries[0]: no path"},
		{"bad build-id", func(p *Plan) { p.Context.Libraries[0].BuildID = "EE01" },
			`plan: context.libraries[0]: build_id "EE01" is not lowercase hex`},
		{"bad strategy", func(p *Plan) { p.Context.Strategy = "magic" }, `strategy "magic" is not one of managed, mapped, system`},
		{"bad compute capability", func(p *Plan) { p.Context.ComputeCapability = "sm_90" }, `compute_capability "sm_90"`},
		{"enabled without strategy", func(p *Plan) {
			p.Pairs[0].Status, p.Pairs[0].Evidence = StatusEnabled, []string{"won"}
		}, "plan: context: no strategy, but pairs are enabled"},
		{"negative iterations", func(p *Plan) { p.Loop.Iterations = -1 }, "plan: loop: iterations -1"},
		{"marker without loop", func(p *Plan) {
			p.Loop.Iterations = 0
		}, "plan: loop: a marker but no iterations"},
		{"candidate without loop", func(p *Plan) { p.Loop.Iterations, p.Loop.Marker = 0, nil },
			"plan: pairs[0] (p1): status candidate, but the plan found no loop"},

		{"no id", func(p *Plan) { p.Pairs[1].ID = "" }, "plan: pairs[1]: no id"},
		{"bad id", func(p *Plan) { p.Pairs[1].ID = "pair2" }, `plan: pairs[1] (pair2): id "pair2" is not p1, p2, …`},
		{"id p0", func(p *Plan) { p.Pairs[1].ID = "p0" }, `id "p0" is not p1`},
		{"duplicate id", func(p *Plan) { p.Pairs[2].ID = "p1" }, "plan: pairs[2] (p1): id p1 is also the id of pairs[0]"},
		{"bad direction", func(p *Plan) { p.Pairs[0].Direction = "in" },
			`plan: pairs[0] (p1): direction "in" is not one of input, output, both`},
		{"no bytes", func(p *Plan) { p.Pairs[2].Bytes = 0 }, "plan: pairs[2] (p3): bytes 0"},
		{"no status", func(p *Plan) { p.Pairs[0].Status = "" }, "plan: pairs[0] (p1): no status"},
		{"unknown status", func(p *Plan) { p.Pairs[2].Status = "merged" },
			`plan: pairs[2] (p3): status "merged" is not one of candidate, refused, validated, calibrated, enabled`},
		{"refused without reason", func(p *Plan) { p.Pairs[2].Reason = "" }, "plan: pairs[2] (p3): refused without a reason"},
		{"candidate with reason", func(p *Plan) { p.Pairs[0].Reason = "looks odd" },
			`plan: pairs[0] (p1): status candidate with a reason ("looks odd")`},
		{"validated without evidence", func(p *Plan) { p.Pairs[0].Status, p.Pairs[0].Evidence = StatusValidated, nil },
			"plan: pairs[0] (p1): status validated without evidence"},
		{"empty evidence", func(p *Plan) { p.Pairs[0].Evidence = []string{""} }, "plan: pairs[0] (p1).evidence[0]: empty"},
		{"host without kind", func(p *Plan) { p.Pairs[0].Host.Kind = "" }, "plan: pairs[0] (p1).host: no kind"},
		{"host kind device", func(p *Plan) { p.Pairs[0].Host.Kind = "device" },
			`plan: pairs[0] (p1).host: kind "device" is not one of pageable, pinned, registered, managed`},
		{"device kind pageable", func(p *Plan) { p.Pairs[0].Device.Kind = "pageable" }, `.device: kind "pageable"`},
		{"host site without call", func(p *Plan) { p.Pairs[0].Host.Site.Call = "" }, "plan: pairs[0] (p1).host.site: no call"},
		{"device site without bytes", func(p *Plan) { p.Pairs[2].Device.Site.Bytes = 0 }, "plan: pairs[2] (p3).device.site: bytes 0"},
		{"unresolved still has a size", func(p *Plan) { p.Pairs[0].Host = Buffer{Unresolved: true} },
			"plan: pairs[0] (p1).host.site: bytes 0"},
		{"size mismatch", func(p *Plan) { p.Pairs[0].Device.Site.Bytes *= 2 },
			"plan: pairs[0] (p1): bytes 4194304, host 4194304, device 8388608"},
		{"refused pairs may mismatch", func(p *Plan) { p.Pairs[2].Device.Site.Bytes *= 2; p.Pairs[2].Copies[0].Site.Bytes = 1 }, ""},
		{"no copies", func(p *Plan) { p.Pairs[1].Copies = nil }, "plan: pairs[1] (p2): no copies"},
		{"refused without linking copies", func(p *Plan) { p.Pairs[2].Copies = nil }, ""},
		{"partial copy", func(p *Plan) { p.Pairs[1].Copies[0].Site.Bytes = 1024 },
			"plan: pairs[1] (p2): the d2h copies do not cover the 4194304-byte pair from offset 1024"},
		{"copy direction", func(p *Plan) { p.Pairs[1].Copies[0].Direction = "d2d" },
			`plan: pairs[1] (p2).copies[0]: direction "d2d" is not one of h2d, d2h`},
		{"copy against pair", func(p *Plan) { p.Pairs[1].Copies[0].Direction = "h2d" },
			"plan: pairs[1] (p2).copies[0]: direction h2d in an output pair"},
		{"both one way", func(p *Plan) { p.Pairs[0].Direction = "both" },
			"plan: pairs[0] (p1): direction both, but the copies do not go both ways"},
		{"copy without stream", func(p *Plan) { p.Pairs[0].Copies[0].Stream = "" }, "plan: pairs[0] (p1).copies[0]: no stream"},
		{"copy count", func(p *Plan) { p.Pairs[0].Copies[0].Count = 0 }, "plan: pairs[0] (p1).copies[0]: count 0"},
		{"copy per iteration", func(p *Plan) { p.Pairs[0].Copies[0].PerIteration = 0 }, "copies[0]: per_iteration 0"},
		{"copy ms", func(p *Plan) { p.Pairs[0].Copies[0].MS = -1 }, "copies[0]: ms -1"},
		{"copy site without call", func(p *Plan) { p.Pairs[0].Copies[0].Site.Call = "" }, "copies[0].site: no call"},
		{"copy site ordinal", func(p *Plan) { p.Pairs[0].Copies[0].Site.Ordinal = -1 }, "copies[0].site: ordinal -1"},
		{"build-id without module", func(p *Plan) { p.Pairs[0].Copies[0].Site.Module = "" },
			"copies[0].site: a build_id or module_size without a module"},
		{"estimated pair, no estimated copy", func(p *Plan) { p.Pairs[0].Estimated = true },
			"plan: pairs[0] (p1): estimated, but none of its copies is"},
		{"estimated copy, pair not", func(p *Plan) { p.Pairs[0].Copies[0].Estimated = true },
			"plan: pairs[0] (p1): not estimated, but some of its copies are"},
		{"no bytes per iteration", func(p *Plan) { p.Pairs[0].BytesPerIteration = 0 }, "plan: pairs[0] (p1): bytes_per_iteration 0"},
		{"f_copy 1", func(p *Plan) { p.Pairs[2].FCopy = 1 }, "plan: pairs[2] (p3): f_copy 1 is not in [0, 1)"},
		{"f_copy negative", func(p *Plan) { p.Pairs[2].FCopy = -0.1 }, "f_copy -0.1 is not in [0, 1)"},
		{"speed-up below 1", func(p *Plan) { p.Pairs[2].FCopy, p.Pairs[2].PredictedSpeedup = 0, 0.5 },
			"plan: pairs[2] (p3): predicted_speedup 0.5 is below 1"},
		{"speed-up inconsistent", func(p *Plan) { p.Pairs[2].PredictedSpeedup = 1.5 },
			"plan: pairs[2] (p3): predicted_speedup 1.5 is not 1/(1-f_copy)"},
		{"speed-up within tolerance", func(p *Plan) { p.PredictedSpeedup *= 1 + 1e-8 }, ""},
		{"plan f_copy not the sum", func(p *Plan) { p.FCopy, p.PredictedSpeedup = 0.4, 1/(1-0.4) },
			"plan: f_copy 0.4 is not the sum over the pairs not refused (0.30000000000000004)"},
		{"refused pair counted", func(p *Plan) { p.FCopy += 0.001; p.PredictedSpeedup = 1 / (1 - p.FCopy) },
			"plan: f_copy 0.301 is not the sum"},
		{"loop copy time not the sum", func(p *Plan) { p.Loop.CopyMS = 4 },
			"plan: loop: copy_ms_per_iteration 4 is not the sum over the pairs not refused (3)"},
		{"plan speed-up", func(p *Plan) { p.PredictedSpeedup = 1 }, "plan: predicted_speedup 1 is not 1/(1-f_copy)"},
		{"rejection without reason", func(p *Plan) { p.Rejected[0].Reason = "" }, "plan: rejected[0]: no reason"},
		{"rejection direction", func(p *Plan) { p.Rejected[0].Direction = "up" }, `plan: rejected[0]: direction "up"`},
		{"rejection count", func(p *Plan) { p.Rejected[0].Count = 0 }, "plan: rejected[0]: count 0"},
		{"rejection site", func(p *Plan) { p.Rejected[0].Site.Call = "" }, "plan: rejected[0].site: no call"},
		{"empty note", func(p *Plan) { p.Notes = []string{"fine", " "} }, "plan: notes[1]: empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := examplePlan()
			tt.edit(p)
			err := p.Check()
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Validate: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Validate: %v\nwant an error containing %q", err, tt.want)
			}
		})
	}
}

func TestValidateListsEveryProblem(t *testing.T) {
	p := examplePlan()
	p.Tool = ""
	p.Pairs[1].Direction = "sideways"
	err := p.Check()
	if err == nil {
		t.Fatal("no error")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 2 || lines[0] != "plan: no tool (the echoctl that wrote it)" ||
		!strings.HasPrefix(lines[1], `plan: pairs[1] (p2): direction "sideways"`) {
		t.Errorf("error lines %q", lines)
	}

	for i := range p.Pairs {
		p.Pairs[i].ID = "x"
	}
	p.Rejected = append(p.Rejected, make([]Rejection, 20)...)
	if lines := strings.Split(p.Check().Error(), "\n"); len(lines) != maxProblems+1 ||
		!strings.HasPrefix(lines[maxProblems], "plan: and ") {
		t.Errorf("%d lines, the last %q; want %d and a count of the rest", len(lines), lines[len(lines)-1], maxProblems+1)
	}
}

// TestDocumentedExample keeps the example in PLAN.md a plan the parser accepts.
func TestDocumentedExample(t *testing.T) {
	doc, err := os.ReadFile("PLAN.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "\n```json\n")
	example, _, ok2 := strings.Cut(rest, "\n```\n")
	if !ok || !ok2 {
		t.Fatal("PLAN.md has no ```json example")
	}
	p, err := Read(strings.NewReader(example))
	if err != nil {
		t.Fatalf("the example in PLAN.md: %v", err)
	}
	if len(p.Pairs) != 1 || p.Pairs[0].Status != StatusCandidate || len(p.Rejected) != 1 {
		t.Errorf("the example reads as %+v", p)
	}
}
