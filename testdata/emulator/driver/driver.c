/*
 * libcuda.so.1 for Echo's emulator: the CUDA driver API on the runtime emulator's device.
 *
 * Every call works on libcudart.so.12's state through its private entry points (private.h),
 * never through the runtime's public functions, so a traced driver call never contains a
 * runtime call. The driver must be initialised (cuInit) and a context made current before
 * memory calls, as on a real machine; there is one device and its primary context, current
 * for the whole process once set.
 */
#include <stdbool.h>
#include <stdint.h>

#include "cuda.h"
#include "private.h"

#define CU_API __attribute__((visibility("default")))

/* Set by cuInit and cuCtxSetCurrent, read by every call on any thread. */
static bool initialized;
static struct CUctx_st {
	int retained;
} primary;
static CUcontext current;

static CUresult from_runtime(cudaError_t err)
{
	switch (err) {
	case cudaSuccess:
		return CUDA_SUCCESS;
	case cudaErrorInvalidValue:
	case cudaErrorInvalidDevicePointer:
	case cudaErrorInvalidMemcpyDirection:
	case cudaErrorInvalidConfiguration:
		return CUDA_ERROR_INVALID_VALUE;
	case cudaErrorInvalidDeviceFunction:
		return CUDA_ERROR_INVALID_HANDLE;
	case cudaErrorMemoryAllocation:
		return CUDA_ERROR_OUT_OF_MEMORY;
	case cudaErrorNoDevice:
		return CUDA_ERROR_NO_DEVICE;
	case cudaErrorInvalidResourceHandle:
		return CUDA_ERROR_INVALID_HANDLE;
	default:
		return CUDA_ERROR_UNKNOWN;
	}
}

/* The prologue of every call but cuInit and the queries: initialised, with a device. */
static CUresult ready(void)
{
	if (!__atomic_load_n(&initialized, __ATOMIC_ACQUIRE))
		return CUDA_ERROR_NOT_INITIALIZED;
	return from_runtime(emu_drv_ready());
}

/* The prologue of calls that answer through a pointer: ready, and somewhere to write. */
static CUresult ready_to_answer(const void *out)
{
	CUresult r = ready();
	return r == CUDA_SUCCESS && !out ? CUDA_ERROR_INVALID_VALUE : r;
}

/* The prologue of the primary context's calls: ready, and device 0, the only one with one. */
static CUresult on_primary_device(CUresult r, CUdevice dev)
{
	return r == CUDA_SUCCESS && dev != 0 ? CUDA_ERROR_INVALID_DEVICE : r;
}

/* The prologue of calls that need a current context. */
static CUresult in_context(void)
{
	CUresult r = ready();
	if (r == CUDA_SUCCESS && !__atomic_load_n(&current, __ATOMIC_ACQUIRE))
		r = CUDA_ERROR_INVALID_CONTEXT;
	return r;
}

CU_API CUresult cuInit(unsigned int flags)
{
	if (flags != 0)
		return CUDA_ERROR_INVALID_VALUE;
	CUresult r = from_runtime(emu_drv_ready());
	__atomic_store_n(&initialized, r == CUDA_SUCCESS, __ATOMIC_RELEASE);
	return r;
}

CU_API CUresult cuDriverGetVersion(int *version)
{
	if (!version)
		return CUDA_ERROR_INVALID_VALUE;
	*version = emu_drv_version();
	return CUDA_SUCCESS;
}

CU_API CUresult cuDeviceGetCount(int *count)
{
	if (!__atomic_load_n(&initialized, __ATOMIC_ACQUIRE))
		return CUDA_ERROR_NOT_INITIALIZED;
	if (!count)
		return CUDA_ERROR_INVALID_VALUE;
	*count = emu_drv_device_count();
	return CUDA_SUCCESS;
}

CU_API CUresult cuDeviceGet(CUdevice *device, int ordinal)
{
	CUresult r = ready_to_answer(device);
	if (r != CUDA_SUCCESS)
		return r;
	if (ordinal < 0 || ordinal >= emu_drv_device_count())
		return CUDA_ERROR_INVALID_DEVICE;
	*device = ordinal;
	return CUDA_SUCCESS;
}

CU_API CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev)
{
	CUresult r = on_primary_device(ready_to_answer(ctx), dev);
	if (r != CUDA_SUCCESS)
		return r;
	__atomic_add_fetch(&primary.retained, 1, __ATOMIC_RELAXED);
	*ctx = &primary;
	return CUDA_SUCCESS;
}

CU_API CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
	CUresult r = on_primary_device(ready(), dev);
	if (r != CUDA_SUCCESS)
		return r;
	if (__atomic_load_n(&primary.retained, __ATOMIC_RELAXED) <= 0)
		return CUDA_ERROR_INVALID_CONTEXT;
	__atomic_sub_fetch(&primary.retained, 1, __ATOMIC_RELAXED);
	return CUDA_SUCCESS;
}

CU_API CUresult cuCtxSetCurrent(CUcontext ctx)
{
	CUresult r = ready();
	if (r != CUDA_SUCCESS)
		return r;
	if (ctx && ctx != &primary)
		return CUDA_ERROR_INVALID_CONTEXT;
	__atomic_store_n(&current, ctx, __ATOMIC_RELEASE);
	return CUDA_SUCCESS;
}

CU_API CUresult cuCtxSynchronize(void)
{
	CUresult r = in_context();
	return r != CUDA_SUCCESS ? r : from_runtime(emu_drv_device_sync());
}

CU_API CUresult cuGetErrorName(CUresult error, const char **name)
{
	if (!name)
		return CUDA_ERROR_INVALID_VALUE;
	switch (error) {
	case CUDA_SUCCESS: *name = "CUDA_SUCCESS"; break;
	case CUDA_ERROR_INVALID_VALUE: *name = "CUDA_ERROR_INVALID_VALUE"; break;
	case CUDA_ERROR_OUT_OF_MEMORY: *name = "CUDA_ERROR_OUT_OF_MEMORY"; break;
	case CUDA_ERROR_NOT_INITIALIZED: *name = "CUDA_ERROR_NOT_INITIALIZED"; break;
	case CUDA_ERROR_NO_DEVICE: *name = "CUDA_ERROR_NO_DEVICE"; break;
	case CUDA_ERROR_INVALID_DEVICE: *name = "CUDA_ERROR_INVALID_DEVICE"; break;
	case CUDA_ERROR_INVALID_CONTEXT: *name = "CUDA_ERROR_INVALID_CONTEXT"; break;
	case CUDA_ERROR_INVALID_HANDLE: *name = "CUDA_ERROR_INVALID_HANDLE"; break;
	case CUDA_ERROR_NOT_FOUND: *name = "CUDA_ERROR_NOT_FOUND"; break;
	case CUDA_ERROR_NOT_READY: *name = "CUDA_ERROR_NOT_READY"; break;
	case CUDA_ERROR_UNKNOWN: *name = "CUDA_ERROR_UNKNOWN"; break;
	default: *name = NULL; return CUDA_ERROR_INVALID_VALUE;
	}
	return CUDA_SUCCESS;
}

static CUresult alloc(void **out, size_t bytes, enum emu_drv_mem kind)
{
	CUresult r = in_context();
	if (r != CUDA_SUCCESS)
		return r;
	if (!out || bytes == 0)
		return CUDA_ERROR_INVALID_VALUE;
	return from_runtime(emu_drv_alloc(out, bytes, kind));
}

CU_API CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytes)
{
	return alloc((void **)dptr, bytes, EMU_DRV_DEVICE);
}

CU_API CUresult cuMemAllocHost_v2(void **pp, size_t bytes)
{
	return alloc(pp, bytes, EMU_DRV_PINNED);
}

CU_API CUresult cuMemHostAlloc(void **pp, size_t bytes, unsigned int flags)
{
	if (flags & ~(unsigned)(CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_WRITECOMBINED))
		return CUDA_ERROR_INVALID_VALUE;
	return alloc(pp, bytes, EMU_DRV_PINNED);
}

CU_API CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytes, unsigned int flags)
{
	if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST)
		return CUDA_ERROR_INVALID_VALUE;
	return alloc((void **)dptr, bytes, EMU_DRV_MANAGED);
}

CU_API CUresult cuMemFree_v2(CUdeviceptr dptr)
{
	CUresult r = in_context();
	return r != CUDA_SUCCESS ? r : from_runtime(emu_drv_free((void *)(uintptr_t)dptr, EMU_DRV_DEVICE));
}

CU_API CUresult cuMemFreeHost(void *p)
{
	CUresult r = in_context();
	return r != CUDA_SUCCESS ? r : from_runtime(emu_drv_free(p, EMU_DRV_PINNED));
}

static CUresult copy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind, CUstream stream, bool async)
{
	CUresult r = in_context();
	return r != CUDA_SUCCESS ? r : from_runtime(emu_drv_copy(dst, src, bytes, kind, stream, async));
}

CU_API CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t bytes)
{
	return copy((void *)(uintptr_t)dst, src, bytes, cudaMemcpyHostToDevice, NULL, false);
}

CU_API CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes)
{
	return copy(dst, (const void *)(uintptr_t)src, bytes, cudaMemcpyDeviceToHost, NULL, false);
}

CU_API CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes)
{
	return copy((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, bytes, cudaMemcpyDeviceToDevice, NULL, false);
}

CU_API CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t bytes, CUstream stream)
{
	return copy((void *)(uintptr_t)dst, src, bytes, cudaMemcpyHostToDevice, stream, true);
}

CU_API CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t bytes, CUstream stream)
{
	return copy(dst, (const void *)(uintptr_t)src, bytes, cudaMemcpyDeviceToHost, stream, true);
}

CU_API CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream)
{
	return copy((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, bytes, cudaMemcpyDeviceToDevice, stream, true);
}

/* The runtime's cudaStream_t is the driver's CUstream (struct CUstream_st *), so a stream
 * made here serves cudaLaunchKernel and cudaMemcpyAsync too, as on a real machine. */
CU_API CUresult cuStreamCreate(CUstream *stream, unsigned int flags)
{
	CUresult r = in_context();
	if (r != CUDA_SUCCESS)
		return r;
	if (!stream || flags & ~(unsigned)CU_STREAM_NON_BLOCKING)
		return CUDA_ERROR_INVALID_VALUE;
	return from_runtime(emu_drv_stream_create(stream, flags));
}

CU_API CUresult cuStreamDestroy_v2(CUstream stream)
{
	CUresult r = in_context();
	return r != CUDA_SUCCESS ? r : from_runtime(emu_drv_stream_destroy(stream));
}

CU_API CUresult cuStreamSynchronize(CUstream stream)
{
	CUresult r = in_context();
	return r != CUDA_SUCCESS ? r : from_runtime(emu_drv_stream_sync(stream));
}

/* extra (packed arguments) is not emulated: kernelParams only. */
CU_API CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
			       unsigned int by, unsigned int bz, unsigned int shared, CUstream stream, void **params,
			       void **extra)
{
	(void)shared;
	CUresult r = in_context();
	if (r != CUDA_SUCCESS)
		return r;
	if (!f || extra)
		return CUDA_ERROR_INVALID_VALUE;
	return from_runtime(emu_drv_launch((const void *)f, (dim3){gx, gy, gz}, (dim3){bx, by, bz}, params, stream));
}
