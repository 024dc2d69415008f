package live_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/live"
)

// attachOnce runs `echoctl attach --once --json --launches` with args and decodes its rows.
func attachOnce(t *testing.T, args ...string) []live.Row {
	t.Helper()
	return attachOnceJSON(t, append([]string{"--launches"}, args...)...)
}

// attachOnceJSON runs `echoctl attach --once --json` with args and decodes its rows.
func attachOnceJSON(t *testing.T, args ...string) []live.Row {
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
	if !strings.HasPrefix(r.Detail.Optimize, "sudo echoctl optimize --ignore '^iter_ms=' -- ") || !strings.Contains(r.Detail.Optimize, "workloads/stream") ||
		strings.Contains(r.Detail.Optimize, "100000000") {
		t.Errorf("optimize hint %q: want the workload, with its timing line ignored and a loop count for seconds rather than hours", r.Detail.Optimize)
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

// Attached as by default, no launch is probed: the row says so (no_launches) beside a launch
// rate of 0, and the table that --once prints without a terminal says "not traced" in the
// launches column.
func TestAttachOnceLaunchesNotTraced(t *testing.T) {
	testenv.RequireRoot(t)
	target := testenv.LongStream(t, "256K")
	pid := strconv.Itoa(target.Process.Pid)
	rows := attachOnceJSON(t, "-p", pid, "--interval", "1500ms")
	if len(rows) != 1 || rows[0].Error != "" || !rows[0].NoLaunches || rows[0].LaunchesPerS != 0 || rows[0].CopiesPerS <= 0 {
		t.Fatalf("rows %+v: want one row with copies and no_launches", rows)
	}
	out, err := exec.Command(testenv.Built(t, "bin/echoctl"), "attach", "--once", "-p", pid, "--interval", "1500ms").Output()
	if err != nil {
		t.Fatalf("echoctl attach --once: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 3 || !strings.Contains(lines[2], " stream ") || !strings.Contains(lines[2], " not traced ") {
		t.Errorf("attach --once printed:\n%s\nwant the stream's row saying its launches were not traced", out)
	}
}

// Several processes given at once share one tracer; each row is its own process's.
func TestAttachOnceSeveralPIDs(t *testing.T) {
	testenv.RequireRoot(t)
	a, b := testenv.LongStream(t, "256K"), testenv.LongStream(t, "256K")
	rows := attachOnce(t, "-p", strconv.Itoa(a.Process.Pid)+","+strconv.Itoa(b.Process.Pid), "--interval", "1500ms")
	if len(rows) != 2 || find(rows, a.Process.Pid) == nil || find(rows, b.Process.Pid) == nil {
		t.Fatalf("rows %+v: want one for each of %d and %d", rows, a.Process.Pid, b.Process.Pid)
	}
	for i := range rows {
		checkStream(t, &rows[i])
	}
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

// A kernel-bound program is not copy-bound because its copies wait: stream's copy back waits
// for a 20 ms kernel every iteration, which the time inside copy calls counts and the live
// view's COPY% must not (it takes the planner's estimate of the moving part).
func TestAttachCopyShareLeavesOutKernelWaits(t *testing.T) {
	testenv.RequireRoot(t)
	env := "CUDA_EMU_KERNEL_DELAY_US=20000"
	args := []string{"--size", "256K", "--warmup", "0"}
	res := testenv.Echoctl(t, []string{env}, append([]string{"trace", "--json", "-o", filepath.Join(t.TempDir(), "t.bin"),
		"--", testenv.Built(t, "workloads/stream"), "--iters", "20"}, args...)...)
	var traced struct{ Output string }
	if err := json.Unmarshal([]byte(res.Stdout), &traced); err != nil || res.ExitCode != 0 {
		t.Fatalf("trace: exit %d (%v): %s", res.ExitCode, err, res.Stderr)
	}
	res = testenv.Echoctl(t, nil, "stats", "--json", traced.Output)
	var st struct {
		CopyShare   float64  `json:"copy_share"`
		MovingShare *float64 `json:"moving_share"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &st); err != nil || st.MovingShare == nil {
		t.Fatalf("stats: %v, %s", err, res.Stdout)
	}
	if st.CopyShare < 0.6 || *st.MovingShare > 0.3 {
		t.Errorf("stats: %.3f inside copy calls, %.3f moving data: want most inside (waiting) and little moving",
			st.CopyShare, *st.MovingShare)
	}

	cmd := exec.Command(testenv.Built(t, "workloads/stream"), append([]string{"--iters", "100000000"}, args...)...)
	cmd.Env = append(os.Environ(), env)
	target := testenv.StartInLoop(t, cmd)
	rows := attachOnce(t, "-p", strconv.Itoa(target.Process.Pid), "--interval", "1500ms")
	if len(rows) != 1 || rows[0].Error != "" || rows[0].Events == 0 {
		t.Fatalf("rows %+v: want one traced row", rows)
	}
	if r := rows[0]; r.CopyShare > 0.3 {
		t.Errorf("COPY%% %.1f of a program whose copies mostly wait for its kernels", 100*r.CopyShare)
	}
	for _, s := range rows[0].Detail.TopSites {
		if s.Share > 0.3 {
			t.Errorf("site %s %s: share %.1f%%: its copies mostly wait for the kernels", s.Site, s.Direction, 100*s.Share)
		}
	}
}
