package live_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
)

// TestAttachSitesHaveSymbols: attach names the stream workload's copy sites by function and
// source line, through the process's own view of its files.
func TestAttachSitesHaveSymbols(t *testing.T) {
	testenv.RequireRoot(t)
	src, err := os.ReadFile(filepath.Join(testenv.Root(t), "testdata/workloads/stream.cu"))
	if err != nil {
		t.Fatal(err)
	}
	lines := map[int]bool{}
	for i, l := range strings.Split(string(src), "\n") {
		if strings.Contains(l, "CHECK(cudaMemcpy(") {
			lines[i+1] = true
		}
	}
	target := testenv.LongStream(t, "256K")
	rows := attachOnce(t, "-p", strconv.Itoa(target.Process.Pid), "--interval", "1500ms")
	if len(rows) != 1 || len(rows[0].Detail.TopSites) == 0 {
		t.Fatalf("rows %+v: want one row with copy sites", rows)
	}
	for _, s := range rows[0].Detail.TopSites {
		if s.Function != "main" || filepath.Base(s.File) != "stream.cu" || !lines[s.Line] {
			t.Errorf("site %s named %+v: want main at one of stream.cu's copy lines %v", s.Site, s.Symbol, lines)
		}
	}
}
