package main

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/plan"
)

// Every command that prints results prints, with --json, one JSON document on standard output
// naming its schema, and nothing else there: not the traced program's output (the stream
// workload prints its checksum on stdout), not progress. Each schema the commands print is
// documented in docs/json.md, and docs/json.md documents no other.
func TestEveryCommandPrintsOneJSONDocument(t *testing.T) {
	testenv.RequireRoot(t)
	stream := testenv.Built(t, "workloads/stream")
	args := []string{"--size", "256K", "--iters", "4", "--warmup", "1"}
	dir := t.TempDir()
	tr, planPath, unproven := filepath.Join(dir, "t.bin"), filepath.Join(dir, "t.plan"), filepath.Join(dir, "u.plan")
	plans := t.TempDir()
	program := append([]string{"--", stream}, args...)
	lib := "LD_LIBRARY_PATH=" + testenv.Built(t, "lib")
	long := testenv.LongStream(t, "64K").Process.Pid
	headers, _ := filepath.Abs("../../testdata/emulator/include")
	streamSrc, _ := filepath.Abs("../../testdata/workloads/stream.cu")

	steps := []struct {
		schema string
		args   []string
		after  func(t *testing.T) // readies the next step
	}{
		{"echo.trace/1", append([]string{"trace", "-o", tr}, program...), nil},
		{"echo.stats/1", []string{"stats", tr}, nil},
		{plan.Schema(), []string{"plan", "-o", planPath, tr}, nil},
		{"echo.validate/1", append([]string{"validate", planPath}, program...), func(t *testing.T) { copyPlan(t, planPath, unproven) }},
		{"echo.calibrate/1", append([]string{"calibrate", "--rounds", "1", planPath}, program...), func(t *testing.T) { copyPlan(t, planPath, filepath.Join(plans, "t.plan")) }},
		{"echo.plans/1", []string{"plans", "ls", plans}, nil},
		{"echo.run/1", append([]string{"run", "--dry-run", planPath}, program...), nil},
		{"echo.env/1", append([]string{"run", "--print-env", "--force", unproven}, program...), nil},
		{"echo.optimize/1", append([]string{"optimize", "--rounds", "1", "-o", filepath.Join(dir, "o.plan")}, program...), nil},
		{"echo.export/1", []string{"export", "-o", filepath.Join(dir, "t.json"), tr}, nil},
		{"echo.report/1", []string{"report", "-o", filepath.Join(dir, "t.html"), planPath}, nil},
		{"echo.attach/1", []string{"attach", "--once", "--interval", "300ms", "-p", strconv.Itoa(long)}, nil},
		{"echo.check/1", []string{"check"}, nil},
		{"echo.version/1", []string{"version"}, nil},
		{"echo.rewrite/2", []string{"rewrite", "--runtime-headers", headers, streamSrc}, nil},
		{"echo.plansource/1", []string{"plan", "--source", streamSrc, planPath}, nil},
		{"echo.scan/1", []string{"scan", "--runtime-headers", headers, filepath.Join(testenv.Root(t), "testdata", "source", "scan")}, nil},
	}
	var printed []string
	for _, s := range steps {
		res := testenv.Echoctl(t, []string{lib}, append([]string{"--json"}, s.args...)...)
		name := strings.Join(s.args[:1], " ")
		if res.ExitCode != 0 && s.schema != "echo.check/1" { // check says 1 where a part is missing
			t.Fatalf("echoctl --json %s: exit %d: %s", strings.Join(s.args, " "), res.ExitCode, res.Stderr)
		}
		doc, err := oneDocument(res.Stdout)
		if err != nil {
			t.Errorf("echoctl --json %s: %v; stdout:\n%s", name, err, res.Stdout)
			continue
		}
		if doc["schema"] != s.schema {
			t.Errorf("echoctl --json %s: schema %v, want %s", name, doc["schema"], s.schema)
		}
		if s.schema == "echo.calibrate/1" || s.schema == "echo.optimize/1" {
			if _, ok := doc["estimates"].([]any); !ok { // [] where calibration refused every pair, as here
				t.Errorf("echoctl --json %s: estimates %v, want the plan's per strategy, a list", name, doc["estimates"])
			}
		}
		if strings.Contains(res.Stdout, "checksum=") {
			t.Errorf("echoctl --json %s: the program's output is on stdout", name)
		}
		printed = append(printed, s.schema)
		if s.after != nil {
			s.after(t)
		}
	}
	if res := testenv.Echoctl(t, nil, append([]string{"trace", "--json", "-o", tr}, program...)...); !strings.Contains(res.Stderr, "checksum=") {
		t.Errorf("trace --json: the program's output went nowhere: stderr %q", res.Stderr)
	}

	documented := documentedSchemas(t)
	slices.Sort(printed)
	if !slices.Equal(printed, documented) {
		t.Errorf("schemas printed %v, documented in docs/json.md %v: document each one, and only those", printed, documented)
	}
}

// oneDocument decodes stdout as exactly one JSON object and nothing after it.
func oneDocument(stdout string) (map[string]any, error) {
	dec := json.NewDecoder(strings.NewReader(stdout))
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("more after the first document")
	}
	return doc, nil
}

// documentedSchemas are the schemas docs/json.md has a section for ("## echo.stats/1").
func documentedSchemas(t *testing.T) []string {
	data, err := os.ReadFile(filepath.Join(testenv.Root(t), "docs", "json.md"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range regexp.MustCompile("(?m)^## `(echo\\.[a-z]+/[0-9]+)`").FindAllSubmatch(data, -1) {
		names = append(names, string(m[1]))
	}
	slices.Sort(names)
	return names
}

func copyPlan(t *testing.T, from, to string) {
	data, err := os.ReadFile(from)
	if err == nil {
		err = os.WriteFile(to, data, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}
