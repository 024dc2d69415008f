package trace

import (
	"slices"
	"sort"
)

// busyTime measures the union of time intervals: how long at least one thread was inside
// a copy call, which can be less than the sum of the calls when threads copy at once.
//
// Events arrive in the order they returned, give or take the ring buffer's interleaving,
// so new intervals land at the end of the list. To keep memory constant the oldest half
// is folded into a total once the list holds maxBusySpans disjoint intervals; an interval
// that arrives reaching back before that point (a call that outlasted thousands of others)
// is counted from the point on.
type busyTime struct {
	spans    []span // disjoint, not touching, sorted by start
	frontier uint64 // time before which everything is folded into total
	total    uint64
}

const maxBusySpans = 4096

func (b *busyTime) add(start, end uint64) {
	start = max(start, b.frontier)
	if end <= start {
		return
	}
	// spans[i:j] are those the new interval overlaps or touches.
	i := sort.Search(len(b.spans), func(i int) bool { return b.spans[i].end >= start })
	j := i
	for j < len(b.spans) && b.spans[j].start <= end {
		start = min(start, b.spans[j].start)
		end = max(end, b.spans[j].end)
		j++
	}
	b.spans = slices.Replace(b.spans, i, j, span{start, end})
	if len(b.spans) >= maxBusySpans {
		half := len(b.spans) / 2
		for _, s := range b.spans[:half] {
			b.total += s.end - s.start
		}
		b.frontier = b.spans[half-1].end
		b.spans = append(b.spans[:0], b.spans[half:]...)
	}
}

// sum is the length of the union of the intervals added.
func (b *busyTime) sum() uint64 {
	n := b.total
	for _, s := range b.spans {
		n += s.end - s.start
	}
	return n
}
