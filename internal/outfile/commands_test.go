package outfile_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/trace"
)

var streamArgs = []string{"--size", "1M", "--iters", "5", "--warmup", "1"}

// isTrace tells whether data is a whole trace file.
func isTrace(data []byte) bool {
	r, err := trace.NewReader(bytes.NewReader(data))
	if err != nil {
		return false
	}
	for {
		if _, err := r.Next(); err != nil {
			_, footer := r.Footer()
			return errors.Is(err, io.EOF) && footer
		}
	}
}

func isPlan(data []byte) bool {
	var v map[string]any
	return json.Unmarshal(data, &v) == nil && v["version"] != nil && v["pairs"] != nil
}

// Every command that writes a file takes -o the way a careful Unix tool does: "-" is standard
// output (with nothing else on it), a symbolic link is followed and stays a link, a device
// or FIFO is written in place and stays what it was.
func TestOutputs(t *testing.T) {
	testenv.RequireRoot(t)
	dir := t.TempDir()
	stream := testenv.Built(t, "workloads/stream")
	_, tracePath := testenv.Trace(t, append([]string{"--", stream}, streamArgs...)...)
	_, planPath := testenv.Plan(t, "stream", streamArgs...)
	null := filepath.Join(dir, "null")
	if err := unix.Mknod(null, unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3))); err != nil {
		t.Fatal(err)
	}

	// -o -: the output alone on stdout.
	res := testenv.Echoctl(t, nil, append([]string{"trace", "-o", "-", "--", stream}, streamArgs...)...)
	if res.ExitCode != 0 || !isTrace([]byte(res.Stdout)) || !strings.Contains(res.Stderr, "checksum=") {
		t.Errorf("trace -o -: exit %d, a trace on stdout: %v, the program's output on stderr: %q",
			res.ExitCode, isTrace([]byte(res.Stdout)), res.Stderr)
	}
	for _, args := range [][]string{
		{"plan", "-o", "-", tracePath},
		append([]string{"validate", "-o", "-", planPath, "--", stream}, streamArgs...),
		append([]string{"calibrate", "--unvalidated", "--rounds", "1", "-o", "-", planPath, "--", stream}, streamArgs...),
	} {
		res := testenv.Echoctl(t, nil, args...)
		if res.ExitCode != 0 || !isPlan([]byte(res.Stdout)) {
			t.Errorf("%s -o -: exit %d, stdout %.200q (want the plan alone); stderr %s", args[0], res.ExitCode, res.Stdout, res.Stderr)
		}
	}
	// /dev/stdout when stdout is a pipe (as here): the plan goes down the pipe (and the
	// table plan prints after writing a file follows it).
	res = testenv.Echoctl(t, nil, "plan", "-o", "/dev/stdout", tracePath)
	var first json.RawMessage
	if res.ExitCode != 0 || json.NewDecoder(strings.NewReader(res.Stdout)).Decode(&first) != nil || !isPlan(first) {
		t.Errorf("plan -o /dev/stdout into a pipe: exit %d, stdout %.200q; stderr %s", res.ExitCode, res.Stdout, res.Stderr)
	}
	res = testenv.Echoctl(t, nil, "export", "-o", "-", tracePath)
	if res.ExitCode != 0 || !json.Valid([]byte(res.Stdout)) {
		t.Errorf("export -o -: exit %d, stdout not JSON: %.200q", res.ExitCode, res.Stdout)
	}

	// A symbolic link: followed, and still a link.
	for _, c := range []struct {
		name string
		args func(out string) []string
		ok   func([]byte) bool
	}{
		{"trace", func(out string) []string { return append([]string{"trace", "-o", out, "--", stream}, streamArgs...) }, isTrace},
		{"plan", func(out string) []string { return []string{"plan", "-o", out, tracePath} }, isPlan},
		{"export", func(out string) []string { return []string{"export", "-o", out, tracePath} }, json.Valid},
	} {
		target, link := filepath.Join(dir, c.name+".target"), filepath.Join(dir, c.name+".link")
		os.Symlink(filepath.Base(target), link)
		res := testenv.Echoctl(t, nil, c.args(link)...)
		data, err := os.ReadFile(target)
		st, lerr := os.Lstat(link)
		if res.ExitCode != 0 || err != nil || !c.ok(data) || lerr != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s -o LINK: exit %d (%s), target read %v, link %v: want the link kept and its target written",
				c.name, res.ExitCode, res.Stderr, err, st.Mode())
		}
		// A device node: written in place, still a device.
		res = testenv.Echoctl(t, nil, c.args(null)...)
		if st, err := os.Lstat(null); res.ExitCode != 0 || err != nil || st.Mode()&os.ModeCharDevice == 0 {
			t.Errorf("%s -o DEVICE: exit %d (%s): the device became %v", c.name, res.ExitCode, res.Stderr, st.Mode())
		}
	}

	// A FIFO: written in place for whoever reads it.
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte)
	go func() {
		data, _ := os.ReadFile(fifo)
		got <- data
	}()
	res = testenv.Echoctl(t, nil, append([]string{"validate", "-o", fifo, planPath, "--", stream}, streamArgs...)...)
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("validate -o FIFO: exit %d (%s): the FIFO became %v (%v)", res.ExitCode, res.Stderr, st.Mode(), err)
	}
	select {
	case data := <-got:
		if res.ExitCode != 0 || !isPlan(data) {
			t.Errorf("validate -o FIFO: exit %d (%s), the reader got %.200q", res.ExitCode, res.Stderr, data)
		}
	case <-time.After(30 * time.Second):
		t.Errorf("validate -o FIFO: exit %d (%s), and the FIFO's reader got nothing", res.ExitCode, res.Stderr)
	}
}

// Nothing that existed before a failed command is gone after it: a trace that could not
// start leaves the previous trace as it was, and no command writes over its own input.
func TestFailedCommandsKeepFiles(t *testing.T) {
	testenv.RequireRoot(t)
	dir := t.TempDir()
	old := filepath.Join(dir, "trace.bin")
	os.WriteFile(old, []byte("the previous trace"), 0o644)
	app := filepath.Join(dir, "app")
	stream, err := os.ReadFile(testenv.Built(t, "workloads/stream"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(app, stream, 0o755)
	// A plan optimize wrote before, with its trace: a later optimize that fails keeps both.
	plan := filepath.Join(dir, "app.plan")
	os.WriteFile(plan, []byte("the previous plan"), 0o644)
	os.WriteFile(plan+".trace", []byte("the previous plan's trace"), 0o644)
	cases := []struct {
		name, file string
		args       []string
	}{
		{"a mistyped command", old, []string{"trace", "-o", old, "--", filepath.Join(dir, "no-such-program")}},
		{"a dead process", old, []string{"trace", "-o", old, "-p", "999999999"}},
		{"the program itself", app, []string{"trace", "-o", app, "--", app}},
		{"the trace itself", old, []string{"plan", "-o", old, old}},
		{"export over its trace", old, []string{"export", "-o", old, old}},
		{"a failing optimize", plan + ".trace", []string{"optimize", "-o", plan, "--", app, "--iters", "nonsense"}},
		{"a failing optimize", plan, []string{"optimize", "-o", plan, "--", app, "--iters", "nonsense"}},
	}
	for _, c := range cases {
		before, _ := os.ReadFile(c.file)
		res := testenv.Echoctl(t, nil, c.args...)
		after, err := os.ReadFile(c.file)
		if res.ExitCode == 0 || err != nil || !bytes.Equal(before, after) {
			t.Errorf("%s: exit %d (%s); the file changed or went: %v", c.name, res.ExitCode, res.Stderr, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 4 {
		t.Errorf("left behind in the directory: %v", entries)
	}
}

// smallDisk is a 256 KiB tmpfs for a trace to fill, unmounted when the test ends.
func smallDisk(t *testing.T) string {
	testenv.RequireRoot(t)
	dir := t.TempDir()
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size=256k"); err != nil {
		t.Skipf("mounting a small tmpfs to fill: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(dir, unix.MNT_DETACH) })
	return dir
}

// A disk that fills as a short program ends (the loop's error comes after the program's
// exit) is said all the same: one line, and stats says the trace is truncated. Without
// launches, 2000 iterations of 2 copies fill the 256 KiB disk near the end.
func TestDiskFullAsProgramEnds(t *testing.T) {
	dir := smallDisk(t)
	out := filepath.Join(dir, "trace.bin")
	res := testenv.EchoctlOK(t, nil, "trace", "--no-host-allocs", "-o", out, "--", testenv.Built(t, "workloads/stream"),
		"--size", "64K", "--iters", "2000", "--warmup", "0")
	st := testenv.Echoctl(t, nil, "stats", "--json", out)
	var stats trace.Stats
	if err := json.Unmarshal([]byte(st.Stdout), &stats); err != nil || stats.Truncated == "" {
		t.Fatalf("stats: %v, truncated %q; want a truncated trace (the disk is 256 KiB): %s", err, stats.Truncated, st.Stdout)
	}
	if n := strings.Count(res.Stderr, "the disk is full"); n != 1 {
		t.Errorf("%d lines about the full disk, want 1: %s", n, res.Stderr)
	}
}

// A full disk stops the recording, not the program: the program runs to its end with its
// output and status, the trace is kept truncated and says so, and one line tells the user.
func TestDiskFullKeepsProgram(t *testing.T) {
	dir := smallDisk(t)
	// 3 events an iteration with the launches (--launches), 112 bytes each: 2000 iterations
	// are ~660 KiB, more than fits. (Without them the disk fills as the program ends, which
	// TestDiskFullAsProgramEnds covers.)
	args := []string{"--size", "64K", "--iters", "2000", "--warmup", "0"}
	want := testenv.RunWorkload(t, "stream", nil, args...).Checksum()
	out := filepath.Join(dir, "trace.bin")
	res := testenv.Echoctl(t, nil, append([]string{"trace", "--no-host-allocs", "--launches", "-o", out, "--", testenv.Built(t, "workloads/stream")}, args...)...)
	if res.ExitCode != 0 || res.Checksum() != want {
		t.Fatalf("trace: exit %d, checksum %q (want %s): %s", res.ExitCode, res.Checksum(), want, res.Stderr)
	}
	if n := strings.Count(res.Stderr, "the disk is full"); n != 1 {
		t.Errorf("%d lines about the full disk, want 1: %s", n, res.Stderr)
	}
	st := testenv.Echoctl(t, nil, "stats", "--json", out)
	var stats trace.Stats
	if err := json.Unmarshal([]byte(st.Stdout), &stats); err != nil || st.ExitCode != 0 {
		t.Fatalf("stats of the truncated trace: exit %d, %v: %s", st.ExitCode, err, st.Stderr)
	}
	if !strings.HasPrefix(stats.Truncated, "disk full") || stats.Events == 0 || stats.Complete {
		t.Errorf("stats %+v: want a truncated trace of some events", stats)
	}
	text := testenv.Echoctl(t, nil, "stats", out)
	if !strings.Contains(text.Stdout, "TRUNCATED") {
		t.Errorf("stats does not say the trace is truncated: %s", text.Stdout)
	}
}

// A reader that closes the trace's pipe early (| head -c 1000) stops the recording, not the
// program: the program runs to its end with its output and status, and one line says so.
func TestClosedPipeKeepsProgram(t *testing.T) {
	testenv.RequireRoot(t)
	// 3 events an iteration, 112 bytes each: 2000 iterations are ~660 KiB, far more than a
	// pipe holds, so the trace is still being written when the reader goes.
	args := []string{"--size", "64K", "--iters", "2000", "--warmup", "0"}
	want := testenv.RunWorkload(t, "stream", nil, args...).Checksum()
	cmd := exec.Command(testenv.Built(t, "bin/echoctl"), append([]string{"trace", "-o", "-", "--", testenv.Built(t, "workloads/stream")}, args...)...)
	var stderr strings.Builder // the program's stdout comes here too with -o -
	cmd.Stderr = &stderr
	trace, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(trace, make([]byte, 1000)); err != nil {
		t.Fatalf("reading the trace's first 1000 bytes: %v", err)
	}
	trace.Close()
	if err := cmd.Wait(); err != nil || !strings.Contains(stderr.String(), "checksum="+want) {
		t.Fatalf("trace -o - | head -c 1000: %v (want the program's status, 0), stderr %s (want checksum=%s)", err, stderr.String(), want)
	}
	if n := strings.Count(stderr.String(), "closed the pipe"); n != 1 {
		t.Errorf("%d lines about the closed pipe, want 1: %s", n, stderr.String())
	}
}
