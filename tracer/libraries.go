package tracer

import (
	"path/filepath"
	"strings"

	"github.com/echo-uma/echo/internal/procfs"
)

// kind is what a library is to the tracer: which probes it gets.
type kind int

const (
	kindRuntime   kind = iota // libcudart, or an executable with the runtime linked in
	kindDriver                // libcuda
	kindLibc                  // malloc and friends
	kindLibstdcxx             // operator new[] / delete[]
	kindLoader                // ld.so: _dl_debug_state
)

func (k kind) String() string {
	return [...]string{"CUDA runtime", "CUDA driver", "libc", "libstdc++", "dynamic loader"}[k]
}

// classify tells what a mapped file is from its name. Runtime copies come under many names:
// libcudart.so.12, pip wheels' nvidia/cuda_runtime/lib/libcudart.so.12, hashed copies such as
// libcudart-1a2b3c.so.12 bundled by Python packages.
func classify(path string) (kind, bool) {
	base := filepath.Base(path)
	switch {
	case strings.Contains(base, "libcudart"):
		return kindRuntime, true
	case strings.HasPrefix(base, "libcuda.so") || strings.HasPrefix(base, "libcuda-"):
		return kindDriver, true
	case base == "libc.so.6" || strings.HasPrefix(base, "libc-2."):
		return kindLibc, true
	case strings.HasPrefix(base, "libstdc++.so"):
		return kindLibstdcxx, true
	case strings.HasPrefix(base, "ld-linux") || strings.HasPrefix(base, "ld-2.") || base == "ld.so":
		return kindLoader, true
	}
	return 0, false
}

// IsCUDARuntime tells, by its name, whether a file is what the tracer probes as a CUDA
// runtime (libcudart*); IsCUDADriver, as the CUDA driver (libcuda.so*).
func IsCUDARuntime(path string) bool { k, ok := classify(path); return ok && k == kindRuntime }

func IsCUDADriver(path string) bool { k, ok := classify(path); return ok && k == kindDriver }

// UsesCUDA reports whether process pid maps a CUDA runtime or driver library. A runtime
// linked statically into the executable is not seen this way; a process gone is false.
func UsesCUDA(pid int) bool {
	maps, err := readMaps(pid)
	if err != nil {
		return false
	}
	for _, m := range maps {
		if k, ok := classify(m.path); ok && (k == kindRuntime || k == kindDriver) {
			return true
		}
	}
	return false
}

// staticKinds tells what an executable carries inside itself: a statically linked CUDA
// runtime (nvcc -cudart static) or driver shim, or a static libc.
func staticKinds(path string) ([]kind, error) {
	defined, err := functions(path)
	if err != nil {
		return nil, err
	}
	var kinds []kind
	if defined["cudaMalloc"] && defined["cudaMemcpy"] {
		kinds = append(kinds, kindRuntime)
	}
	if defined["cuMemAlloc_v2"] {
		kinds = append(kinds, kindDriver)
	}
	if defined["malloc"] && defined["free"] {
		kinds = append(kinds, kindLibc)
	}
	return kinds, nil
}

// mapping is one file-backed mapping of a process, as the tracer uses it.
type mapping struct {
	start, end, offset uint64
	dev                string // "major:minor", as /proc/PID/maps gives it
	inode              uint64
	path               string
	exec               bool // mapped executable: code runs from it
}

// readMaps returns the file-backed mappings of a process.
func readMaps(pid int) ([]mapping, error) {
	all, err := procfs.Maps(pid)
	if err != nil {
		return nil, err
	}
	return fileMappings(all), nil
}

// fileMappings keeps the mappings the tracer can probe. Anonymous and special mappings
// ([heap], [vdso]) have no file; a deleted file's path no longer names it, and probes are
// attached by path.
func fileMappings(all []procfs.Mapping) []mapping {
	var maps []mapping
	for _, m := range all {
		if m.File() && !m.Deleted {
			maps = append(maps, mapping{start: m.Start, end: m.End, offset: m.Offset, dev: m.Dev, inode: m.Inode,
				path: m.Path, exec: m.Exec()})
		}
	}
	return maps
}

// hostPath is where the tracer opens a file the process maps: through /proc/PID/root, so a
// process in another mount namespace (a container) resolves to the file it really maps.
func hostPath(pid int, path string) string { return procfs.RootPath(pid, path) }
