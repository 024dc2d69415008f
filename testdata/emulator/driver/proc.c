/*
 * cuGetProcAddress for Echo's emulated driver: entry points by their plain name, the way a
 * statically linked runtime (CuPy's) and cuda-python look up every driver function after
 * taking this one from dlsym. A table, not dlsym, so a preloaded library's dlsym never
 * answers for the driver.
 */
#include <stdint.h>
#include <string.h>

#include "cuda.h"

#define CU_API __attribute__((visibility("default")))

static const struct {
	const char *name;
	void *pfn;
} entries[] = {
	{"cuInit", (void *)cuInit},
	{"cuDriverGetVersion", (void *)cuDriverGetVersion},
	{"cuDeviceGetCount", (void *)cuDeviceGetCount},
	{"cuDeviceGet", (void *)cuDeviceGet},
	{"cuDevicePrimaryCtxRetain", (void *)cuDevicePrimaryCtxRetain},
	{"cuDevicePrimaryCtxRelease", (void *)cuDevicePrimaryCtxRelease_v2},
	{"cuCtxSetCurrent", (void *)cuCtxSetCurrent},
	{"cuCtxSynchronize", (void *)cuCtxSynchronize},
	{"cuGetErrorName", (void *)cuGetErrorName},
	{"cuMemAlloc", (void *)cuMemAlloc_v2},
	{"cuMemAllocHost", (void *)cuMemAllocHost_v2},
	{"cuMemHostAlloc", (void *)cuMemHostAlloc},
	{"cuMemAllocManaged", (void *)cuMemAllocManaged},
	{"cuMemFree", (void *)cuMemFree_v2},
	{"cuMemFreeHost", (void *)cuMemFreeHost},
	{"cuMemcpyHtoD", (void *)cuMemcpyHtoD_v2},
	{"cuMemcpyDtoH", (void *)cuMemcpyDtoH_v2},
	{"cuMemcpyDtoD", (void *)cuMemcpyDtoD_v2},
	{"cuMemcpyHtoDAsync", (void *)cuMemcpyHtoDAsync_v2},
	{"cuMemcpyDtoHAsync", (void *)cuMemcpyDtoHAsync_v2},
	{"cuMemcpyDtoDAsync", (void *)cuMemcpyDtoDAsync_v2},
	{"cuStreamCreate", (void *)cuStreamCreate},
	{"cuStreamDestroy", (void *)cuStreamDestroy_v2},
	{"cuStreamSynchronize", (void *)cuStreamSynchronize},
	{"cuLaunchKernel", (void *)cuLaunchKernel},
};

/* CUDA 12 gave cuGetProcAddress its status argument: asked for itself, the driver answers
 * with the form the caller's version knows. */
static void *lookup(const char *symbol, int cuda_version)
{
	if (!strcmp(symbol, "cuGetProcAddress"))
		return cuda_version >= 12000 ? (void *)cuGetProcAddress_v2 : (void *)cuGetProcAddress;
	for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++)
		if (!strcmp(symbol, entries[i].name))
			return entries[i].pfn;
	return NULL;
}

CU_API CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cuda_version, cuuint64_t flags,
				    CUdriverProcAddressQueryResult *status)
{
	if (!symbol || !pfn || flags > (CU_GET_PROC_ADDRESS_LEGACY_STREAM | CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM))
		return CUDA_ERROR_INVALID_VALUE;
	*pfn = lookup(symbol, cuda_version);
	if (status)
		*status = *pfn ? CU_GET_PROC_ADDRESS_SUCCESS : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	return *pfn ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

CU_API CUresult cuGetProcAddress(const char *symbol, void **pfn, int cuda_version, cuuint64_t flags)
{
	return cuGetProcAddress_v2(symbol, pfn, cuda_version, flags, NULL);
}
