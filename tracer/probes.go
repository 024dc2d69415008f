package tracer

import "github.com/echo-uma/echo/trace"

// family is a set of traced functions that share their return program, and, on kernels with
// uprobe_multi, one entry program that learns which function it is from the attach cookie.
type family struct {
	enterMulti, leaveMulti string // "" when the family has no multi programs
	leave                  string // return program for one-at-a-time attach; "" for entry only
}

var (
	hostAllocs = family{"host_enter_multi", "host_leave_multi", "host_leave"}
	hostFrees  = family{enterMulti: "free_enter_multi"}
	runtime    = family{"runtime_enter_multi", "runtime_leave_multi", "runtime_leave"}
	driver     = family{"driver_enter_multi", "driver_leave_multi", "driver_leave"}
	// cuLaunchKernel, recorded at entry: its return adds nothing a plan uses (echo.bpf.c).
	driverLaunch = family{enterMulti: "driver_launch_multi"}
	loader       = family{enterMulti: "loader_state_multi"}
)

// withFlags marks the variant of a call that takes one more (flags) argument (ECHO_WITH_FLAGS).
const withFlags = 1 << 16

// probe is one traced function: the symbols it goes by (a per-thread-default-stream
// variant, a versioned driver name), its event type as the attach cookie, and its own entry
// program for one-at-a-time attach.
type probe struct {
	symbols []string
	cookie  uint64
	enter   string
	fam     family
}

// launch is whether the probe is a kernel launch's, which only Config.Launches attaches.
func (p probe) launch() bool {
	t := trace.EventType(p.cookie &^ withFlags)
	return t == trace.EventCUDALaunchKernel || t == trace.EventCULaunchKernel
}

func host(prog string, t trace.EventType, f family, symbols ...string) probe {
	return probe{symbols: symbols, cookie: uint64(t), enter: prog + "_enter", fam: f}
}

// rt is a runtime call; variant names the --default-stream per-thread twin CUDA exports
// beside it (_ptds for synchronous calls, _ptsz for those taking a stream).
func rt(name, variant string, cookie uint64) probe {
	syms := []string{name}
	if variant != "" {
		syms = append(syms, name+variant)
	}
	return probe{symbols: syms, cookie: cookie, enter: name + "_enter", fam: runtime}
}

// drv is a driver call probed by the program for base, under its exported names.
func drv(base string, t trace.EventType, names ...string) probe {
	return probe{symbols: names, cookie: uint64(t), enter: base + "_enter", fam: driver}
}

var probes = map[kind][]probe{
	kindRuntime: {
		rt("cudaMalloc", "", uint64(trace.EventCUDAMalloc)),
		rt("cudaMallocHost", "", uint64(trace.EventCUDAMallocHost)),
		rt("cudaHostAlloc", "", uint64(trace.EventCUDAHostAlloc)),
		rt("cudaMallocManaged", "", uint64(trace.EventCUDAMallocManaged)),
		rt("cudaHostRegister", "", uint64(trace.EventCUDAHostRegister)),
		rt("cudaFree", "", uint64(trace.EventCUDAFree)),
		rt("cudaFreeHost", "", uint64(trace.EventCUDAFreeHost)),
		rt("cudaHostUnregister", "", uint64(trace.EventCUDAHostUnregister)),
		rt("cudaMemcpy", "_ptds", uint64(trace.EventCUDAMemcpy)),
		rt("cudaMemcpyAsync", "_ptsz", uint64(trace.EventCUDAMemcpyAsync)),
		rt("cudaMemcpy2D", "_ptds", uint64(trace.EventCUDAMemcpy2D)),
		rt("cudaMemcpy2DAsync", "_ptsz", uint64(trace.EventCUDAMemcpy2DAsync)),
		rt("cudaMemset", "_ptds", uint64(trace.EventCUDAMemset)),
		rt("cudaMemsetAsync", "_ptsz", uint64(trace.EventCUDAMemsetAsync)),
		// nvcc 13 compiles <<<>>> into __cudaLaunchKernel, with the same arguments (the
		// kernel's handle first): one probe for both.
		{symbols: []string{"cudaLaunchKernel", "cudaLaunchKernel_ptsz", "__cudaLaunchKernel", "__cudaLaunchKernel_ptsz"},
			cookie: uint64(trace.EventCUDALaunchKernel), enter: "cudaLaunchKernel_enter", fam: runtime},
		rt("cudaStreamCreate", "", uint64(trace.EventCUDAStreamCreate)),
		rt("cudaStreamCreateWithFlags", "", uint64(trace.EventCUDAStreamCreate)|withFlags),
		rt("cudaStreamDestroy", "", uint64(trace.EventCUDAStreamDestroy)),
		rt("cudaStreamSynchronize", "_ptsz", uint64(trace.EventCUDAStreamSynchronize)),
		rt("cudaDeviceSynchronize", "", uint64(trace.EventCUDADeviceSynchronize)),
		rt("cudaEventRecord", "_ptsz", uint64(trace.EventCUDAEventRecord)),
		rt("cudaEventSynchronize", "", uint64(trace.EventCUDAEventSynchronize)),
		rt("cudaStreamWaitEvent", "_ptsz", uint64(trace.EventCUDAStreamWaitEvent)),
	},
	kindDriver: {
		drv("cuMemAlloc", trace.EventCUMemAlloc, "cuMemAlloc_v2"),
		drv("cuMemAllocHost", trace.EventCUMemAllocHost, "cuMemAllocHost_v2"),
		drv("cuMemHostAlloc", trace.EventCUMemHostAlloc, "cuMemHostAlloc"),
		drv("cuMemAllocManaged", trace.EventCUMemAllocManaged, "cuMemAllocManaged"),
		drv("cuMemFree", trace.EventCUMemFree, "cuMemFree_v2"),
		drv("cuMemFreeHost", trace.EventCUMemFreeHost, "cuMemFreeHost"),
		drv("cuMemcpyHtoD", trace.EventCUMemcpyHtoD, "cuMemcpyHtoD_v2", "cuMemcpyHtoD_v2_ptds"),
		drv("cuMemcpyDtoH", trace.EventCUMemcpyDtoH, "cuMemcpyDtoH_v2", "cuMemcpyDtoH_v2_ptds"),
		drv("cuMemcpyDtoD", trace.EventCUMemcpyDtoD, "cuMemcpyDtoD_v2", "cuMemcpyDtoD_v2_ptds"),
		drv("cuMemcpyHtoDAsync", trace.EventCUMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", "cuMemcpyHtoDAsync_v2_ptsz"),
		drv("cuMemcpyDtoHAsync", trace.EventCUMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", "cuMemcpyDtoHAsync_v2_ptsz"),
		drv("cuMemcpyDtoDAsync", trace.EventCUMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", "cuMemcpyDtoDAsync_v2_ptsz"),
		{symbols: []string{"cuLaunchKernel", "cuLaunchKernel_ptsz"}, cookie: uint64(trace.EventCULaunchKernel),
			enter: "cuLaunchKernel_enter", fam: driverLaunch},
		drv("cuStreamSynchronize", trace.EventCUStreamSynchronize, "cuStreamSynchronize", "cuStreamSynchronize_ptsz"),
		drv("cuCtxSynchronize", trace.EventCUCtxSynchronize, "cuCtxSynchronize"),
	},
	kindLibc: {
		host("malloc", trace.EventMalloc, hostAllocs, "malloc"),
		host("calloc", trace.EventCalloc, hostAllocs, "calloc"),
		host("realloc", trace.EventRealloc, hostAllocs, "realloc"),
		host("posix_memalign", trace.EventPosixMemalign, hostAllocs, "posix_memalign"),
		host("aligned_alloc", trace.EventAlignedAlloc, hostAllocs, "aligned_alloc"),
		host("free", trace.EventFree, hostFrees, "free"),
	},
	kindLibstdcxx: {
		host("new_array", trace.EventNewArray, hostAllocs, "_Znam"),
		host("delete_array", trace.EventDeleteArray, hostFrees, "_ZdaPv", "_ZdaPvm"),
	},
	kindLoader: {
		{symbols: []string{"_dl_debug_state"}, enter: "loader_state", fam: loader},
	},
}
