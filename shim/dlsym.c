/*
 * Programs that dlopen the runtime (PyTorch-style) call it through pointers from dlsym,
 * which bypass a preloaded library's symbols. The shim interposes dlsym too: asked for a
 * runtime function it hooks, it hands out its hook, and takes the real functions from the
 * handle the program opened (a library opened RTLD_LOCAL is invisible to RTLD_NEXT).
 *
 * One limit: dlsym(RTLD_NEXT, ...) from the program itself now resolves relative to the
 * shim, which sits next to the executable in the search order anyway.
 */
#include <dlfcn.h>
#include <string.h>

#include "shim.h"

static void *(*next_dlsym)(void *, const char *);
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void find(void)
{
	next_dlsym = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
	if (!next_dlsym)
		next_dlsym = dlvsym(RTLD_NEXT, "dlsym", SHIM_BASE_GLIBC);
}

void *shim_real_dlsym(void *handle, const char *name)
{
	pthread_once(&once, find);
	return next_dlsym ? next_dlsym(handle, name) : NULL;
}

static const struct {
	const char *name;
	void *hook;
} hooks[] = {
	{"cudaMalloc", (void *)cudaMalloc},
	{"cudaMallocHost", (void *)cudaMallocHost},
	{"cudaHostAlloc", (void *)cudaHostAlloc},
	{"cudaFree", (void *)cudaFree},
	{"cudaFreeHost", (void *)cudaFreeHost},
	{"cudaHostRegister", (void *)cudaHostRegister},
	{"cudaHostUnregister", (void *)cudaHostUnregister},
	{"cudaMemcpy", (void *)cudaMemcpy},
	{"cudaMemcpyAsync", (void *)cudaMemcpyAsync},
	{"cudaMemcpy2DAsync", (void *)cudaMemcpy2DAsync},
	{"cudaMemset", (void *)cudaMemset},
	{"cudaMemsetAsync", (void *)cudaMemsetAsync},
	{"cudaLaunchKernel", (void *)cudaLaunchKernel},
	{"cudaLaunchCooperativeKernel", (void *)cudaLaunchCooperativeKernel},
	{"cudaGraphLaunch", (void *)cudaGraphLaunch},
	{"cudaLaunchKernelExC", (void *)cudaLaunchKernelExC},
	{"cudaMemcpy_ptds", (void *)cudaMemcpy_ptds},
	{"cudaMemcpyAsync_ptsz", (void *)cudaMemcpyAsync_ptsz},
	{"cudaMemcpy2D_ptds", (void *)cudaMemcpy2D_ptds},
	{"cudaMemcpy2DAsync_ptsz", (void *)cudaMemcpy2DAsync_ptsz},
	{"cudaMemset_ptds", (void *)cudaMemset_ptds},
	{"cudaMemsetAsync_ptsz", (void *)cudaMemsetAsync_ptsz},
	{"cudaLaunchKernel_ptsz", (void *)cudaLaunchKernel_ptsz},
	{"cudaStreamSynchronize_ptsz", (void *)cudaStreamSynchronize_ptsz},
	{"cudaEventRecord_ptsz", (void *)cudaEventRecord_ptsz},
	{"cudaStreamWaitEvent_ptsz", (void *)cudaStreamWaitEvent_ptsz},
	{"cudaLaunchHostFunc_ptsz", (void *)cudaLaunchHostFunc_ptsz},
	{"cudaStreamAddCallback_ptsz", (void *)cudaStreamAddCallback_ptsz},
	{"cudaLaunchCooperativeKernel_ptsz", (void *)cudaLaunchCooperativeKernel_ptsz},
	{"cudaGraphLaunch_ptsz", (void *)cudaGraphLaunch_ptsz},
	{"cudaLaunchKernelExC_ptsz", (void *)cudaLaunchKernelExC_ptsz},
	{"cudaDeviceSynchronize", (void *)cudaDeviceSynchronize},
	{"cudaStreamSynchronize", (void *)cudaStreamSynchronize},
	{"cudaStreamQuery", (void *)cudaStreamQuery},
	{"cudaStreamCreate", (void *)cudaStreamCreate},
	{"cudaStreamCreateWithFlags", (void *)cudaStreamCreateWithFlags},
	{"cudaStreamCreateWithPriority", (void *)cudaStreamCreateWithPriority},
	{"cudaEventRecord", (void *)cudaEventRecord},
	{"cudaEventRecordWithFlags", (void *)cudaEventRecordWithFlags},
	{"cudaStreamWaitEvent", (void *)cudaStreamWaitEvent},
	{"cudaStreamDestroy", (void *)cudaStreamDestroy},
	{"cudaLaunchHostFunc", (void *)cudaLaunchHostFunc},
	{"cudaStreamAddCallback", (void *)cudaStreamAddCallback},
	{"cudaEventSynchronize", (void *)cudaEventSynchronize},
	{"cudaEventQuery", (void *)cudaEventQuery},
	{"cudaEventDestroy", (void *)cudaEventDestroy},
};

/* The driver's, for programs that take them from libcuda themselves (hooks_driver.c). */
static const struct {
	const char *name;
	void *hook;
} driver_hooks[] = {
	{"cuMemAlloc_v2", (void *)cuMemAlloc_v2},
	{"cuMemFree_v2", (void *)cuMemFree_v2},
	{"cuMemcpyHtoD_v2", (void *)cuMemcpyHtoD_v2},
	{"cuMemcpyDtoH_v2", (void *)cuMemcpyDtoH_v2},
	{"cuMemcpyHtoDAsync_v2", (void *)cuMemcpyHtoDAsync_v2},
	{"cuMemcpyDtoHAsync_v2", (void *)cuMemcpyDtoHAsync_v2},
	{"cuLaunchKernel", (void *)cuLaunchKernel},
	{"cuStreamWaitEvent", (void *)cuStreamWaitEvent},
	{"cuLaunchHostFunc", (void *)cuLaunchHostFunc},
	{"cuStreamAddCallback", (void *)cuStreamAddCallback},
	{"cuGetProcAddress_v2", (void *)cuGetProcAddress_v2},
	{"cuGetProcAddress", (void *)cuGetProcAddress},
};

SHIM_API void *dlsym(void *handle, const char *name)
{
	void *sym = shim_real_dlsym(handle, name);
	if (!sym || strncmp(name, "cu", 2) || handle == RTLD_DEFAULT || handle == RTLD_NEXT)
		return sym;
	if (strncmp(name, "cuda", 4) != 0) {
		for (size_t i = 0; i < sizeof driver_hooks / sizeof driver_hooks[0]; i++)
			if (!strcmp(name, driver_hooks[i].name)) {
				shim_adopt_driver(handle);
				return driver_hooks[i].hook;
			}
		return sym;
	}
	for (size_t i = 0; i < sizeof hooks / sizeof hooks[0]; i++)
		if (!strcmp(name, hooks[i].name)) {
			shim_adopt_runtime(handle);
			return hooks[i].hook;
		}
	return sym;
}
