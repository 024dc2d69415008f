package source

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// rewriteFile proves and rewrites a workload, returning its source before and after.
func rewriteFile(t *testing.T, name string, s Strategy) ([]byte, []byte, []Change) {
	t.Helper()
	needClang(t)
	f, _ := filepath.Abs(filepath.Join("../testdata/workloads", name))
	tu, err := Parse(context.Background(), Command{File: f}, Options{RuntimeHeaders: emulatorHeaders(t)})
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	after, cs := Rewrite(tu, src, Prove(tu), s)
	return src, after, cs
}

func TestRewriteStreamDebug(t *testing.T) {
	src, after, cs := rewriteFile(t, "stream.cu", Mapped)
	for _, c := range cs {
		t.Logf("%s/%s changed=%v %s", c.Host, c.Device, c.Changed, c.Reason)
	}
	t.Log(UnifiedDiff("testdata/workloads/stream.cu", src, after))
}
