package trace

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
)

// Module is an executable or library mapped into a traced process: what a return address
// is resolved against, so that a site names the same code in every run despite ASLR.
type Module struct {
	Path    string `json:"path"`               // as mapped, e.g. /usr/lib/x86_64-linux-gnu/libcudart.so.12
	BuildID string `json:"build_id,omitempty"` // hex GNU build-id, "" when the file has none
	Start   uint64 `json:"start"`              // first mapped address
	End     uint64 `json:"end"`                // one past the last mapped address
	Base    uint64 `json:"base"`               // address of the mapping at file offset 0
	Size    int64  `json:"size"`               // file size: identifies the file when there is no build-id
	PID     int    `json:"pid,omitempty"`      // the process whose address space it is mapped in; 0: any
	// Exe: the file the process runs (its /proc/PID/exe), not a library. A followed child
	// that exec'd another program has no header naming it; this names it.
	Exe bool `json:"exe,omitempty"`
}

// Site is where in a module a call was made: the return address as an offset inside the
// module, which stays the same across runs.
type Site struct {
	Module  string `json:"module"`             // the module's path; "" when no module maps the address
	BuildID string `json:"build_id,omitempty"` // the module's build-id
	Offset  uint64 `json:"offset"`             // address - Base; the raw address when Module is ""
	// ModuleSize is the module's file size, which names it when it has no build-id.
	ModuleSize int64 `json:"module_size,omitempty"`
}

// String is the site as a user reads it: "libfoo.so+0x1234", or "0x7f12…" when the address
// is in no known module.
func (s Site) String() string {
	if s.Module == "" {
		return fmt.Sprintf("%#x", s.Offset)
	}
	return fmt.Sprintf("%s+%#x", filepath.Base(s.Module), s.Offset)
}

// Modules is the module table of a trace: one address space per traced process, each with
// its modules ordered by address, none overlapping. The zero value is empty and ready to use.
type Modules struct {
	spaces map[int][]Module // by PID; each sorted by Start, ranges disjoint, so End is sorted too
}

// NewModules builds a table from modules in the order they were mapped: a later module
// supersedes an earlier one it overlaps in the same process.
func NewModules(mods []Module) *Modules {
	ms := &Modules{}
	for _, m := range mods {
		ms.Add(m)
	}
	return ms
}

// Add enters a module mapped later (dlopen, a child's exec). It supersedes every module of
// the same process whose range it overlaps: those were unmapped for the new one to take
// their place. A module with an empty range maps nothing and is ignored.
func (ms *Modules) Add(m Module) {
	if m.End <= m.Start {
		return
	}
	if ms.spaces == nil {
		ms.spaces = map[int][]Module{}
	}
	list := ms.spaces[m.PID]
	i := sort.Search(len(list), func(i int) bool { return list[i].End > m.Start })
	j := i
	for j < len(list) && list[j].Start < m.End {
		j++
	}
	ms.spaces[m.PID] = slices.Replace(list, i, j, m)
}

// Resolve finds the module that maps addr in process pid, and the site addr is in it.
// Modules recorded without a process (PID 0) serve every process that has none of its own.
func (ms *Modules) Resolve(pid int, addr uint64) (Site, bool) {
	list, ok := ms.spaces[pid]
	if !ok {
		list = ms.spaces[0]
	}
	i := sort.Search(len(list), func(i int) bool { return list[i].End > addr })
	if i == len(list) || list[i].Start > addr {
		return Site{}, false
	}
	m := &list[i]
	return Site{Module: m.Path, BuildID: m.BuildID, Offset: addr - m.Base, ModuleSize: m.Size}, true
}

// List returns the modules of every process, by process and then address.
func (ms *Modules) List() []Module {
	pids := make([]int, 0, len(ms.spaces))
	for pid := range ms.spaces {
		pids = append(pids, pid)
	}
	slices.Sort(pids)
	var out []Module
	for _, pid := range pids {
		out = append(out, ms.spaces[pid]...)
	}
	return out
}
