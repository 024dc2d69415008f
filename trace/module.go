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
}

// Site is where in a module a call was made: the return address as an offset inside the
// module, which stays the same across runs.
type Site struct {
	Module  string `json:"module"`             // the module's path; "" when no module maps the address
	BuildID string `json:"build_id,omitempty"` // the module's build-id
	Offset  uint64 `json:"offset"`             // address - Base; the raw address when Module is ""
}

// String is the site as a user reads it: "libfoo.so+0x1234", or "0x7f12…" when the address
// is in no known module.
func (s Site) String() string {
	if s.Module == "" {
		return fmt.Sprintf("%#x", s.Offset)
	}
	return fmt.Sprintf("%s+%#x", filepath.Base(s.Module), s.Offset)
}

// Modules is the module table of a trace: modules ordered by address, none overlapping.
// The zero value is empty and ready to use.
type Modules struct {
	list []Module // sorted by Start; ranges disjoint, so End is sorted too
}

// NewModules builds a table from modules in the order they were mapped: a later module
// supersedes an earlier one it overlaps.
func NewModules(mods []Module) *Modules {
	ms := &Modules{}
	for _, m := range mods {
		ms.Add(m)
	}
	return ms
}

// Add enters a module mapped later (dlopen). It supersedes every module whose range it
// overlaps: those were unmapped for the new one to take their place. A module with an empty
// range maps nothing and is ignored.
func (ms *Modules) Add(m Module) {
	if m.End <= m.Start {
		return
	}
	i := sort.Search(len(ms.list), func(i int) bool { return ms.list[i].End > m.Start })
	j := i
	for j < len(ms.list) && ms.list[j].Start < m.End {
		j++
	}
	ms.list = slices.Replace(ms.list, i, j, m)
}

// Resolve finds the module that maps addr and the site addr is in it.
func (ms *Modules) Resolve(addr uint64) (Site, bool) {
	i := sort.Search(len(ms.list), func(i int) bool { return ms.list[i].End > addr })
	if i == len(ms.list) || ms.list[i].Start > addr {
		return Site{}, false
	}
	m := &ms.list[i]
	return Site{Module: m.Path, BuildID: m.BuildID, Offset: addr - m.Base}, true
}

// List returns the modules in address order.
func (ms *Modules) List() []Module {
	return slices.Clone(ms.list)
}
