/*
 * The pinned strategy: a planned host allocation site is served from a pool of page-locked
 * memory of the planned size, so the copies that read or write it run at DMA speed instead
 * of being staged through the runtime's bounce buffer. The copy itself stays. A buffer the
 * program frees goes back to its site's pool, not to the system, so a program that
 * allocates a fresh host tensor every iteration pins once and reuses it (pinning costs
 * milliseconds; a loop allocates in microseconds).
 *
 * The pools together stay under a cap (ECHO_PINNED_CAP bytes, default 2 GiB: page-locked
 * memory is memory the kernel cannot reclaim); past it, or when CUDA is not loaded or
 * initialised yet or says no, the allocation is made as written. The runtime pins where the
 * program has it loaded, the driver otherwise (a runtime linked statically).
 *
 * An allocation made as written (a fallback) is kept by its pointer until it is freed, so that
 * the report can say, per pair, how many allocations fell back, why, and how many copies
 * then ran from or to pageable memory: what the fallbacks cost.
 *
 * What the program may observe stays as it was: the memory is ordinary read-write memory,
 * page-aligned (any alignment it asked for up to a page), and every asynchronous copy whose
 * host side is a pool buffer is followed by a wait for its stream (hooks_cuda.c,
 * hooks_driver.c): from pageable memory, such a copy had read its host buffer when the call
 * returned, and to pageable memory it had written it.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "shim.h"

#define MAX_PINNED 256
#define MAX_FELL 64
#define DEFAULT_CAP (2ull << 30)

static struct pinbuf {
	void *ptr;
	size_t bytes;
	const struct pair *pair;
	bool busy; /* handed to the program; guarded by shim_lock */
} bufs[MAX_PINNED];
static atomic_int nbufs; /* bufs[0..nbufs) are published: ptr, bytes and pair never change */
int shim_pinned_buffers;  /* nbufs, for the free hook's first glance */
static uint64_t reserved; /* bytes pinned or being pinned, under the cap */
struct pinned_counters shim_pinned_count;

/* The live allocations made as written at a pinned site, and the pair whose site it was;
 * guarded by shim_lock. falling is the pair of this thread's allocation that fell back, until
 * the host hook reports its pointer (shim_pinned_fell). */
static struct fell {
	const void *ptr;
	size_t bytes;
	struct pair *pair;
} fell[MAX_FELL];
static atomic_int nfell; /* for the hooks' first glance */
static __thread struct pair *falling;
static __thread size_t falling_bytes;

static uint64_t cap(void)
{
	static uint64_t bytes;
	if (!bytes) {
		const char *s = getenv("ECHO_PINNED_CAP");
		char *end;
		unsigned long long v = s && *s ? strtoull(s, &end, 10) : 0;
		bytes = v && !*end ? v : DEFAULT_CAP;
	}
	return bytes;
}

/* The pair whose host site this allocation is (the ordinal does not matter: every
 * allocation there is served). Caller holds the lock. */
static struct pair *planned_pair(const void *ret, const char *call, size_t bytes)
{
	struct site s;
	shim_site_of(ret, call, bytes, &s);
	for (int i = 0; i < shim_plan.npairs; i++) {
		struct pair *p = &shim_plan.pairs[i];
		if (p->has_host && shim_pair_chosen(p) && shim_site_equal(&p->host, &s))
			return p;
	}
	return NULL;
}

/* A free buffer of p's pool, taken. Caller holds the lock. */
static void *take(const struct pair *p)
{
	int n = atomic_load_explicit(&nbufs, memory_order_acquire);
	for (int i = 0; i < n; i++)
		if (bufs[i].pair == p && !bufs[i].busy) {
			bufs[i].busy = true;
			return bufs[i].ptr;
		}
	return NULL;
}

static void fall_back(struct pair *p, size_t bytes, const char *why)
{
	pthread_mutex_lock(&shim_lock);
	shim_pinned_count.fallbacks++;
	p->fallbacks++;
	if (!p->note[0])
		snprintf(p->note, sizeof p->note, "%s", why);
	pthread_mutex_unlock(&shim_lock);
	falling = p;
	falling_bytes = bytes;
}

void shim_pinned_fell(const void *ptr)
{
	struct pair *p = falling;
	if (__builtin_expect(!p, 1))
		return;
	falling = NULL;
	if (!ptr)
		return;
	pthread_mutex_lock(&shim_lock);
	int n = atomic_load(&nfell);
	if (n < MAX_FELL) {
		fell[n] = (struct fell){ptr, falling_bytes, p};
		atomic_store(&nfell, n + 1);
	}
	pthread_mutex_unlock(&shim_lock);
}

void shim_pinned_forget(const void *ptr)
{
	if (__builtin_expect(!atomic_load_explicit(&nfell, memory_order_relaxed) || !ptr, 1))
		return;
	pthread_mutex_lock(&shim_lock);
	int n = atomic_load(&nfell);
	for (int i = 0; i < n; i++)
		if (fell[i].ptr == ptr) {
			fell[i] = fell[n - 1];
			atomic_store(&nfell, n - 1);
			break;
		}
	pthread_mutex_unlock(&shim_lock);
}

/* The pair whose fallback allocation holds ptr, or NULL. Caller holds the lock. */
static struct pair *fallen(const void *ptr)
{
	int n = atomic_load(&nfell);
	for (int i = 0; i < n; i++) {
		uintptr_t lo = (uintptr_t)fell[i].ptr, at = (uintptr_t)ptr;
		if (at >= lo && at < lo + fell[i].bytes)
			return fell[i].pair;
	}
	return NULL;
}

void shim_pinned_copied(const void *dst, const void *src)
{
	if (__builtin_expect(!atomic_load_explicit(&nfell, memory_order_relaxed), 1))
		return;
	pthread_mutex_lock(&shim_lock);
	struct pair *p = fallen(dst);
	if (!p)
		p = fallen(src);
	if (p)
		p->fallback_copies++;
	pthread_mutex_unlock(&shim_lock);
}

/* Page-locked memory from the runtime, or from the driver where the program has no shared
 * runtime (CuPy links it statically): NULL, or why not. */
static const char *pin(void **buf, size_t bytes)
{
	if (shim_runtime_loaded())
		return REAL(cudaHostAlloc, (buf, bytes, cudaHostAllocPortable)) == cudaSuccess ? NULL
											: "cudaHostAlloc failed: as written";
	CUresult (*host_alloc)(void **, size_t, unsigned) = shim_real_driver_dlsym("cuMemHostAlloc");
	if (!host_alloc)
		return "allocated before CUDA was loaded: as written";
	CUresult r = DRIVER_CALL(host_alloc, (buf, bytes, CU_MEMHOSTALLOC_PORTABLE));
	if (r == CUDA_ERROR_NOT_INITIALIZED || r == CUDA_ERROR_INVALID_CONTEXT)
		return "allocated before CUDA was initialised on its thread: as written";
	return r == CUDA_SUCCESS ? NULL : "cuMemHostAlloc failed: as written";
}

void *shim_pinned_alloc(const void *ret, const char *call, size_t bytes)
{
	pthread_mutex_lock(&shim_lock);
	struct pair *p = planned_pair(ret, call, bytes);
	void *buf = p ? take(p) : NULL;
	bool room = p && !buf && reserved + bytes <= cap() && atomic_load(&nbufs) < MAX_PINNED;
	if (room)
		reserved += bytes;
	if (buf) {
		shim_pinned_count.reused++;
		__atomic_add_fetch(&p->pinned, 1, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&shim_lock);
	if (!p || buf)
		return buf;
	if (!room) {
		fall_back(p, bytes, "the pinned pools reached their cap (ECHO_PINNED_CAP): later buffers are pageable");
		return NULL;
	}
	/* Pinning calls CUDA: outside the lock, like the merged allocations. */
	uint64_t t0 = shim_uptime_ns();
	const char *why = pin(&buf, bytes);
	shim_setup_since(t0);
	pthread_mutex_lock(&shim_lock);
	if (why) {
		reserved -= bytes;
		pthread_mutex_unlock(&shim_lock);
		fall_back(p, bytes, why);
		return NULL;
	}
	int i = atomic_load(&nbufs);
	bufs[i] = (struct pinbuf){buf, bytes, p, true};
	atomic_store_explicit(&nbufs, i + 1, memory_order_release);
	__atomic_store_n(&shim_pinned_buffers, i + 1, __ATOMIC_RELEASE);
	shim_pinned_count.buffers++;
	shim_pinned_count.bytes += bytes;
	__atomic_add_fetch(&p->pinned, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&shim_lock);
	return buf;
}

/* The pool buffer that starts at ptr (exact) or holds it (inside), or NULL. Lock-free. */
static struct pinbuf *lookup(const void *ptr, bool inside)
{
	int n = atomic_load_explicit(&nbufs, memory_order_acquire);
	for (int i = 0; i < n; i++) {
		uintptr_t lo = (uintptr_t)bufs[i].ptr, at = (uintptr_t)ptr;
		if (at == lo || (inside && at > lo && at < lo + bufs[i].bytes))
			return &bufs[i];
	}
	return NULL;
}

bool shim_pinned_free(void *ptr)
{
	if (__builtin_expect(!ptr || !atomic_load_explicit(&nbufs, memory_order_relaxed), 1))
		return false;
	struct pinbuf *b = lookup(ptr, false);
	if (!b)
		return false;
	pthread_mutex_lock(&shim_lock);
	b->busy = false;
	pthread_mutex_unlock(&shim_lock);
	return true;
}

size_t shim_pinned_size(const void *ptr)
{
	struct pinbuf *b = ptr && atomic_load_explicit(&nbufs, memory_order_relaxed) ? lookup(ptr, false) : NULL;
	return b ? b->bytes : 0;
}

bool shim_pinned_holds(const void *ptr)
{
	if (__builtin_expect(!atomic_load_explicit(&nbufs, memory_order_relaxed), 1))
		return false;
	return lookup(ptr, true) != NULL;
}
