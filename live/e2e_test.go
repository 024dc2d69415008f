package live_test

import (
	"encoding/json"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/live"
)

// attachOnce runs `echoctl attach --once --json` with args and decodes its rows.
func attachOnce(t *testing.T, args ...string) []live.Row {
	t.Helper()
	cmd := exec.Command(testenv.Built(t, "bin/echoctl"), append([]string{"attach", "--once", "--json"}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("echoctl attach %v: %v: %s", args, err, stderr.String())
	}
	var doc struct {
		Schema    string
		Processes []live.Row
	}
	if err := json.Unmarshal(out, &doc); err != nil || doc.Schema != "echo.attach/1" {
		t.Fatalf("decoding %q: %v", out, err)
	}
	return doc.Processes
}

func find(rows []live.Row, pid int) *live.Row {
	for i := range rows {
		if rows[i].PID == pid {
			return &rows[i]
		}
	}
	return nil
}

// checkStream checks the row of a stream workload: copies both ways at the workload's size,
// and its input and output pairs.
func checkStream(t *testing.T, r *live.Row) {
	t.Helper()
	if r.Error != "" {
		t.Fatalf("row has an error: %s", r.Error)
	}
	if r.Comm != "stream" || !strings.Contains(r.Command, "--iters 100000000") {
		t.Errorf("comm %q, command %q: want the stream workload's", r.Comm, r.Command)
	}
	if r.H2DBytesPerS <= 0 || r.D2HBytesPerS <= 0 || r.CopyBytesPerS < 0.999*(r.H2DBytesPerS+r.D2HBytesPerS) {
		t.Errorf("bytes/s h2d %.0f d2h %.0f all %.0f: want copies both ways", r.H2DBytesPerS, r.D2HBytesPerS, r.CopyBytesPerS)
	}
	if r.CopyShare <= 0 || r.CopyShare > 1 || r.LaunchesPerS <= 0 {
		t.Errorf("copy share %.3f, launches/s %.1f: want a share in (0,1] and launches", r.CopyShare, r.LaunchesPerS)
	}
	if r.Pairs != 2 {
		t.Errorf("%d candidate pairs (%+v): want stream's input and output pair", r.Pairs, r.Detail.PairList)
	}
	if len(r.Detail.TopSites) == 0 || r.Detail.TopSites[0].BytesPerCopy != 256<<10 ||
		!strings.Contains(r.Detail.TopSites[0].Site, "stream+0x") {
		t.Errorf("top sites %+v: want stream's copy sites of 256 KiB", r.Detail.TopSites)
	}
	if !strings.HasPrefix(r.Detail.Optimize, "sudo echoctl optimize -- ") || !strings.Contains(r.Detail.Optimize, "workloads/stream") {
		t.Errorf("optimize hint %q", r.Detail.Optimize)
	}
}

func TestAttachOncePID(t *testing.T) {
	testenv.RequireRoot(t)
	target := testenv.LongStream(t, "256K")
	rows := attachOnce(t, "-p", strconv.Itoa(target.Process.Pid), "--interval", "1500ms")
	if len(rows) != 1 || rows[0].PID != target.Process.Pid {
		t.Fatalf("rows %+v: want one row for %d", rows, target.Process.Pid)
	}
	checkStream(t, &rows[0])
}

// Without -p, attach finds the CUDA workloads among every other process (other packages'
// tests may run theirs meanwhile), and leaves out a process that exits while it samples.
func TestAttachOnceScan(t *testing.T) {
	testenv.RequireRoot(t)
	target := testenv.LongStream(t, "256K")
	short := testenv.LongStream(t, "256K")
	time.AfterFunc(700*time.Millisecond, func() { short.Process.Kill() }) // within the sample
	rows := attachOnce(t, "--interval", "1500ms")
	r := find(rows, target.Process.Pid)
	if r == nil {
		t.Fatalf("rows %+v: want one for the workload %d", rows, target.Process.Pid)
	}
	checkStream(t, r)
	if find(rows, short.Process.Pid) != nil {
		t.Errorf("the workload that exited mid-sample has a row")
	}
}
