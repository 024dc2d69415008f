package tracer

import (
	"bytes"
	"debug/elf"
	"io"
	"strings"
)

// The driver's probes cost a process that reaches the driver only through the shared runtime
// (libcudart.so) two traps a call and record nothing: every driver call there runs inside a
// probed runtime call and is dropped as nested (issue 27). So the driver is probed only in a
// process where something else may call it. A module may when it
//   - imports a driver function (cuMemcpyHtoD_v2, cuGetProcAddress: a driver-API program, CuPy),
//   - carries a runtime of its own (a statically linked one, whose calls the tracer does not
//     probe unless it is the executable's, and whose unprobed calls reach the driver),
//   - imports a runtime function outside those probed and those known to move no data
//     (cudaMemcpyToSymbol or cudaGetDriverEntryPoint may reach the driver outside any probed
//     runtime call),
//   - calls functions by name through libffi (Python's ctypes: numba, cuda-python),
//   - or looks functions up with dlsym and names libcuda or a probed driver function in its
//     read-only data (a library that dlopens the driver, cuBLAS's and cuDNN's static runtime).
// A process that maps the driver and no runtime at all is probed too: whatever calls the
// driver there calls it directly. A caller that builds the driver's name at run time is not
// seen; --all-driver-probes (Config.AllDriverProbes) probes the driver everywhere, as before.

// harmlessRuntime are runtime functions known not to allocate, free, copy or synchronize
// through the driver: a module importing only these and probed ones needs no driver probes.
var harmlessRuntime = map[string]bool{
	"cudaGetErrorString": true, "cudaGetErrorName": true, "cudaGetLastError": true, "cudaPeekAtLastError": true,
	"cudaGetDevice": true, "cudaSetDevice": true, "cudaGetDeviceCount": true, "cudaGetDeviceProperties": true,
	"cudaGetDeviceProperties_v2": true, "cudaDeviceGetAttribute": true, "cudaHostGetDevicePointer": true,
	"cudaPointerGetAttributes": true, "cudaMemGetInfo": true, "cudaRuntimeGetVersion": true,
	"cudaDriverGetVersion": true, "cudaEventCreate": true, "cudaEventCreateWithFlags": true,
	"cudaEventDestroy": true, "cudaEventElapsedTime": true, "cudaEventQuery": true, "cudaStreamQuery": true,
	"cudaFuncGetAttributes": true, "cudaFuncSetAttribute": true, "cudaFuncSetCacheConfig": true,
	"cudaOccupancyMaxActiveBlocksPerMultiprocessor": true, "cudaDeviceSetLimit": true, "cudaDeviceGetLimit": true,
	"cudaSetDeviceFlags": true, "cudaGetDeviceFlags": true, "cudaStreamGetPriority": true,
	"cudaDeviceGetStreamPriorityRange": true, "cudaStreamCreateWithPriority": true,
}

// probedRuntime are the runtime functions the tracer probes (their driver calls are nested).
var probedRuntime = func() map[string]bool {
	out := map[string]bool{}
	for _, p := range probes[kindRuntime] {
		for _, s := range p.symbols {
			out[s] = true
		}
	}
	return out
}()

// driverNames are what a module that looks the driver up by name would spell: its file, the
// lookup function, and the probed functions' plain names (cuGetProcAddress takes those).
var driverNames = func() [][]byte {
	out := [][]byte{[]byte("libcuda.so"), []byte("cuGetProcAddress")}
	for _, p := range probes[kindDriver] {
		out = append(out, []byte(strings.TrimSuffix(p.enter, "_enter")))
	}
	return out
}()

// driverCaller tells why the module in the ELF file at path may call the CUDA driver other
// than through the shared runtime, or "" when it cannot. A file that cannot be read as ELF
// may: the rule errs towards probing.
func driverCaller(path string) string {
	if k, ok := classify(path); ok && (k == kindRuntime || k == kindDriver) {
		return ""
	}
	f, err := elf.Open(path)
	if err != nil {
		return "it could not be read as ELF"
	}
	defer f.Close()
	syms, _ := f.Symbols()
	dyn, _ := f.DynamicSymbols()
	defined := map[string]bool{}
	lookup := false
	for _, s := range append(syms, dyn...) {
		if s.Section != elf.SHN_UNDEF {
			if elf.ST_TYPE(s.Info) == elf.STT_FUNC {
				defined[s.Name] = true
			}
			continue
		}
		name, _, _ := strings.Cut(s.Name, "@")
		if why := importReason(name); why != "" {
			return why
		}
		lookup = lookup || name == "dlsym" || name == "dlvsym"
	}
	if defined["cudaMalloc"] && defined["cudaMemcpy"] {
		return "it carries a statically linked CUDA runtime"
	}
	if lookup && namesDriver(f) {
		return "it looks up the driver by name"
	}
	return ""
}

// importReason tells why importing the function name may reach the driver outside the
// shared runtime's probed calls, or "" when it cannot.
func importReason(name string) string {
	switch {
	case isDriverFunction(name):
		return "it imports " + name
	case strings.HasPrefix(name, "__cuda"):
		// nvcc's stubs call these (registering the fat binary and its kernels and variables,
		// a launch's configuration, CUDA 13's __cudaGetKernel and __cudaLaunchKernel): glue
		// between generated code and the runtime that neither allocates, copies nor waits.
		// Taking them for driver callers probed the driver in every nvcc-built program, two
		// traps a copy (measured on the H200: +2.2 µs a copy or synchronize).
	case strings.HasPrefix(name, "cuda"):
		if !probedRuntime[name] && !harmlessRuntime[name] {
			return "it imports " + name + ", which the runtime may serve through the driver"
		}
	case name == "ffi_call":
		return "it calls functions by name through libffi"
	}
	return ""
}

// isDriverFunction tells a driver API name (cuMemcpyHtoD_v2) from others starting with "cu"
// (cudaMalloc, cublasCreate): "cu" then a capital.
func isDriverFunction(name string) bool {
	return len(name) > 2 && strings.HasPrefix(name, "cu") && name[2] >= 'A' && name[2] <= 'Z'
}

// namesDriver tells whether the file's read-only data spells libcuda or a probed driver function.
func namesDriver(f *elf.File) bool {
	for _, s := range f.Sections {
		if s.Type != elf.SHT_PROGBITS || s.Flags&elf.SHF_ALLOC == 0 || s.Flags&(elf.SHF_WRITE|elf.SHF_EXECINSTR) != 0 {
			continue
		}
		data, err := io.ReadAll(s.Open())
		if err != nil {
			return true
		}
		for _, n := range driverNames {
			if bytes.Contains(data, n) {
				return true
			}
		}
	}
	return false
}
