package view

import (
	"slices"
	"testing"

	"github.com/echo-uma/echo/live"
)

// Rows whose copy shares jitter around each other keep their places between refreshes; a
// clear change still reorders them, and a new sort key orders strictly.
func TestRowsKeepTheirPlaces(t *testing.T) {
	sample := func(shares ...float64) RowsMsg {
		rows := make(RowsMsg, len(shares))
		for i, s := range shares {
			rows[i] = live.Row{PID: 100 + i, CopyShare: s, Pairs: len(shares) - i}
		}
		return rows
	}
	m := start(t, sample(0.40, 0.42, 0.10))
	if got, want := pids(m), []int{101, 100, 102}; !slices.Equal(got, want) {
		t.Fatalf("first sample %v, want strict order %v", got, want)
	}
	steps := []struct {
		name string
		msg  RowsMsg
		want []int
	}{
		{"jitter: 100 now a little ahead", sample(0.43, 0.41, 0.11), []int{101, 100, 102}},
		{"jitter back", sample(0.40, 0.44, 0.09), []int{101, 100, 102}},
		{"a clear change", sample(0.70, 0.41, 0.10), []int{100, 101, 102}},
		{"the bottom row overtakes both", sample(0.70, 0.41, 0.95), []int{102, 100, 101}},
		{"a new process, in strict order among the rest", append(sample(0.70, 0.41, 0.95), live.Row{PID: 99, CopyShare: 0.5}),
			[]int{102, 100, 99, 101}},
	}
	for _, s := range steps {
		m = feed(t, m, s.msg)
		if got := pids(m); !slices.Equal(got, s.want) {
			t.Errorf("%s: order %v, want %v", s.name, got, s.want)
		}
	}
	m = feed(t, m, sample(0.40, 0.42, 0.41), keys("s")[0]) // bytes/s: all 0, PID breaks the tie
	if got, want := pids(m), []int{100, 101, 102}; !slices.Equal(got, want) {
		t.Errorf("after a new sort key: %v, want strict order %v", got, want)
	}
}
