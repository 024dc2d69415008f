package tracer

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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

// mapping is one line of /proc/PID/maps backed by a file.
type mapping struct {
	start, end, offset uint64
	inode              uint64
	path               string
	exec               bool // mapped executable: code runs from it
}

// readMaps returns the file-backed mappings of a process.
func readMaps(pid int) ([]mapping, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var maps []mapping
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if m, ok := parseMapsLine(sc.Text()); ok {
			maps = append(maps, m)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading /proc/%d/maps: %w", pid, err)
	}
	return maps, nil
}

// parseMapsLine parses "start-end perms offset dev inode path"; anonymous and special
// mappings ([heap], [vdso], deleted files) are skipped.
func parseMapsLine(line string) (mapping, bool) {
	fields := strings.Fields(line)
	if len(fields) < 6 || !strings.HasPrefix(fields[5], "/") || len(fields) > 6 {
		return mapping{}, false
	}
	lo, hi, ok := strings.Cut(fields[0], "-")
	if !ok {
		return mapping{}, false
	}
	start, err1 := strconv.ParseUint(lo, 16, 64)
	end, err2 := strconv.ParseUint(hi, 16, 64)
	off, err3 := strconv.ParseUint(fields[2], 16, 64)
	inode, err4 := strconv.ParseUint(fields[4], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || inode == 0 {
		return mapping{}, false
	}
	return mapping{start: start, end: end, offset: off, inode: inode, path: fields[5], exec: strings.Contains(fields[1], "x")}, true
}

// hostPath is where the tracer opens a file the process maps: through /proc/PID/root, so a
// process in another mount namespace (a container) resolves to the file it really maps.
func hostPath(pid int, path string) string {
	return fmt.Sprintf("/proc/%d/root%s", pid, path)
}
