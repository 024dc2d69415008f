package trace

import (
	"slices"
	"sort"
)

// deviceMemory is what a process has allocated as device memory, so that a copy with
// cudaMemcpyDefault can be given the direction the runtime inferred from its pointers.
type deviceMemory map[uint32]*spans // by pid: addresses belong to one process

// spans are disjoint address ranges sorted by start.
type spans struct{ list []span }

type span struct{ start, end uint64 }

// alloc records [addr, addr+size) in process pid. A range it overlaps is dropped: its free
// was lost, since live allocations cannot overlap.
func (d deviceMemory) alloc(pid uint32, addr, size uint64) {
	end := addr + size
	if size == 0 || end < addr {
		return
	}
	s := d[pid]
	if s == nil {
		s = &spans{}
		d[pid] = s
	}
	i := sort.Search(len(s.list), func(i int) bool { return s.list[i].end > addr })
	j := i
	for j < len(s.list) && s.list[j].start < end {
		j++
	}
	s.list = slices.Replace(s.list, i, j, span{addr, end})
}

// free forgets the allocation that starts at addr.
func (d deviceMemory) free(pid uint32, addr uint64) {
	s := d[pid]
	if s == nil {
		return
	}
	i := sort.Search(len(s.list), func(i int) bool { return s.list[i].start >= addr })
	if i < len(s.list) && s.list[i].start == addr {
		s.list = slices.Delete(s.list, i, i+1)
	}
}

// contains reports whether addr lies in device memory of process pid.
func (d deviceMemory) contains(pid uint32, addr uint64) bool {
	s := d[pid]
	if s == nil {
		return false
	}
	i := sort.Search(len(s.list), func(i int) bool { return s.list[i].end > addr })
	return i < len(s.list) && s.list[i].start <= addr
}
