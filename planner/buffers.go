package planner

import (
	"slices"
	"sort"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/trace"
)

// buffer is one allocation the trace saw (or, in an attached trace, one the copies imply).
type buffer struct {
	id          int
	pid         uint32
	start, size uint64
	kind        plan.MemKind
	call        trace.EventType // the allocating call
	site        plan.Site
	unresolved  bool   // not allocated in the trace: known only from copies
	allocNS     uint64 // when its allocating call returned; 0 when unresolved
	freedNS     uint64 // 0 while live
	lastUseNS   uint64 // last copy or memset touching it
	deviceWrite string // a write on the device side the host side would not see, if any
	// deviceMemset is the memset call that also writes the device side, if any: an output's
	// host side merged with it holds the memset's values until the copy, which validation
	// watches; an input's would lose the host's data.
	deviceMemset string
	copied2D     bool
	// failedCopies counts the copies naming this buffer that returned an error; failedCopy
	// describes the first.
	failedCopies int
	failedCopy   string
}

func (b *buffer) deviceSide() bool { return b.kind == plan.KindDevice || b.kind == plan.KindManaged }

// buffers is the allocation map: the live buffers of each process by address, and every
// buffer ever seen by id. Memory grows with buffers, not with events.
type buffers struct {
	live map[uint32][]*buffer // sorted by start, disjoint
	all  []*buffer
}

func newBuffers() *buffers { return &buffers{live: map[uint32][]*buffer{}} }

// add enters a new allocation. A live buffer it overlaps was freed without the trace seeing
// it (a free below the size filter, a lost event) and is retired.
func (bs *buffers) add(b *buffer) *buffer {
	b.id = len(bs.all)
	bs.all = append(bs.all, b)
	list := bs.live[b.pid]
	i := sort.Search(len(list), func(i int) bool { return list[i].start+list[i].size > b.start })
	j := i
	for j < len(list) && list[j].start < b.start+b.size {
		j++
	}
	bs.live[b.pid] = slices.Replace(list, i, j, b)
	return b
}

// find returns the live buffer of pid that holds addr, or nil.
func (bs *buffers) find(pid uint32, addr uint64) *buffer {
	list := bs.live[pid]
	i := sort.Search(len(list), func(i int) bool { return list[i].start+list[i].size > addr })
	if i == len(list) || list[i].start > addr {
		return nil
	}
	return list[i]
}

// free retires the live buffer of pid that starts at addr, if any, for a free entered at ns.
// A free entered before that buffer's allocation returned freed the one before it at addr:
// calls are recorded as they return, so where threads allocate and free at once (a data
// loader's), another thread's free of an address can come after the allocation that took
// the address again, and must not retire it.
func (bs *buffers) free(pid uint32, addr, ns uint64) *buffer {
	list := bs.live[pid]
	i := sort.Search(len(list), func(i int) bool { return list[i].start >= addr })
	if i == len(list) || list[i].start != addr || list[i].allocNS > ns {
		return nil
	}
	b := list[i]
	b.freedNS = ns
	bs.live[pid] = slices.Delete(list, i, i+1)
	return b
}
