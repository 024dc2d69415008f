package tracer

import (
	"fmt"
	"os"
	"sort"

	"github.com/echo-uma/echo/trace"
)

// moduleKey identifies a mapped file. The device is part of it: the shared tracer keeps one
// cache for processes in different mount namespaces, where one path and inode number may
// be two files.
type moduleKey struct {
	dev   string
	inode uint64
	path  string
}

// modules turns a process's mappings into one trace module per file that holds code, with
// the file's build-id (read once per file and cached) so call sites resolve to module +
// offset. A file mapped without execute permission is no module: the CUDA driver maps
// /dev/nvidia* device files, and programs map data files, at addresses scattered over the
// address space, and one module's range spanning them would hide every library mapped in
// between (sites in libtorch_cuda.so turned into raw addresses partway through a run).
type modules struct {
	buildIDs map[moduleKey]string
	sizes    map[moduleKey]int64
	callers  map[moduleKey]string // why a module may call the CUDA driver itself (drivercallers.go)
}

func newModules() *modules {
	return &modules{buildIDs: map[moduleKey]string{}, sizes: map[moduleKey]int64{}, callers: map[moduleKey]string{}}
}

func (ms *modules) of(pid int, maps []mapping) []trace.Module {
	type span struct {
		start, end, base uint64
		minOffset        uint64
	}
	spans := map[moduleKey]*span{}
	var order []moduleKey
	code := map[moduleKey]bool{}
	for _, m := range maps {
		code[moduleKey{m.dev, m.inode, m.path}] = code[moduleKey{m.dev, m.inode, m.path}] || m.exec
	}
	for _, m := range maps {
		key := moduleKey{m.dev, m.inode, m.path}
		if !code[key] {
			continue
		}
		s, ok := spans[key]
		if !ok {
			s = &span{start: m.start, end: m.end, base: m.start - m.offset, minOffset: m.offset}
			spans[key] = s
			order = append(order, key)
			continue
		}
		s.start, s.end = min(s.start, m.start), max(s.end, m.end)
		if m.offset < s.minOffset {
			s.minOffset, s.base = m.offset, m.start-m.offset
		}
	}
	exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)) // as the maps name it: in the process's own root
	out := make([]trace.Module, 0, len(order))
	for _, key := range order {
		s := spans[key]
		if _, ok := ms.buildIDs[key]; !ok {
			p := hostPath(pid, key.path)
			ms.buildIDs[key], _ = trace.FileBuildID(p) // "" when it has none or cannot be read
			if st, err := os.Stat(p); err == nil {
				ms.sizes[key] = st.Size()
			}
		}
		out = append(out, trace.Module{
			Path: key.path, BuildID: ms.buildIDs[key], Start: s.start, End: s.end,
			Base: s.base, Size: ms.sizes[key], PID: pid, Exe: key.path == exe,
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out
}

// driverCaller is driverCaller for a module pid maps, read once per file.
func (ms *modules) driverCaller(pid int, key moduleKey) string {
	why, ok := ms.callers[key]
	if !ok {
		why = driverCaller(hostPath(pid, key.path))
		ms.callers[key] = why
	}
	return why
}
