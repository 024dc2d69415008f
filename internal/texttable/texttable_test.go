package texttable

import (
	"runtime"
	"strings"
	"testing"
)

func TestWrapLines(t *testing.T) {
	tests := []struct {
		text     string
		width    int
		maxLines int
		want     []string
	}{
		{"", 10, 3, nil},
		{"short", 10, 3, []string{"short"}},
		{"one two three four", 9, 0, []string{"one two", "three", "four"}},
		{"one two three four", 9, 2, []string{"one two", "three…"}},
		{"abcdefghijkl mn", 5, 0, []string{"abcde", "fghij", "kl mn"}},
		{"aaaa bbbbb ccccc", 5, 2, []string{"aaaa", "bbbb…"}},
		{"  spaced   out  ", 20, 0, []string{"spaced out"}},
	}
	for _, tt := range tests {
		got := WrapLines(tt.text, tt.width, tt.maxLines)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("WrapLines(%q, %d, %d) = %q, want %q", tt.text, tt.width, tt.maxLines, got, tt.want)
		}
	}
}

// A word far longer than a line (one huge argument of the traced command) is cut into whole
// lines that join back to it, with work in proportion to its length: the allocations are
// counted, since cutting it line by line from a re-decoded rest was quadratic (8.7 s for
// 200 000 characters; BenchmarkRenderPlanLongArgument measures the time).
func TestWrapLinesLongWord(t *testing.T) {
	const n, width = 200_000, 70
	word := strings.Repeat("abcdefghij", n/10)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	lines := WrapLines("x "+word, width, 0)
	runtime.ReadMemStats(&after)
	if len(lines) != 1+(n+width-1)/width || lines[0] != "x" || strings.Join(lines[1:], "") != word {
		t.Fatalf("%d lines, not the word cut into lines of %d", len(lines), width)
	}
	for _, l := range lines[1 : len(lines)-1] {
		if len(l) != width {
			t.Fatalf("a line of %d characters, want %d", len(l), width)
		}
	}
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > 64*n {
		t.Errorf("wrapping %d characters allocated %d bytes: more than in proportion", n, allocated)
	}
}
