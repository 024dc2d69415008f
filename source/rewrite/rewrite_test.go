package rewrite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/source/internal/sourcetest"
	"github.com/echo-uma/echo/source/rules"
)

// rewriteFile proves and rewrites a workload, returning its source before and after.
func rewriteFile(t *testing.T, name string, s plan.Strategy) ([]byte, []byte, []Change) {
	t.Helper()
	sourcetest.NeedClang(t)
	f, _ := filepath.Abs(filepath.Join("../../testdata/workloads", name))
	tu := sourcetest.Parse(t, f)
	src, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	after, cs := Rewrite(tu, src, rules.Prove(tu), nil, Target{Strategy: s})
	return src, after, cs
}

// Both of stream's pairs are merged, and every line the rewrite changes carries the comment
// naming its pair; the lines it does not touch are byte for byte the same.
func TestRewriteStreamEdits(t *testing.T) {
	src, after, cs := rewriteFile(t, "stream.cu", plan.StrategyManaged)
	for _, c := range cs {
		if !c.Changed {
			t.Errorf("%s/%s left as written: %s", c.Host, c.Device, c.Reason)
		}
	}
	diff := UnifiedDiff("testdata/workloads/stream.cu", src, after)
	inHelper := false
	for _, l := range strings.Split(diff, "\n") {
		if strings.HasPrefix(l, "+/* echo: the one buffer") {
			inHelper = true
		}
		if strings.HasPrefix(l, "+") && !strings.HasPrefix(l, "+++") && !inHelper && !strings.Contains(l, "/* echo: h_") {
			t.Errorf("an added line without its pair's comment: %q", l)
		}
		if inHelper && l == "+" {
			inHelper = false
		}
	}
	if n := strings.Count(diff, "\n-"); n != 9 {
		t.Errorf("%d lines removed, want 9 (the host allocations line, two cudaMallocs, two copies, four frees):\n%s", n, diff)
	}
}

// UnifiedDiff writes what git writes: hunks with three lines of context, and the missing
// newline at the end marked.
func TestUnifiedDiff(t *testing.T) {
	before := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj"
	after := "a\nB\nc\nd\ne\nf\ng\nh\ni\nJ"
	want := "--- a/x.c\n+++ b/x.c\n@@ -1,5 +1,5 @@\n a\n-b\n+B\n c\n d\n e\n@@ -7,4 +7,4 @@\n g\n h\n i\n-j\n\\ No newline at end of file\n+J\n\\ No newline at end of file\n"
	if got := UnifiedDiff("x.c", []byte(before), []byte(after)); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := UnifiedDiff("x.c", []byte(before), []byte(before)); got != "" {
		t.Errorf("no change: %q", got)
	}
}
