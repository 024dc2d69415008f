/*
 * The CUDA runtime calls a merge touches: the allocations and frees of both sides, and the
 * linking copies, which between the two halves of one merged buffer move no data but keep
 * their ordering effect.
 */
#include "shim.h"

#define RET __builtin_extract_return_addr(__builtin_return_address(0))

static void *planned(const void *ret, const char *call, size_t bytes, bool host_side)
{
	if (__builtin_expect(!shim_active() || !shim_size_planned(bytes), 1))
		return NULL;
	if (!shim_enter())
		return NULL;
	bool handled;
	void *p = shim_alloc(host_side, ret, call, bytes, &handled);
	shim_leave();
	return handled ? p : NULL;
}

/* fn is read only after the runtime has been resolved. */
static cudaError_t alloc(void **out, size_t n, void *merged, cudaError_t (**fn)(void **, size_t))
{
	if (merged) {
		*out = merged;
		return cudaSuccess;
	}
	shim_resolve();
	return *fn ? (*fn)(out, n) : cudaErrorInitializationError;
}

SHIM_API cudaError_t cudaMalloc(void **out, size_t n)
{
	return alloc(out, n, out ? planned(RET, "cudaMalloc", n, false) : NULL, &real.cudaMalloc);
}

SHIM_API cudaError_t cudaMallocHost(void **out, size_t n)
{
	return alloc(out, n, out ? planned(RET, "cudaMallocHost", n, true) : NULL, &real.cudaMallocHost);
}

SHIM_API cudaError_t cudaHostAlloc(void **out, size_t n, unsigned int flags)
{
	void *merged = out ? planned(RET, "cudaHostAlloc", n, true) : NULL;
	if (merged) {
		*out = merged;
		return cudaSuccess;
	}
	shim_resolve();
	return real.cudaHostAlloc ? real.cudaHostAlloc(out, n, flags) : cudaErrorInitializationError;
}

static bool release(void *p, bool host_side)
{
	if (__builtin_expect(!p || !shim_merged_pair(p), 1) || !shim_enter())
		return false;
	bool handled = shim_free(host_side, p);
	shim_leave();
	return handled;
}

SHIM_API cudaError_t cudaFree(void *p)
{
	if (release(p, false))
		return cudaSuccess;
	shim_resolve();
	return real.cudaFree ? real.cudaFree(p) : cudaErrorInitializationError;
}

SHIM_API cudaError_t cudaFreeHost(void *p)
{
	if (release(p, true))
		return cudaSuccess;
	shim_resolve();
	return real.cudaFreeHost ? real.cudaFreeHost(p) : cudaErrorInitializationError;
}

/* A whole-buffer copy from one half of a merged buffer to the other. */
static bool elided(void *dst, const void *src, size_t n)
{
	struct pair *p;
	return dst == src && (p = shim_merged_pair(dst)) != NULL && n == p->bytes;
}

SHIM_API cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind)
{
	shim_mark_copy(RET, "cudaMemcpy", n);
	shim_resolve();
	if (__builtin_expect(!elided(dst, src, n), 1))
		return real.cudaMemcpy(dst, src, n, kind);
	__atomic_add_fetch(&shim_count.copies_elided, 1, __ATOMIC_RELAXED);
	/* The synchronous copy was also a wait for earlier GPU work (S2): keep the wait, with a
	 * device-wide synchronize, which orders at least as much. */
	return real.cudaDeviceSynchronize();
}

SHIM_API cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind,
				     cudaStream_t stream)
{
	shim_mark_copy(RET, "cudaMemcpyAsync", n);
	shim_resolve();
	if (__builtin_expect(!elided(dst, src, n), 1))
		return real.cudaMemcpyAsync(dst, src, n, kind, stream);
	/* In its stream the copy only stood between earlier and later work, which stay ordered. */
	__atomic_add_fetch(&shim_count.copies_elided, 1, __ATOMIC_RELAXED);
	return cudaSuccess;
}
