/*
 * The CUDA runtime calls a merge touches: the allocations and frees of both sides, and the
 * linking copies, which bind a pair's two buffers at the first (bind.c) and then move no
 * data but keep their ordering effect.
 */
#include <string.h>

#include "shim.h"

#define RET __builtin_extract_return_addr(__builtin_return_address(0))

/*
 * A runtime allocation through fn (and its flags, for cudaHostAlloc): the shim's buffer when
 * it is a planned side in deploy mode; otherwise the runtime allocates, and in validate mode
 * the pointer is noted for the pair. Allocations and frees may synchronize the device, which
 * may order any later work after any earlier (validate mode's stream time).
 */
static cudaError_t alloc(const void *ret, const char *call, bool host_side, void **out, size_t n,
			 cudaError_t (*fn)(void **, size_t, unsigned int), unsigned int flags)
{
	SHIM_WATCH(shim_validate_barrier());
	struct pair *p = NULL;
	if (shim_active() && !shim_size_planned(n))
		shim_sighted(host_side, ret, n);
	else if (out && shim_active() && !shim_resolving() && !shim_pinning() && shim_enter()) {
		bool handled;
		void *mine = NULL;
		p = shim_alloc(host_side, false, ret, call, n, &mine, &handled);
		shim_leave();
		if (handled) {
			*out = mine;
			return cudaSuccess;
		}
	}
	shim_resolve();
	cudaError_t err = SHIM_CALL(fn, cudaErrorInitializationError, (out, n, flags));
	if (p && err == cudaSuccess)
		shim_allocated(p, host_side, *out);
	if (__builtin_expect(shim_resolving(), 0) && out && err == cudaSuccess)
		shim_resolve_alloc(host_side, ret, call, n, *out);
	return err;
}

static cudaError_t malloc2(void **out, size_t n, unsigned int flags)
{
	(void)flags;
	return REAL(cudaMalloc, (out, n));
}

static cudaError_t malloc_host2(void **out, size_t n, unsigned int flags)
{
	(void)flags;
	return REAL(cudaMallocHost, (out, n));
}

static cudaError_t host_alloc(void **out, size_t n, unsigned int flags)
{
	return REAL(cudaHostAlloc, (out, n, flags));
}

SHIM_API cudaError_t cudaMalloc(void **out, size_t n)
{
	return alloc(RET, "cudaMalloc", false, out, n, malloc2, 0);
}

SHIM_API cudaError_t cudaMallocHost(void **out, size_t n)
{
	return alloc(RET, "cudaMallocHost", true, out, n, malloc_host2, 0);
}

SHIM_API cudaError_t cudaHostAlloc(void **out, size_t n, unsigned int flags)
{
	return alloc(RET, "cudaHostAlloc", true, out, n, host_alloc, flags);
}

/* A runtime free: a barrier to validate mode, noted by resolve mode, and where p is a buffer
 * of the shim's, released by it (true: the runtime has nothing to free). */
static bool released(bool host_side, void *p)
{
	SHIM_WATCH(shim_validate_barrier());
	if (__builtin_expect(shim_resolving(), 0))
		shim_resolve_free(p);
	if (shim_release(host_side, p))
		return true;
	shim_resolve();
	return false;
}

SHIM_API cudaError_t cudaFree(void *p)
{
	return released(false, p) ? cudaSuccess : REAL(cudaFree, (p));
}

SHIM_API cudaError_t cudaFreeHost(void *p)
{
	return released(true, p) ? cudaSuccess : REAL(cudaFreeHost, (p));
}

/* The program page-locks a buffer the pinned strategy already serves from page-locked memory
 * (a registration the trace never saw): it is, so the call succeeds, as it would have on the
 * pageable buffer, and unregistering it leaves it in its pool. */
SHIM_API cudaError_t cudaHostRegister(void *p, size_t n, unsigned int flags)
{
	shim_resolve();
	if (__builtin_expect(shim_pinned_holds(p), 0))
		return cudaSuccess;
	shim_host_registered(p, n);
	return REAL(cudaHostRegister, (p, n, flags));
}

SHIM_API cudaError_t cudaHostUnregister(void *p)
{
	shim_resolve();
	if (__builtin_expect(shim_pinned_holds(p), 0))
		return cudaSuccess;
	return REAL(cudaHostUnregister, (p));
}

/* An asynchronous copy from or to a buffer the pinned strategy serves: it returns, as the
 * copy from pageable memory did, once its host side is read or written (pinned.c). */
cudaError_t shim_pinned_completes(cudaError_t err, const void *dst, const void *src, cudaStream_t stream)
{
	if (__builtin_expect(err != cudaSuccess || !(shim_pinned_holds(dst) || shim_pinned_holds(src)), 1))
		return err;
	__atomic_add_fetch(&shim_pinned_count.syncs, 1, __ATOMIC_RELAXED);
	return REAL(cudaStreamSynchronize, (stream));
}

/* Whether the pair's host side was pageable as written: allocated by the C library, not by
 * CUDA (a buffer the program registered itself counts as pageable here: the safe side). */
static bool pageable_host(const struct pair *p)
{
	return strncmp(p->host.call, "cu", 2) != 0;
}

/* What memory ptr is now, as the runtime sees it: the first field of cudaPointerAttributes,
 * in room enough for any CUDA version's struct; -1 when the runtime cannot say. */
int shim_memory_type(const void *ptr)
{
	union {
		struct cudaPointerAttributes attr;
		char room[256];
	} u;
	memset(&u, 0, sizeof u);
	if (!real.cudaPointerGetAttributes || REAL(cudaPointerGetAttributes, (&u.attr, ptr)) != cudaSuccess)
		return -1;
	return (int)u.attr.type;
}

static bool pageable_now(const void *ptr)
{
	return shim_memory_type(ptr) == cudaMemoryTypeUnregistered;
}

/* Validate mode: the copy runs as written, and opens or closes the windows it affects. It is
 * an operation on stream `on` (the legacy stream, whose barrier streams.c adds, or the
 * calling thread's default stream) that the host waits for. */
static cudaError_t watched_copy(shim_copy_fn real_fn, cudaStream_t on, void *dst, const void *src, size_t n,
				enum cudaMemcpyKind kind)
{
	if (!shim_enter())
		return SHIM_CALL(real_fn, cudaErrorInitializationError, (dst, src, n, kind));
	if (kind == cudaMemcpyDeviceToDevice)
		shim_validate_launch(on); /* device work, like a kernel: it reads inputs, writes outputs */
	shim_validate_before_copy(dst, n);
	struct shim_clock done;
	struct shim_stamp at = shim_validate_copy_issue(on, &done);
	cudaError_t err = SHIM_CALL(real_fn, cudaErrorInitializationError, (dst, src, n, kind));
	if (err == cudaSuccess)
		shim_validate_copy_done(dst, src, n, at, kind == cudaMemcpyDeviceToDevice ? NULL : &done);
	shim_leave();
	return err;
}

/* The same for an asynchronous copy: made with stream, on the stream it means (on). */
static cudaError_t watched_async_copy(shim_async_copy_fn real_fn, void *dst, const void *src, size_t n,
				      enum cudaMemcpyKind kind, cudaStream_t stream, cudaStream_t on)
{
	if (!shim_enter())
		return SHIM_CALL(real_fn, cudaErrorInitializationError, (dst, src, n, kind, stream));
	if (kind == cudaMemcpyDeviceToDevice)
		shim_validate_launch(on);
	/* To pageable memory an asynchronous copy returns only once done, which also waited
	 * for its stream's earlier work: a synchronous copy on that stream. */
	bool completes = kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice && pageable_now(dst);
	shim_validate_before_copy(dst, n);
	cudaError_t err = SHIM_CALL(real_fn, cudaErrorInitializationError, (dst, src, n, kind, stream));
	if (err == cudaSuccess)
		shim_validate_async_copy(dst, src, n, on, completes);
	shim_leave();
	return err;
}

/* Resolve mode: whether a linking copy is timed alone, and if so the device drained first
 * (resolve.c says why it may be). Before an asynchronous copy the drain's wait goes to the
 * report: the program's own iteration does not wait there (a synchronous copy does). */
static bool drained(bool linking, bool async)
{
	if (!linking || !shim_busy_drainable() || !real.cudaDeviceSynchronize || !real.cudaStreamSynchronize)
		return false;
	unsigned long upto = shim_busy_now();
	uint64_t t0 = shim_uptime_ns();
	if (REAL(cudaDeviceSynchronize, ()) != cudaSuccess)
		return false;
	uint64_t ns = async ? shim_uptime_ns() - t0 : 0;
	shim_busy_drained(upto, ns);
	if (async)
		shim_report_drained(ns);
	return true;
}

/* Resolve mode: a synchronous copy, noted (resolve.c), timed alone where it links a pair, and
 * once it returned, a wait for its stream's earlier work (busy.c). */
static cudaError_t resolved_copy(const void *ret, shim_copy_fn real_fn, cudaStream_t on, void *dst, const void *src,
				 size_t n, enum cudaMemcpyKind kind)
{
	struct site linked;
	bool timed = drained(shim_resolve_copy(ret, "cudaMemcpy", dst, src, n, &linked), false);
	unsigned long issued = shim_busy_copy(on);
	uint64_t t0 = shim_uptime_ns();
	cudaError_t err = SHIM_CALL(real_fn, cudaErrorInitializationError, (dst, src, n, kind));
	if (err == cudaSuccess)
		shim_busy_waited(on, false, issued);
	if (timed && err == cudaSuccess)
		shim_resolve_timed(&linked, shim_uptime_ns() - t0);
	return err;
}

/* Resolve mode: an asynchronous copy, noted, and timed alone where it links a pair: the
 * device drained before it and its stream waited for after it. */
static cudaError_t resolved_async_copy(const void *ret, shim_async_copy_fn real_fn, void *dst, const void *src,
				       size_t n, enum cudaMemcpyKind kind, cudaStream_t stream, cudaStream_t on)
{
	struct site linked;
	bool timed = drained(shim_resolve_copy(ret, "cudaMemcpyAsync", dst, src, n, &linked), true);
	unsigned long issued = shim_busy_copy(on);
	uint64_t t0 = shim_uptime_ns();
	cudaError_t err = SHIM_CALL(real_fn, cudaErrorInitializationError, (dst, src, n, kind, stream));
	if (timed && err == cudaSuccess && REAL(cudaStreamSynchronize, (on)) == cudaSuccess) {
		shim_resolve_timed(&linked, shim_uptime_ns() - t0);
		shim_busy_settled(on, issued);
	}
	return err;
}

/* A synchronous copy made by the program at ret, through real_fn (cudaMemcpy, or its
 * per-thread default stream twin). */
cudaError_t shim_copy(const void *ret, shim_copy_fn real_fn, bool per_thread, void *dst, const void *src, size_t n,
		      enum cudaMemcpyKind kind)
{
	shim_mark_copy(ret, "cudaMemcpy", n);
	if (!real_fn)
		return cudaErrorInitializationError;
	cudaStream_t on = per_thread ? cudaStreamPerThread : cudaStreamLegacy;
	if (__builtin_expect(shim_resolving(), 0))
		return resolved_copy(ret, real_fn, on, dst, src, n, kind);
	if (__builtin_expect(shim_validating(), 0))
		return watched_copy(real_fn, on, dst, src, n, kind);
	shim_pinned_copied(dst, src);
	if (__builtin_expect(!shim_linking_copy(ret, dst, src, n, on), 1))
		return SHIM_CALL(real_fn, cudaErrorInitializationError, (dst, src, n, kind));
	__atomic_add_fetch(&shim_count.copies_elided, 1, __ATOMIC_RELAXED);
	/* The synchronous copy was also a wait for earlier GPU work (S2): keep exactly that wait. */
	return shim_wait_as_copy(on);
}

/* An asynchronous copy made at ret with stream, which means on (the calling thread's
 * default stream for a per-thread twin's 0). */
cudaError_t shim_async_copy(const void *ret, shim_async_copy_fn real_fn, void *dst, const void *src, size_t n,
			    enum cudaMemcpyKind kind, cudaStream_t stream, cudaStream_t on)
{
	shim_mark_copy(ret, "cudaMemcpyAsync", n);
	if (!real_fn)
		return cudaErrorInitializationError;
	if (__builtin_expect(shim_resolving(), 0))
		return resolved_async_copy(ret, real_fn, dst, src, n, kind, stream, on);
	if (__builtin_expect(shim_validating(), 0))
		return watched_async_copy(real_fn, dst, src, n, kind, stream, on);
	shim_pinned_copied(dst, src);
	struct pair *p = shim_linking_copy(ret, dst, src, n, on);
	if (__builtin_expect(!p, 1))
		return shim_pinned_completes(SHIM_CALL(real_fn, cudaErrorInitializationError, (dst, src, n, kind, stream)),
					     dst, src, on);
	__atomic_add_fetch(&shim_count.copies_elided, 1, __ATOMIC_RELAXED);
	/* In its stream the copy only stood between earlier and later work, which stay ordered;
	 * but to pageable memory it returned only once done, a wait for that work the host may
	 * rely on: keep it. */
	if (kind != cudaMemcpyHostToDevice && pageable_host(p))
		return shim_wait_as_copy(on);
	return cudaSuccess;
}

SHIM_API cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind)
{
	shim_resolve();
	return shim_copy(RET, real.cudaMemcpy, false, dst, src, n, kind);
}

SHIM_API cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind,
				     cudaStream_t stream)
{
	shim_resolve();
	return shim_async_copy(RET, real.cudaMemcpyAsync, dst, src, n, kind, stream, stream);
}

/* A pitched copy is never a linking copy, but one on a pooled buffer must return as it did
 * from pageable memory too. */
SHIM_API cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
				       size_t height, enum cudaMemcpyKind kind, cudaStream_t stream)
{
	shim_resolve();
	if (!real.cudaMemcpy2DAsync)
		return cudaErrorInitializationError;
	return shim_pinned_completes(REAL(cudaMemcpy2DAsync, (dst, dpitch, src, spitch, width, height, kind, stream)), dst,
				     src, stream);
}

/* Launches, device memsets and synchronizations open and close validate mode's windows, and
 * are the work resolve mode's copies may wait for (busy.c).
 * Work on an unknown stream counts on SHIM_ANY_STREAM, which only a device synchronize
 * covers. */
void shim_device_work(cudaStream_t stream)
{
	SHIM_WATCH(shim_validate_launch(stream));
	if (__builtin_expect(shim_resolving(), 0))
		shim_busy_launch(stream);
}

SHIM_API cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args, size_t shmem,
				      cudaStream_t stream)
{
	shim_resolve();
	shim_device_work(stream);
	return REAL(cudaLaunchKernel, (func, grid, block, args, shmem, stream));
}

/* The launch nvcc 13 compiles <<<>>> into: the stub asks __cudaGetKernel for the kernel's
 * handle once and launches it here, never through cudaLaunchKernel. */
SHIM_API cudaError_t __cudaLaunchKernel(const void *kernel, dim3 grid, dim3 block, void **args, size_t shmem,
					cudaStream_t stream)
{
	shim_resolve();
	shim_device_work(stream);
	return REAL(__cudaLaunchKernel, (kernel, grid, block, args, shmem, stream));
}

/* The launches the runtime makes by other entry points: a cooperative launch, a graph (its
 * kernels and copies, as device work on its stream), and cudaLaunchKernelEx, whose stream
 * sits in a configuration struct whose layout this file does not assume. */
SHIM_API cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 grid, dim3 block, void **args, size_t shmem,
						 cudaStream_t stream)
{
	shim_resolve();
	shim_device_work(stream);
	return REAL(cudaLaunchCooperativeKernel, (func, grid, block, args, shmem, stream));
}

SHIM_API cudaError_t cudaGraphLaunch(void *graph_exec, cudaStream_t stream)
{
	shim_resolve();
	shim_device_work(stream);
	return REAL(cudaGraphLaunch, (graph_exec, stream));
}

SHIM_API cudaError_t cudaLaunchKernelExC(const void *config, const void *func, void **args)
{
	shim_resolve();
	shim_device_work(SHIM_ANY_STREAM);
	return REAL(cudaLaunchKernelExC, (config, func, args));
}

/* A memset writes device memory as a kernel does: merged, an output's host buffer holds its
 * values until the copy that brought the results, so the host must keep out from here. */
SHIM_API cudaError_t cudaMemset(void *dst, int value, size_t n)
{
	shim_resolve();
	shim_device_work(NULL);
	SHIM_WATCH(shim_validate_barrier());
	return REAL(cudaMemset, (dst, value, n));
}

SHIM_API cudaError_t cudaMemsetAsync(void *dst, int value, size_t n, cudaStream_t stream)
{
	shim_resolve();
	shim_device_work(stream);
	return REAL(cudaMemsetAsync, (dst, value, n, stream));
}
