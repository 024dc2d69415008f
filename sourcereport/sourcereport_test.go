package sourcereport

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/echo-uma/echo/source/rewrite"
)

// TestCells: the scan table's counts by condition, and a path too long for its column.
func TestCells(t *testing.T) {
	if c := countsCell(map[string]int{"S4": 1, "S1": 2}); c != "3 (S1 2, S4 1)" {
		t.Errorf("countsCell: %q", c)
	}
	if c := countsCell(nil); c != "-" {
		t.Errorf("countsCell of none: %q", c)
	}
	long := strings.Repeat("a", 200)
	if e := elide(long); !strings.HasSuffix(e, "(200 bytes)") || len(e) > 100 {
		t.Errorf("elide: %q", e)
	}
	if e := elide("src/a.cu"); e != "src/a.cu" {
		t.Errorf("elide of a short path: %q", e)
	}
}

// TestWritten: what -w did in one line, and the error: none when every file was written,
// one naming the files left as they were otherwise.
func TestWritten(t *testing.T) {
	var b bytes.Buffer
	summary, err := Written(&b, &rewrite.Written{Written: []string{"a.cu"}})
	if err != nil || summary != "wrote a.cu" || b.String() != "wrote a.cu\n" {
		t.Errorf("all written: %q, %v, printed %q", summary, err, b.String())
	}
	b.Reset()
	summary, err = Written(&b, &rewrite.Written{Written: []string{"a.cu"}, Skipped: []rewrite.Skip{{Path: "b.cu", Why: errors.New("changed meanwhile")}}})
	if err == nil || !strings.Contains(summary, "left as they were: b.cu") || !strings.Contains(b.String(), "b.cu: left as it was: changed meanwhile") {
		t.Errorf("one left: %q, %v, printed %q", summary, err, b.String())
	}
	if summary, _ := Written(&b, &rewrite.Written{}); summary != "nothing was written" {
		t.Errorf("none: %q", summary)
	}
}
