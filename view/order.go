package view

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/echo-uma/echo/live"
)

// sortKey is the column the table is ordered by; `s` cycles through them in this order,
// the most telling first.
type sortKey int

const (
	byCopyShare sortKey = iota
	byBytes
	byCopies
	byLaunches
	byPairs
	byPID
	numSortKeys
)

func (k sortKey) next() sortKey { return (k + 1) % numSortKeys }

func (k sortKey) String() string {
	return [...]string{"copy%", "bytes/s", "copies/s", "launches/s", "pairs", "pid"}[k]
}

// compare orders a before b in the key's natural direction: the biggest cost first, PIDs
// ascending. Ties fall back to PID so frames do not shuffle between samples.
func (k sortKey) compare(a, b live.Row) int {
	var c int
	switch k {
	case byCopyShare:
		c = cmp.Compare(b.CopyShare, a.CopyShare)
	case byBytes:
		c = cmp.Compare(b.CopyBytesPerS, a.CopyBytesPerS)
	case byCopies:
		c = cmp.Compare(b.CopiesPerS, a.CopiesPerS)
	case byLaunches:
		c = cmp.Compare(b.LaunchesPerS, a.LaunchesPerS)
	case byPairs:
		c = cmp.Compare(b.Pairs, a.Pairs)
	}
	if c != 0 {
		return c
	}
	return cmp.Compare(a.PID, b.PID)
}

// visible returns the rows that pass the filter, in display order. It copies, so the
// source's slice is never reordered under it.
func (m Model) visible() []live.Row {
	out := make([]live.Row, 0, len(m.rows))
	for _, r := range m.rows {
		if matches(r, m.filter) {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b live.Row) int {
		if m.reverse {
			return m.sort.compare(b, a)
		}
		return m.sort.compare(a, b)
	})
	return out
}

// matches reports whether the row's comm, PID or command line contains f, ignoring case.
func matches(r live.Row, f string) bool {
	if f == "" {
		return true
	}
	f = strings.ToLower(f)
	return strings.Contains(strings.ToLower(r.Comm), f) ||
		strings.Contains(strconv.Itoa(r.PID), f) ||
		strings.Contains(strings.ToLower(r.Command), f)
}
