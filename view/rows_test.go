package view

import (
	"bytes"
	"strings"
	"testing"

	"github.com/echo-uma/echo/live"
)

// attach --once without a terminal prints rows a script can cut into columns: one header,
// numbers right-aligned under theirs, no styling, no trailing spaces, and an untraceable
// process's error in a column of its own rather than in place of its numbers.
func TestWriteRowsTable(t *testing.T) {
	rows := []live.Row{
		{PID: 4242, Comm: "stream", CopyShare: 0.634, H2DBytesPerS: 12 << 30, D2HBytesPerS: 307 << 20,
			CopiesPerS: 24, LaunchesPerS: 12, Pairs: 2},
		{PID: 51002, Comm: "trainer", CopyShare: 0.271, H2DBytesPerS: 3.1 * (1 << 30), CopiesPerS: 96000,
			LaunchesPerS: 148000, Pairs: 1, Lost: 12},
		{PID: 977, Comm: "nvidia-smi", Error: "permission denied"},
	}
	var buf bytes.Buffer
	if err := WriteRows(&buf, rows); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 5 || !strings.HasSuffix(lines[0], "  3 processes") {
		t.Fatalf("want a time line, a header and 3 rows:\n%s", buf.String())
	}
	want := []string{
		"  PID  COMMAND     COPY%       H2D/s      D2H/s  COPIES/s  LAUNCH/s  PAIRS  LOST  ERROR",
		" 4242  stream       63.4  12.0 GiB/s  307 MiB/s        24        12      2     0",
		"51002  trainer      27.1   3.1 GiB/s      0 B/s     96000    148000      1    12",
		"  977  nvidia-smi                                                                 permission denied",
	}
	for i, w := range want {
		if lines[i+1] != w {
			t.Errorf("line %d:\n got %q\nwant %q", i+1, lines[i+1], w)
		}
	}
	if strings.Contains(buf.String(), "\x1b") {
		t.Errorf("escape sequences in plain output: %q", buf.String())
	}

	buf.Reset()
	if err := WriteRows(&buf, rows[:1]); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "ERROR") || !strings.Contains(buf.String(), "  1 process\n") {
		t.Errorf("one traced process: want no ERROR column and \"1 process\":\n%s", buf.String())
	}
}

// A process attached without --launches says "not traced" in the launches column: 0 would
// say its launches were probed and none came.
func TestWriteRowsTableLaunchesNotTraced(t *testing.T) {
	var buf bytes.Buffer
	rows := []live.Row{{PID: 4242, Comm: "stream", CopyShare: 0.634, CopiesPerS: 24, Pairs: 2, NoLaunches: true}}
	if err := WriteRows(&buf, rows); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	head, row := lines[1], lines[2]
	at := strings.Index(head, "LAUNCH/s") + len("LAUNCH/s")
	if !strings.Contains(row, "not traced") || strings.Index(row, "not traced")+len("not traced") != at {
		t.Errorf("want \"not traced\" under LAUNCH/s:\n%s", buf.String())
	}
}
