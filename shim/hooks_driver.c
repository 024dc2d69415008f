/*
 * The driver's allocations and copies, for programs that call the driver API themselves
 * (CuPy, Numba, JAX, ctypes): resolve mode notes them like the runtime's, and the pinned
 * strategy keeps an asynchronous copy's completion where its host side is a pool buffer.
 * The shared runtime reaches the driver through its own table of entry points, never
 * through these; a runtime linked statically into a program's module is the program's.
 */
#include <dlfcn.h>
#include <string.h>

#include "shim.h"

#define RET __builtin_extract_return_addr(__builtin_return_address(0))

/* The result of a driver call that could not be made: the driver is not loaded. */
#define MISSING CUDA_ERROR_NOT_INITIALIZED

/* The entry points cuGetProcAddress gave for the functions whose hooks it handed out in
 * their place: what those hooks call. The exported symbols otherwise. */
static struct real_driver via_proc;
#define D(name) (__atomic_load_n(&via_proc.name, __ATOMIC_ACQUIRE) ? via_proc.name : real_driver.name)
/* A driver function of struct real_driver, through the guarded call (shim.h). */
#define DRIVER(name, args) DRIVER_CALL(D(name), args)

SHIM_API CUresult cuMemAlloc_v2(CUdeviceptr *out, size_t n)
{
	shim_resolve_driver();
	CUresult r = DRIVER(cuMemAlloc_v2, (out, n));
	if (__builtin_expect(shim_resolving(), 0) && r == CUDA_SUCCESS)
		shim_resolve_alloc(false, RET, "cuMemAlloc_v2", n, (void *)(uintptr_t)*out);
	return r;
}

SHIM_API CUresult cuMemFree_v2(CUdeviceptr p)
{
	shim_resolve_driver();
	if (__builtin_expect(shim_resolving(), 0))
		shim_resolve_free((void *)(uintptr_t)p);
	return DRIVER(cuMemFree_v2, (p));
}

/* err, or once a copy whose host side is a pool buffer is done, the wait's result. */
static CUresult completes(CUresult err, const void *host, CUstream stream)
{
	if (__builtin_expect(err != CUDA_SUCCESS || !shim_pinned_holds(host), 1))
		return err;
	__atomic_add_fetch(&shim_pinned_count.syncs, 1, __ATOMIC_RELAXED);
	return DRIVER(cuStreamSynchronize, (stream));
}

/* Resolve mode's part in a driver copy on stream (sync: a synchronous one, on the legacy
 * stream): noting it (resolve.c, busy.c), and timing a linking copy alone, the device
 * drained before it and an asynchronous one waited for after it. */
struct resolving {
	bool on, timed;
	unsigned long issued;
	uint64_t t0;
	struct site linked;
};

static struct resolving resolve_before(const void *ret, const char *call, const void *dst, const void *src, size_t n,
				       CUstream stream, bool sync)
{
	struct resolving r = {0};
	if (__builtin_expect(!shim_resolving(), 1))
		return r;
	r.on = true;
	r.timed = shim_resolve_copy(ret, call, dst, src, n, &r.linked) && shim_busy_drainable() && D(cuCtxSynchronize) &&
		  D(cuStreamSynchronize);
	if (r.timed) {
		unsigned long upto = shim_busy_now();
		uint64_t t0 = shim_uptime_ns();
		r.timed = DRIVER(cuCtxSynchronize, ()) == CUDA_SUCCESS;
		uint64_t ns = r.timed && !sync ? shim_uptime_ns() - t0 : 0; /* a synchronous copy waits for that work itself */
		if (r.timed)
			shim_busy_drained(upto, ns);
		if (r.timed && !sync)
			shim_report_drained(ns);
	}
	r.issued = shim_busy_copy((cudaStream_t)stream);
	r.t0 = shim_uptime_ns();
	return r;
}

static CUresult resolve_after(const struct resolving *r, CUresult err, CUstream stream, bool sync)
{
	if (!r->on || err != CUDA_SUCCESS)
		return err;
	if (sync)
		shim_busy_waited(NULL, false, r->issued);
	if (r->timed && (sync || DRIVER(cuStreamSynchronize, (stream)) == CUDA_SUCCESS)) {
		shim_resolve_timed(&r->linked, shim_uptime_ns() - r->t0);
		shim_busy_settled((cudaStream_t)stream, r->issued);
	}
	return err;
}

SHIM_API CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n)
{
	shim_mark_copy(RET, "cuMemcpyHtoD_v2", n);
	shim_resolve_driver();
	shim_pinned_copied((const void *)(uintptr_t)dst, src);
	struct resolving r = resolve_before(RET, "cuMemcpyHtoD_v2", (const void *)(uintptr_t)dst, src, n, NULL, true);
	return resolve_after(&r, DRIVER(cuMemcpyHtoD_v2, (dst, src, n)), NULL, true);
}

SHIM_API CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n)
{
	shim_mark_copy(RET, "cuMemcpyDtoH_v2", n);
	shim_resolve_driver();
	shim_pinned_copied(dst, (const void *)(uintptr_t)src);
	struct resolving r = resolve_before(RET, "cuMemcpyDtoH_v2", dst, (const void *)(uintptr_t)src, n, NULL, true);
	return resolve_after(&r, DRIVER(cuMemcpyDtoH_v2, (dst, src, n)), NULL, true);
}

SHIM_API CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, CUstream stream)
{
	shim_mark_copy(RET, "cuMemcpyHtoDAsync_v2", n);
	shim_resolve_driver();
	shim_pinned_copied((const void *)(uintptr_t)dst, src);
	struct resolving r = resolve_before(RET, "cuMemcpyHtoDAsync_v2", (const void *)(uintptr_t)dst, src, n, stream, false);
	return resolve_after(&r, completes(DRIVER(cuMemcpyHtoDAsync_v2, (dst, src, n, stream)), src, stream), stream, false);
}

SHIM_API CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, CUstream stream)
{
	shim_mark_copy(RET, "cuMemcpyDtoHAsync_v2", n);
	shim_resolve_driver();
	shim_pinned_copied(dst, (const void *)(uintptr_t)src);
	struct resolving r = resolve_before(RET, "cuMemcpyDtoHAsync_v2", dst, (const void *)(uintptr_t)src, n, stream, false);
	return resolve_after(&r, completes(DRIVER(cuMemcpyDtoHAsync_v2, (dst, src, n, stream)), dst, stream), stream, false);
}

/* A launch through the driver (a library's own runtime, cuBLAS's or cuDNN's, or a
 * driver-API program): device work for validate mode, as a runtime launch is. */
SHIM_API CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
				 unsigned int by, unsigned int bz, unsigned int shared, CUstream stream, void **params,
				 void **extra)
{
	shim_resolve_driver();
	shim_device_work((cudaStream_t)stream);
	return DRIVER(cuLaunchKernel, (f, gx, gy, gz, bx, by, bz, shared, stream, params, extra));
}

/* Orderings made through the driver that validate mode does not follow (an event wait, work
 * on the host in stream order): from then on, every launch may follow every copy. */
SHIM_API CUresult cuStreamWaitEvent(CUstream stream, void *event, unsigned int flags)
{
	shim_resolve_driver();
	SHIM_WATCH(shim_validate_foreign());
	return DRIVER(cuStreamWaitEvent, (stream, event, flags));
}

SHIM_API CUresult cuLaunchHostFunc(CUstream stream, void (*fn)(void *), void *data)
{
	shim_resolve_driver();
	SHIM_WATCH(shim_validate_foreign());
	if (__builtin_expect(shim_resolving(), 0))
		shim_busy_host_fn((cudaStream_t)stream);
	return DRIVER(cuLaunchHostFunc, (stream, fn, data));
}

SHIM_API CUresult cuStreamAddCallback(CUstream stream, void (*fn)(CUstream, CUresult, void *), void *data,
				      unsigned int flags)
{
	shim_resolve_driver();
	SHIM_WATCH(shim_validate_foreign());
	if (__builtin_expect(shim_resolving(), 0))
		shim_busy_host_fn((cudaStream_t)stream);
	return DRIVER(cuStreamAddCallback, (stream, fn, data, flags));
}

/*
 * Programs that take the driver's entry points from cuGetProcAddress (cuda-bindings, a
 * statically linked runtime) call them through pointers no preload interposes. Asked for a
 * copy or allocation the shim hooks, it hands out its hook instead, which forwards to the
 * entry point the driver gave; never for a per-thread-stream variant, never to the shared
 * runtime or the driver themselves, whose internal calls are not the program's, and never
 * for a second, different entry point under one name (one hook forwards to one).
 */
static const struct {
	const char *name;
	void *hook;
	void **forward; /* the slot in via_proc the hook calls */
} proc_hooks[] = {
#define SHIM_PROC_hook(name, symbol) {name, (void *)symbol, (void **)&via_proc.symbol},
#define SHIM_PROC_real(name, symbol) {name, NULL, (void **)&via_proc.symbol},
#define SHIM_PROC_proc(name, symbol)
#define CUDA_RUNTIME(role, name, version, twin, ret, params)
#define CUDA_DRIVER(role, name, version, ret, params) SHIM_PROC_##role(#name, name##version)
#include "api.def"
#undef CUDA_RUNTIME
#undef CUDA_DRIVER
#undef SHIM_PROC_hook
#undef SHIM_PROC_real
#undef SHIM_PROC_proc
};

/* CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM: the _ptsz/_ptds variants, left alone. */
#define PER_THREAD_STREAM (1u << 1)

/* Whether the call came from the CUDA runtime or driver library. */
static bool from_cuda(const void *ret)
{
	Dl_info info;
	if (!dladdr(ret, &info) || !info.dli_fname)
		return false;
	const char *slash = strrchr(info.dli_fname, '/');
	const char *base = slash ? slash + 1 : info.dli_fname;
	return !strncmp(base, "libcudart", 9) || !strncmp(base, "libcuda.so", 10);
}

/* A statically linked runtime (CuPy's) takes cuGetProcAddress_v2 from dlsym, asks it for
 * "cuGetProcAddress" and looks every other entry point up through the answer: the shim's
 * own hook for whichever of the two the driver gave (their arguments differ). */
static void *proc_address_hook(void *pfn)
{
	if (pfn == shim_real_driver_dlsym("cuGetProcAddress_v2"))
		return (void *)cuGetProcAddress_v2;
	if (pfn == shim_real_driver_dlsym("cuGetProcAddress"))
		return (void *)cuGetProcAddress;
	return pfn;
}

/* The hook to hand out for symbol instead of pfn, or pfn. A hook forwards to the first
 * entry point it stood in for; asked again with another (a caller that wants other
 * semantics), the shim hands out the driver's own. */
static void *hooked(const char *symbol, void *pfn, uint64_t flags, const void *ret)
{
	if (!symbol || !pfn || (flags & PER_THREAD_STREAM))
		return pfn;
	if (!strcmp(symbol, "cuGetProcAddress"))
		return from_cuda(ret) ? pfn : proc_address_hook(pfn);
	for (size_t i = 0; i < sizeof proc_hooks / sizeof proc_hooks[0]; i++) {
		if (strcmp(symbol, proc_hooks[i].name) != 0)
			continue;
		if (from_cuda(ret) || pfn == proc_hooks[i].hook) /* a hook forwarding to itself would never return */
			return pfn;
		void *expected = NULL;
		if (!__atomic_compare_exchange_n(proc_hooks[i].forward, &expected, pfn, false, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE) && expected != pfn)
			return pfn;
		shim_resolve_driver();
		return proc_hooks[i].hook ? proc_hooks[i].hook : pfn;
	}
	return pfn;
}

typedef CUresult (*get_proc_v2_fn)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);
typedef CUresult (*get_proc_fn)(const char *, void **, int, cuuint64_t);

SHIM_API CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, cuuint64_t flags,
				      CUdriverProcAddressQueryResult *status)
{
	static get_proc_v2_fn next;
	if (!next)
		next = (get_proc_v2_fn)shim_real_driver_dlsym("cuGetProcAddress_v2");
	if (!next)
		return CUDA_ERROR_NOT_INITIALIZED;
	CUresult r = DRIVER_CALL(next, (symbol, pfn, version, flags, status));
	if (r == CUDA_SUCCESS && pfn)
		*pfn = hooked(symbol, *pfn, flags, RET);
	return r;
}

SHIM_API CUresult cuGetProcAddress(const char *symbol, void **pfn, int version, cuuint64_t flags)
{
	static get_proc_fn next;
	if (!next)
		next = (get_proc_fn)shim_real_driver_dlsym("cuGetProcAddress");
	if (!next)
		return CUDA_ERROR_NOT_INITIALIZED;
	CUresult r = DRIVER_CALL(next, (symbol, pfn, version, flags));
	if (r == CUDA_SUCCESS && pfn)
		*pfn = hooked(symbol, *pfn, flags, RET);
	return r;
}
