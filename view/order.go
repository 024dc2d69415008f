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

// value is the row's figure for the key, where it orders by one.
func (k sortKey) value(r live.Row) float64 {
	switch k {
	case byCopyShare:
		return r.CopyShare
	case byBytes:
		return r.CopyBytesPerS
	case byCopies:
		return r.CopiesPerS
	case byLaunches:
		return r.LaunchesPerS
	case byPairs:
		return float64(r.Pairs)
	}
	return 0
}

// noise is the difference in the key's figure that says nothing between two samples: half a
// percentage point, a MiB/s, one call per second, a pair.
func (k sortKey) noise() float64 {
	return [...]float64{0.005, 1 << 20, 1, 1, 0.5, 0}[k]
}

// settleRatio is how much larger a row's figure must be than the one above it to pass it
// when the rows are re-sampled.
const settleRatio = 1.25

// less orders a before b by the key and direction, strictly.
func (m Model) less(a, b live.Row) int {
	if m.reverse {
		return m.sort.compare(b, a)
	}
	return m.sort.compare(a, b)
}

// clearlyBefore is whether a belongs above b by a margin no jitter between samples makes:
// its figure larger (smaller when reversed) by settleRatio and by more than the noise.
func (m Model) clearlyBefore(a, b live.Row) bool {
	if m.sort == byPID {
		return m.less(a, b) < 0
	}
	va, vb := m.sort.value(a), m.sort.value(b)
	if m.reverse {
		va, vb = vb, va
	}
	return va > vb*settleRatio && va-vb > m.sort.noise()
}

// sorted returns rows in strict display order.
func (m Model) sorted(rows []live.Row) []live.Row {
	out := slices.Clone(rows)
	slices.SortFunc(out, m.less)
	return out
}

// settle is the display order (PIDs) of a new sample: the last frame's order, with a row
// moved up only past rows it clearly beats, so that rows whose figures jitter around each
// other keep their places from one refresh to the next. A process new to the view goes
// where strict order puts it; without a last frame, every row does.
func (m Model) settle(rows []live.Row) []int {
	pos := make(map[int]int, len(m.order))
	for i, pid := range m.order {
		pos[pid] = i
	}
	var list, fresh []live.Row
	for _, r := range m.sorted(rows) {
		if _, ok := pos[r.PID]; ok {
			list = append(list, r)
		} else {
			fresh = append(fresh, r)
		}
	}
	slices.SortFunc(list, func(a, b live.Row) int { return cmp.Compare(pos[a.PID], pos[b.PID]) })
	for i := 1; i < len(list); i++ {
		for j := i; j > 0 && m.clearlyBefore(list[j], list[j-1]); j-- {
			list[j], list[j-1] = list[j-1], list[j]
		}
	}
	for _, r := range fresh {
		i := slices.IndexFunc(list, func(o live.Row) bool { return m.less(r, o) < 0 })
		if i < 0 {
			i = len(list)
		}
		list = slices.Insert(list, i, r)
	}
	pids := make([]int, len(list))
	for i, r := range list {
		pids[i] = r.PID
	}
	return pids
}

// visible returns the rows that pass the filter, in display order. It copies, so the
// source's slice is never reordered under it.
func (m Model) visible() []live.Row {
	pos := make(map[int]int, len(m.order))
	for i, pid := range m.order {
		pos[pid] = i
	}
	out := make([]live.Row, 0, len(m.rows))
	for _, r := range m.rows {
		if matches(r, m.filter) {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b live.Row) int {
		pa, oka := pos[a.PID]
		pb, okb := pos[b.PID]
		if oka && okb {
			return cmp.Compare(pa, pb)
		}
		return m.less(a, b)
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
