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
// their time, the costlier first; traced with no iteration, the same pairs are proved but
// left as written, since the run never made their copies.
func TestRewriteWithTrace(t *testing.T) {
	needClang(t)
	testenv.RequireRoot(t)
	const rel = "testdata/workloads/stream.cu"
	dir := workdir(t, "stream.cu")
	exe := filepath.Join(t.TempDir(), "stream")
	buildWorkload(t, filepath.Join(dir, rel), exe)
	for _, c := range []struct {
		iters, warmup string
		copies        int
		changed       bool
	}{{"5", "1", 6, true}, {"0", "0", 0, false}} {
		tr := filepath.Join(t.TempDir(), "trace.bin")
		if res := testenv.Echoctl(t, nil, "trace", "-o", tr, "--", exe, "--size", "1M", "--iters", c.iters, "--warmup", c.warmup); res.ExitCode != 0 {
			t.Fatalf("trace: exit %d: %s", res.ExitCode, res.Stderr)
		}
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
			t.Errorf("--iters %s: file changed %v, want %v", c.iters, f.Changed, c.changed)
		}
		for i, p := range f.Pairs {
			switch {
			case p.Copies == nil || p.CopyMS == nil:
				t.Errorf("--iters %s: %s carries no measured copies:\n%s", c.iters, p.Host, out)
			case *p.Copies != c.copies || (c.copies > 0) != (*p.CopyMS > 0):
				t.Errorf("--iters %s: %s: %d copies, %.3f ms; want %d copies", c.iters, p.Host, *p.Copies, *p.CopyMS, c.copies)
			case p.Changed != c.changed:
				t.Errorf("--iters %s: %s changed %v, want %v (%s)", c.iters, p.Host, p.Changed, c.changed, p.Reason)
			case !c.changed && !strings.Contains(p.Reason, "never made its copies"):
				t.Errorf("--iters %s: %s: reason %q; want one saying the run never made its copies", c.iters, p.Host, p.Reason)
			case i > 0 && *p.CopyMS > *f.Pairs[i-1].CopyMS:
				t.Errorf("--iters %s: pairs not ranked by their copies' time: %s %.3f ms after %.3f", c.iters, p.Host, *p.CopyMS, *f.Pairs[i-1].CopyMS)
			}
		}
	}
}
