/*
 * The per-thread default stream's entry points (a program built with --default-stream
 * per-thread calls cudaMemcpy_ptds, cudaLaunchKernel_ptsz and kin instead of the plain
 * ones). The shim does not follow that stream yet: it neither elides these copies nor sees
 * these launches and waits, so its validation could not watch such a program. These hooks
 * only note the first one called (the report's per_thread, which makes validate and
 * calibrate refuse every pair) and go on to the runtime's.
 */
#include <dlfcn.h>

#include "shim.h"

const char *shim_per_thread; /* the first per-thread entry point the program called, or NULL */

static void *next(const char *name, void **slot)
{
	__atomic_store_n(&shim_per_thread, __atomic_load_n(&shim_per_thread, __ATOMIC_RELAXED) ?: name,
			 __ATOMIC_RELAXED);
	void *f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	if (!f) {
		f = shim_real_dlsym(RTLD_NEXT, name);
		if (!f)
			f = shim_runtime_symbol(name);
		__atomic_store_n(slot, f, __ATOMIC_RELEASE);
	}
	return f;
}

/* FORWARD(name, parameters, arguments): a hook that notes name and calls the runtime's. */
#define FORWARD(name, params, args)                                       \
	SHIM_API cudaError_t name params                                  \
	{                                                                 \
		static void *real_fn;                                     \
		cudaError_t(*f) params = next(#name, &real_fn);           \
		return f ? f args : cudaErrorInitializationError;         \
	}

FORWARD(cudaMemcpy_ptds, (void *dst, const void *src, size_t n, enum cudaMemcpyKind kind), (dst, src, n, kind))
FORWARD(cudaMemcpyAsync_ptsz, (void *dst, const void *src, size_t n, enum cudaMemcpyKind kind, cudaStream_t s),
	(dst, src, n, kind, s))
FORWARD(cudaMemcpy2D_ptds,
	(void *dst, size_t dp, const void *src, size_t sp, size_t w, size_t h, enum cudaMemcpyKind kind),
	(dst, dp, src, sp, w, h, kind))
FORWARD(cudaMemcpy2DAsync_ptsz,
	(void *dst, size_t dp, const void *src, size_t sp, size_t w, size_t h, enum cudaMemcpyKind kind,
	 cudaStream_t s),
	(dst, dp, src, sp, w, h, kind, s))
FORWARD(cudaMemset_ptds, (void *dst, int value, size_t n), (dst, value, n))
FORWARD(cudaMemsetAsync_ptsz, (void *dst, int value, size_t n, cudaStream_t s), (dst, value, n, s))
FORWARD(cudaLaunchKernel_ptsz,
	(const void *func, dim3 grid, dim3 block, void **args, size_t shmem, cudaStream_t s),
	(func, grid, block, args, shmem, s))
FORWARD(cudaStreamSynchronize_ptsz, (cudaStream_t s), (s))
FORWARD(cudaEventRecord_ptsz, (cudaEvent_t e, cudaStream_t s), (e, s))
FORWARD(cudaStreamWaitEvent_ptsz, (cudaStream_t s, cudaEvent_t e, unsigned int flags), (s, e, flags))
