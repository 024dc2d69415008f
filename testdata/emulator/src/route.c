/*
 * CUDA_EMU_DRIVER=1: the runtime goes through the emulated driver, as the real runtime goes
 * through libcuda. Only the shared runtime does (the driver is built on libcudart.so.12, so a
 * static runtime would meet a second emulator), and only for cudaMalloc, cudaFree, cudaMemcpy
 * and cudaDeviceSynchronize: enough for a traced program to make driver calls under runtime
 * calls, which a tracer must not record twice.
 */
#include <dlfcn.h>
#include <libgen.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static struct emu_driver driver;
/* 0 until load ran, then 1 (the runtime runs on its own) or 2 (through the driver): read on
 * every routed call, so the common case costs one load. */
static atomic_int state;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void warn(const char *why)
{
	fprintf(stderr, "cuda-emulator: CUDA_EMU_DRIVER=1 ignored: %s\n", why);
}

/* libcuda.so.1 beside this libcudart.so.12, or NULL when the runtime is not that library. */
static void *open_driver(void)
{
	Dl_info self;
	if (!dladdr((void *)emu_driver, &self) || !self.dli_fname || !strstr(self.dli_fname, "libcudart.so")) {
		warn("the runtime is linked statically");
		return NULL;
	}
	char dir[4096];
	snprintf(dir, sizeof dir, "%s", self.dli_fname);
	char path[4096 + 16];
	snprintf(path, sizeof path, "%s/libcuda.so.1", dirname(dir));
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		warn(dlerror());
	return h;
}

static bool route(void)
{
	const char *v = getenv("CUDA_EMU_DRIVER");
	if (!v || strcmp(v, "1") != 0)
		return false;
	void *h = open_driver();
	if (!h)
		return false;
	CUresult (*init)(unsigned int) = (CUresult(*)(unsigned int))dlsym(h, "cuInit");
	CUresult (*retain)(CUcontext *, CUdevice) = (CUresult(*)(CUcontext *, CUdevice))dlsym(h, "cuDevicePrimaryCtxRetain");
	CUresult (*set_current)(CUcontext) = (CUresult(*)(CUcontext))dlsym(h, "cuCtxSetCurrent");
	driver.mem_alloc = (CUresult(*)(CUdeviceptr *, size_t))dlsym(h, "cuMemAlloc_v2");
	driver.mem_free = (CUresult(*)(CUdeviceptr))dlsym(h, "cuMemFree_v2");
	driver.memcpy_htod = (CUresult(*)(CUdeviceptr, const void *, size_t))dlsym(h, "cuMemcpyHtoD_v2");
	driver.memcpy_dtoh = (CUresult(*)(void *, CUdeviceptr, size_t))dlsym(h, "cuMemcpyDtoH_v2");
	driver.memcpy_dtod = (CUresult(*)(CUdeviceptr, CUdeviceptr, size_t))dlsym(h, "cuMemcpyDtoD_v2");
	driver.ctx_synchronize = (CUresult(*)(void))dlsym(h, "cuCtxSynchronize");
	driver.launch_kernel = (__typeof__(driver.launch_kernel))dlsym(h, "cuLaunchKernel");
	if (!init || !retain || !set_current || !driver.mem_alloc || !driver.mem_free || !driver.memcpy_htod ||
	    !driver.memcpy_dtoh || !driver.memcpy_dtod || !driver.ctx_synchronize || !driver.launch_kernel) {
		warn("libcuda.so.1 lacks a driver function");
		return false;
	}
	CUcontext ctx;
	if (init(0) != CUDA_SUCCESS || retain(&ctx, 0) != CUDA_SUCCESS || set_current(ctx) != CUDA_SUCCESS) {
		warn("the driver did not initialise");
		return false;
	}
	return true;
}

static void load(void)
{
	atomic_store_explicit(&state, route() ? 2 : 1, memory_order_release);
}

const struct emu_driver *emu_driver(void)
{
	int s = atomic_load_explicit(&state, memory_order_acquire);
	if (s == 0) {
		pthread_once(&once, load);
		s = atomic_load_explicit(&state, memory_order_acquire);
	}
	return s == 2 ? &driver : NULL;
}

cudaError_t emu_from_driver(CUresult r)
{
	switch (r) {
	case CUDA_SUCCESS:
		return cudaSuccess;
	case CUDA_ERROR_INVALID_VALUE:
		return emu_fail(cudaErrorInvalidValue);
	case CUDA_ERROR_OUT_OF_MEMORY:
		return emu_fail(cudaErrorMemoryAllocation);
	case CUDA_ERROR_NO_DEVICE:
		return emu_fail(cudaErrorNoDevice);
	case CUDA_ERROR_INVALID_HANDLE:
		return emu_fail(cudaErrorInvalidResourceHandle);
	default:
		return emu_fail(cudaErrorUnknown);
	}
}
