/*
 * The per-thread default stream's entry points: a program built with --default-stream
 * per-thread calls cudaMemcpy_ptds, cudaLaunchKernel_ptsz and kin instead of the plain ones
 * (the trace records them as the plain calls). Each does what the plain hook does, with its
 * stream read as the runtime reads it there: 0 is the calling thread's default stream
 * (cudaStreamPerThread), not the legacy one.
 */
#include <dlfcn.h>

#include "shim.h"

#define RET __builtin_extract_return_addr(__builtin_return_address(0))

/* The runtime's entry point name, looked up once into *slot. */
static void *twin(const char *name, void **slot)
{
	void *f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	if (!f) {
		f = shim_real_dlsym(RTLD_NEXT, name);
		if (!f)
			f = shim_runtime_symbol(name);
		__atomic_store_n(slot, f, __ATOMIC_RELEASE);
	}
	return f;
}

#define TWIN(name) ({                         \
	static void *slot_;                   \
	(__typeof__(&name))twin(#name, &slot_); \
})

/* What stream means to a per-thread twin. */
static cudaStream_t per_thread(cudaStream_t stream)
{
	return stream ? stream : cudaStreamPerThread;
}

SHIM_API cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind)
{
	shim_resolve();
	return shim_copy(RET, TWIN(cudaMemcpy_ptds), true, dst, src, n, kind);
}

SHIM_API cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind,
					  cudaStream_t stream)
{
	shim_resolve();
	return shim_async_copy(RET, TWIN(cudaMemcpyAsync_ptsz), dst, src, n, kind, stream, per_thread(stream));
}

/* Pitched copies are never linking copies; one on a pooled buffer must return as it did
 * from pageable memory. */
SHIM_API cudaError_t cudaMemcpy2D_ptds(void *dst, size_t dp, const void *src, size_t sp, size_t w, size_t h,
				       enum cudaMemcpyKind kind)
{
	__typeof__(&cudaMemcpy2D_ptds) f = TWIN(cudaMemcpy2D_ptds);
	return SHIM_CALL(f, cudaErrorInitializationError, (dst, dp, src, sp, w, h, kind));
}

SHIM_API cudaError_t cudaMemcpy2DAsync_ptsz(void *dst, size_t dp, const void *src, size_t sp, size_t w, size_t h,
					    enum cudaMemcpyKind kind, cudaStream_t stream)
{
	shim_resolve();
	__typeof__(&cudaMemcpy2DAsync_ptsz) f = TWIN(cudaMemcpy2DAsync_ptsz);
	return shim_pinned_completes(SHIM_CALL(f, cudaErrorInitializationError, (dst, dp, src, sp, w, h, kind, stream)), dst,
				     src, per_thread(stream));
}

SHIM_API cudaError_t cudaMemset_ptds(void *dst, int value, size_t n)
{
	__typeof__(&cudaMemset_ptds) f = TWIN(cudaMemset_ptds);
	shim_device_work(cudaStreamPerThread);
	return SHIM_CALL(f, cudaErrorInitializationError, (dst, value, n));
}

SHIM_API cudaError_t cudaMemsetAsync_ptsz(void *dst, int value, size_t n, cudaStream_t stream)
{
	__typeof__(&cudaMemsetAsync_ptsz) f = TWIN(cudaMemsetAsync_ptsz);
	shim_device_work(per_thread(stream));
	return SHIM_CALL(f, cudaErrorInitializationError, (dst, value, n, stream));
}

SHIM_API cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 grid, dim3 block, void **args, size_t shmem,
					   cudaStream_t stream)
{
	__typeof__(&cudaLaunchKernel_ptsz) f = TWIN(cudaLaunchKernel_ptsz);
	shim_device_work(per_thread(stream));
	return SHIM_CALL(f, cudaErrorInitializationError, (func, grid, block, args, shmem, stream));
}

SHIM_API cudaError_t __cudaLaunchKernel_ptsz(const void *kernel, dim3 grid, dim3 block, void **args, size_t shmem,
					     cudaStream_t stream)
{
	__typeof__(&__cudaLaunchKernel_ptsz) f = TWIN(__cudaLaunchKernel_ptsz);
	shim_device_work(per_thread(stream));
	return SHIM_CALL(f, cudaErrorInitializationError, (kernel, grid, block, args, shmem, stream));
}

SHIM_API cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *func, dim3 grid, dim3 block, void **args,
						      size_t shmem, cudaStream_t stream)
{
	__typeof__(&cudaLaunchCooperativeKernel_ptsz) f = TWIN(cudaLaunchCooperativeKernel_ptsz);
	shim_device_work(per_thread(stream));
	return SHIM_CALL(f, cudaErrorInitializationError, (func, grid, block, args, shmem, stream));
}

SHIM_API cudaError_t cudaGraphLaunch_ptsz(void *graph_exec, cudaStream_t stream)
{
	__typeof__(&cudaGraphLaunch_ptsz) f = TWIN(cudaGraphLaunch_ptsz);
	shim_device_work(per_thread(stream));
	return SHIM_CALL(f, cudaErrorInitializationError, (graph_exec, stream));
}

SHIM_API cudaError_t cudaLaunchKernelExC_ptsz(const void *config, const void *func, void **args)
{
	__typeof__(&cudaLaunchKernelExC_ptsz) f = TWIN(cudaLaunchKernelExC_ptsz);
	shim_device_work(SHIM_ANY_STREAM);
	return SHIM_CALL(f, cudaErrorInitializationError, (config, func, args));
}

SHIM_API cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream)
{
	__typeof__(&cudaStreamSynchronize_ptsz) f = TWIN(cudaStreamSynchronize_ptsz);
	unsigned long since = shim_busy_now();
	return shim_synchronized(SHIM_CALL(f, cudaErrorInitializationError, (stream)), per_thread(stream), NULL, false, since);
}

SHIM_API cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream)
{
	__typeof__(&cudaEventRecord_ptsz) f = TWIN(cudaEventRecord_ptsz);
	SHIM_WATCH(shim_validate_event_record(event, per_thread(stream)));
	return SHIM_CALL(f, cudaErrorInitializationError, (event, stream));
}

SHIM_API cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
	__typeof__(&cudaStreamWaitEvent_ptsz) f = TWIN(cudaStreamWaitEvent_ptsz);
	SHIM_WATCH(shim_validate_wait_event(per_thread(stream), event));
	return SHIM_CALL(f, cudaErrorInitializationError, (stream, event, flags));
}

SHIM_API cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t stream, cudaHostFn_t fn, void *data)
{
	__typeof__(&cudaLaunchHostFunc_ptsz) f = TWIN(cudaLaunchHostFunc_ptsz);
	SHIM_WATCH(shim_validate_foreign());
	if (__builtin_expect(shim_resolving(), 0))
		shim_busy_host_fn(per_thread(stream));
	return SHIM_CALL(f, cudaErrorInitializationError, (stream, fn, data));
}

SHIM_API cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t stream, cudaStreamCallback_t fn, void *data,
						unsigned int flags)
{
	__typeof__(&cudaStreamAddCallback_ptsz) f = TWIN(cudaStreamAddCallback_ptsz);
	SHIM_WATCH(shim_validate_foreign());
	if (__builtin_expect(shim_resolving(), 0))
		shim_busy_host_fn(per_thread(stream));
	return SHIM_CALL(f, cudaErrorInitializationError, (stream, fn, data, flags));
}
