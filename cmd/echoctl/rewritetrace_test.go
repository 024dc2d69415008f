package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
)

// TestRewriteWithTrace is profile and proof together (issue 28 item 4): stream, built with
// debug information and traced, gives rewrite --trace each pair's copies by source line.
// Traced over 5 iterations and a warm-up, both pairs are merged, each with its 6 copies and
// their time, the costlier first; with a trace of another program (compute), the same pairs
// are proved but left as written, since that run never made their copies.
func TestRewriteWithTrace(t *testing.T) {
	testenv.NeedClang(t)
	testenv.RequireRoot(t)
	const rel = "testdata/workloads/stream.cu"
	dir := workdir(t, "stream.cu", "compute.cu")
	for _, c := range []struct {
		traced  string // the program traced
		copies  int
		changed bool
	}{{"stream", 6, true}, {"compute", 0, false}} {
		exe := filepath.Join(t.TempDir(), c.traced)
		buildWorkload(t, filepath.Join(dir, "testdata/workloads", c.traced+".cu"), exe)
		tr := filepath.Join(t.TempDir(), "trace.bin")
		testenv.EchoctlOK(t, nil, "trace", "-o", tr, "--", exe, "--size", "1M", "--iters", "5", "--warmup", "1")
		out, notes, err := runRewriteCLI(t, dir, "--json", "--trace", tr, rel)
		if err != nil {
			t.Fatalf("rewrite --trace: %v\n%s", err, notes)
		}
		var doc struct {
			Files []struct {
				Changed bool
				Pairs   []struct {
					Host    string
					Changed bool
					Reason  string
					Copies  *int
					CopyMS  *float64 `json:"copy_ms"`
				}
			}
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Files) != 1 || len(doc.Files[0].Pairs) != 2 {
			t.Fatalf("rewrite --trace --json: %v\n%s", err, out)
		}
		f := doc.Files[0]
		if f.Changed != c.changed {
			t.Errorf("traced %s: file changed %v, want %v", c.traced, f.Changed, c.changed)
		}
		for i, p := range f.Pairs {
			switch {
			case p.Copies == nil || p.CopyMS == nil:
				t.Errorf("traced %s: %s carries no measured copies:\n%s", c.traced, p.Host, out)
			case *p.Copies != c.copies || (c.copies > 0) != (*p.CopyMS > 0):
				t.Errorf("traced %s: %s: %d copies, %.3f ms; want %d copies", c.traced, p.Host, *p.Copies, *p.CopyMS, c.copies)
			case p.Changed != c.changed:
				t.Errorf("traced %s: %s changed %v, want %v (%s)", c.traced, p.Host, p.Changed, c.changed, p.Reason)
			case !c.changed && !strings.Contains(p.Reason, "never made its copies"):
				t.Errorf("traced %s: %s: reason %q; want one saying the run never made its copies", c.traced, p.Host, p.Reason)
			case i > 0 && *p.CopyMS > *f.Pairs[i-1].CopyMS:
				t.Errorf("traced %s: pairs not ranked by their copies' time: %s %.3f ms after %.3f", c.traced, p.Host, *p.CopyMS, *f.Pairs[i-1].CopyMS)
			}
		}
	}
}
