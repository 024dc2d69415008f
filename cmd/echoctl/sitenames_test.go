package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
)

// sourceLine is the line of a source file under the repository that holds text.
func sourceLine(t *testing.T, rel, text string) int {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(testenv.Root(t), rel))
	if err != nil {
		t.Fatal(err)
	}
	line := 0
	for i, l := range strings.Split(string(src), "\n") {
		if strings.Contains(l, text) {
			if line != 0 {
				t.Fatalf("%s has %q on lines %d and %d: the test needs one", rel, text, line, i+1)
			}
			line = i + 1
		}
	}
	if line == 0 {
		t.Fatalf("%s has no line with %q", rel, text)
	}
	return line
}

// traced traces a built program with the built echoctl and returns the trace's path.
func traced(t *testing.T, rel string, args ...string) string {
	t.Helper()
	res, path := testenv.Trace(t, append([]string{"--", testenv.Built(t, rel)}, args...)...)
	if res.ExitCode != 0 {
		t.Fatalf("echoctl trace %s: exit %d: %s", rel, res.ExitCode, res.Stderr)
	}
	return path
}

// echoctl runs the built echoctl and fails the test unless it exits 0.
func echoctl(t *testing.T, args ...string) string {
	t.Helper()
	res := testenv.Echoctl(t, nil, args...)
	if res.ExitCode != 0 {
		t.Fatalf("echoctl %s: exit %d: %s", strings.Join(args, " "), res.ExitCode, res.Stderr)
	}
	return res.Stdout
}

// TestCLISitesHaveSymbols traces the stream workload (built with -g) with the real tracer
// and finds its two copy sites named by function and source line in stats, stats --json and
// the Perfetto export; a program whose copies fail finds its rejected site named in plan.
func TestCLISitesHaveSymbols(t *testing.T) {
	testenv.RequireRoot(t)
	const src = "testdata/workloads/stream.cu"
	h2d := sourceLine(t, src, "cudaMemcpy(d_in, h_in, o.size, cudaMemcpyHostToDevice)")
	d2h := sourceLine(t, src, "cudaMemcpy(h_out, d_out, o.size, cudaMemcpyDeviceToHost)")
	stream := traced(t, "workloads/stream", "--size", "64K", "--iters", "5")

	t.Run("stats", func(t *testing.T) {
		out := echoctl(t, "stats", stream)
		for _, line := range []int{h2d, d2h} {
			want := fmt.Sprintf(" main (stream.cu:%d)  cudaMemcpy", line)
			if !strings.Contains(out, want) {
				t.Errorf("no copy site reads %q in:\n%s", want, out)
			}
		}
	})

	t.Run("stats --json", func(t *testing.T) {
		var st struct {
			TopSites []struct {
				Site, Direction, Function, File string
				Line                            int
			} `json:"top_sites"`
		}
		out := echoctl(t, "--json", "stats", stream)
		if err := json.Unmarshal([]byte(out), &st); err != nil {
			t.Fatalf("stats --json does not parse: %v\n%s", err, out)
		}
		want := map[string]int{"h2d": h2d, "d2h": d2h}
		for _, s := range st.TopSites {
			if line, ok := want[s.Direction]; ok && s.Function == "main" && s.Line == line &&
				s.File == filepath.Join(testenv.Root(t), src) && strings.HasPrefix(s.Site, "stream+0x") {
				delete(want, s.Direction)
			}
		}
		if len(want) > 0 {
			t.Errorf("sites %v not named main at %s (want those lines): %+v", want, src, st.TopSites)
		}
	})

	t.Run("export", func(t *testing.T) {
		doc := parseExport(t, []byte(echoctl(t, "export", stream, "-o", "-")))
		want := fmt.Sprintf("main (stream.cu:%d)", h2d)
		for _, e := range doc.TraceEvents {
			if strings.HasPrefix(e.Name, "cudaMemcpy h2d") {
				if e.Args["site_symbol"] != want {
					t.Fatalf("%s: site_symbol %v, want %q (args %v)", e.Name, e.Args["site_symbol"], want, e.Args)
				}
				return
			}
		}
		t.Fatal("the export has no h2d copy")
	})

	t.Run("plan", func(t *testing.T) {
		failing := traced(t, "tests/failing_copies")
		line := sourceLine(t, "testdata/tracer/failing_copies.c", "cudaMemcpy(dev, host, 2 * bytes")
		out := echoctl(t, "plan", failing, "-o", failing+".plan")
		if want := fmt.Sprintf("main (failing_copies.c:%d)", line); !strings.Contains(out, want) {
			t.Errorf("the rejected copy site is not named %q:\n%s", want, out)
		}
		plan, err := os.ReadFile(failing + ".plan")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(plan), "failing_copies.c") {
			t.Error("the plan file names source lines: names are for the view, the plan keeps offsets")
		}
	})
}
