/*
 * Deploy mode's buffers, and the moment a pair becomes one buffer.
 *
 * A plan names each side of a pair by where it is allocated, and a run with other options
 * can allocate another buffer in a planned slot. If the two sides were one buffer from
 * their allocations on, the GPU would then write into whatever buffer took the host slot:
 * the program's other data. So each side gets a buffer of its own: the host side plain host
 * memory (page-locked, as asked, when CUDA allocated it), the device side a mapping of a
 * memory file the GPU reaches (page-locked and used at its own address for the mapped
 * strategy; through HMM/ATS for the system strategy). Until they are bound, the GPU reaches
 * the device side's buffer alone, and a copy between the two moves data as written.
 *
 * The first linking copy between the two buffers, made at one of the plan's copy sites in
 * one of the pair's directions, binds them: once the GPU work the copy is ordered after is
 * done, the copy's data is moved (into the device side for an input, the host side then seeing the
 * device side's), and the host side's address is mapped onto the device side's memory file.
 * From then on they are one memory under two addresses, and every linking copy between them
 * moves nothing, keeping only its wait (repair.c). The program's two pointers stay two.
 * A slot taken by another allocation is never linked to its partner by the plan's copy, so
 * it is never bound, and the run computes what it computed as written.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "shim.h"

/* The sides' buffers, readable without the lock by the copy and free hot paths. */
static _Atomic(char *) host_bufs[MAX_PAIRS], dev_bufs[MAX_PAIRS];
/* One binding at a time: it synchronizes the device and remaps memory. */
static pthread_mutex_t bind_lock = PTHREAD_MUTEX_INITIALIZER;

#define LOCKED_FLAGS (cudaHostRegisterPortable | cudaHostRegisterMapped)

static size_t whole_pages(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	return (n + page - 1) / page * page;
}

/* Gives up p for this run, saying why once. */
static void *refuse(struct pair *p, const char *why)
{
	pthread_mutex_lock(&shim_lock);
	shim_give_up(p, why);
	shim_count.fallbacks++;
	p->fallbacks++;
	pthread_mutex_unlock(&shim_lock);
	shim_say("pair %s: %s; leaving the pair as written", p->id, why);
	return NULL;
}

void *shim_host_buffer(struct pair *p, const char *call)
{
	size_t len = whole_pages(p->bytes);
	char *h = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (h == MAP_FAILED)
		return refuse(p, "mapping its host side failed");
	/* cudaMallocHost and cudaHostAlloc: the program may use the buffer as page-locked memory */
	bool locked = strncmp(call, "cu", 2) == 0;
	if (locked && REAL(cudaHostRegister, (h, len, LOCKED_FLAGS)) != cudaSuccess) {
		munmap(h, len);
		return refuse(p, "page-locking its host side failed");
	}
	if (locked)
		madvise(h, len, MADV_DONTFORK); /* as CUDA's own page-locked memory */
	pthread_mutex_lock(&shim_lock);
	p->deploy.host_buf = h;
	p->deploy.map_bytes = len;
	p->deploy.host_locked = locked;
	p->deploy.fd = -1;
	atomic_store(&host_bufs[p - shim_plan.pairs], h);
	pthread_mutex_unlock(&shim_lock);
	return h;
}

/* Whether the GPU uses a page-locked host buffer at its host address (unified addressing),
 * as the program will, having only that pointer. */
static bool host_address_usable(void)
{
	int device = 0, usable = 0;
	return real.cudaGetDevice && real.cudaDeviceGetAttribute && REAL(cudaGetDevice, (&device)) == cudaSuccess &&
	       REAL(cudaDeviceGetAttribute, (&usable, cudaDevAttrCanUseHostPointerForRegisteredMem, device)) == cudaSuccess &&
	       usable;
}

void *shim_device_buffer(struct pair *p)
{
	size_t len = whole_pages(p->bytes);
	bool mapped = shim_plan.strategy == STRATEGY_MAPPED;
	int fd = memfd_create("echo-pair", MFD_CLOEXEC);
	char *d = MAP_FAILED;
	const char *why = NULL;
	if (fd < 0 || ftruncate(fd, (off_t)len) != 0)
		why = "no memory file for its device side";
	else if ((d = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED)
		why = "mapping its device side failed";
	else if (mapped && !host_address_usable())
		why = "the GPU cannot use page-locked memory at its host address";
	else if (mapped && REAL(cudaHostRegister, (d, len, LOCKED_FLAGS)) != cudaSuccess)
		why = "page-locking its device side failed";
	if (why) {
		if (d != MAP_FAILED)
			munmap(d, len);
		if (fd >= 0)
			close(fd);
		return refuse(p, why);
	}
	/* Device memory is not a child's after fork(): neither is its stand-in (CUDA keeps
	 * page-locked memory out of children too). */
	madvise(d, len, MADV_DONTFORK);
	pthread_mutex_lock(&shim_lock);
	p->deploy.dev_buf = d;
	p->deploy.fd = fd;
	atomic_store(&dev_bufs[p - shim_plan.pairs], d);
	pthread_mutex_unlock(&shim_lock);
	return d;
}

struct pair *shim_pair_buffer(const void *ptr, bool *host_side)
{
	for (int i = 0; ptr && i < shim_plan.npairs; i++) {
		if (atomic_load_explicit(&host_bufs[i], memory_order_acquire) == ptr)
			return *host_side = true, &shim_plan.pairs[i];
		if (atomic_load_explicit(&dev_bufs[i], memory_order_acquire) == ptr)
			return *host_side = false, &shim_plan.pairs[i];
	}
	return NULL;
}

bool shim_free_buffer(struct pair *p, bool host_side)
{
	int i = (int)(p - shim_plan.pairs);
	pthread_mutex_lock(&shim_lock);
	char *buf = atomic_exchange(host_side ? &host_bufs[i] : &dev_bufs[i], NULL);
	int fd = -1;
	if (buf) {
		*(host_side ? &p->host_freed : &p->device_freed) = true;
		*(host_side ? &p->deploy.host_buf : &p->deploy.dev_buf) = NULL;
		if (!host_side)
			fd = p->deploy.fd, p->deploy.fd = -1;
		if (!p->deploy.host_buf && !p->deploy.dev_buf)
			shim_count.freed++;
	}
	pthread_mutex_unlock(&shim_lock);
	if (!buf)
		return false;
	/* The GPU may still use the device side: cudaFree would have waited for it. A bound host
	 * side's memory stays while the other mapping of it does. */
	if (!host_side)
		REAL(cudaDeviceSynchronize, ());
	if (host_side ? p->deploy.host_locked : shim_plan.strategy == STRATEGY_MAPPED)
		REAL(cudaHostUnregister, (buf));
	munmap(buf, p->deploy.map_bytes);
	if (fd >= 0)
		close(fd);
	return true;
}

/* Whether a copy made at ret is one of the pair's linking copies in the plan, that way. */
static bool at_copy_site(const struct pair *p, const void *ret, bool h2d)
{
	if (p->ncopies == 0)
		return true; /* a plan that names none (an older echoctl's): the allocations alone */
	struct site s;
	pthread_mutex_lock(&shim_lock);
	shim_site_of(ret, "", 0, &s);
	pthread_mutex_unlock(&shim_lock);
	for (int k = 0; k < p->ncopies; k++)
		if (p->copy_h2d[k] == h2d && p->copy_sites[k].offset == s.offset && !strcmp(p->copy_sites[k].module, s.module))
			return true;
	return false;
}

/* The program page-locks memory of a host side not yet bound: binding would map other memory
 * under that page-locking (the GPU would go on reaching the pages it locked), so the pair is
 * left as written. Once bound, page-locking locks the bound memory itself. */
void shim_host_registered(const void *p, size_t n)
{
	for (int i = 0; p && i < shim_plan.npairs; i++) {
		struct pair *pair = &shim_plan.pairs[i];
		const char *h = atomic_load_explicit(&host_bufs[i], memory_order_acquire);
		if (!h || (const char *)p >= h + pair->deploy.map_bytes || (const char *)p + n <= h ||
		    __atomic_load_n(&pair->deploy.bound, __ATOMIC_ACQUIRE))
			continue;
		pthread_mutex_lock(&shim_lock);
		shim_give_up(pair, "the program page-locks its host buffer itself");
		pthread_mutex_unlock(&shim_lock);
	}
}

/* A child of fork() gets its own copy of the program's host memory, which it may write without
 * the parent seeing it; a bound host side is a shared mapping of a memory file, so in the
 * child each one is replaced by a private copy of what it holds (page-locked ones are not the
 * child's at all: MADV_DONTFORK). */
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void private_copies(void)
{
	for (int i = 0; i < shim_plan.npairs; i++) {
		struct pair *p = &shim_plan.pairs[i];
		char *h = atomic_load_explicit(&host_bufs[i], memory_order_acquire);
		if (!h || p->deploy.host_locked || !__atomic_load_n(&p->deploy.bound, __ATOMIC_ACQUIRE))
			continue;
		void *copy = mmap(NULL, p->deploy.map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (copy == MAP_FAILED)
			continue; /* the child shares the pages with its parent, as it would a MAP_SHARED buffer */
		memcpy(copy, h, p->deploy.map_bytes);
		if (mremap(copy, p->deploy.map_bytes, p->deploy.map_bytes, MREMAP_MAYMOVE | MREMAP_FIXED, h) == MAP_FAILED)
			munmap(copy, p->deploy.map_bytes);
	}
}

static void watch_forks(void)
{
	pthread_atfork(NULL, NULL, private_copies);
}

/* Back to a host side of its own, with the contents it has (both sides hold the same now),
 * after a binding that could not finish. */
static void unbind(struct pair *p)
{
	void *h = mmap(p->deploy.host_buf, p->deploy.map_bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (h != MAP_FAILED)
		memcpy(h, p->deploy.dev_buf, p->bytes);
	if (p->deploy.host_locked)
		REAL(cudaHostRegister, (p->deploy.host_buf, p->deploy.map_bytes, LOCKED_FLAGS));
}

/* Maps p's host side onto its device side, page-locked again where it was. */
static const char *remap(struct pair *p)
{
	if (p->deploy.host_locked)
		REAL(cudaHostUnregister, (p->deploy.host_buf));
	if (mmap(p->deploy.host_buf, p->deploy.map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, p->deploy.fd,
		 0) == MAP_FAILED) {
		unbind(p);
		return "mapping its host side onto its device side failed";
	}
	if (p->deploy.host_locked &&
	    REAL(cudaHostRegister, (p->deploy.host_buf, p->deploy.map_bytes, LOCKED_FLAGS)) != cudaSuccess) {
		unbind(p);
		return "page-locking its bound host side failed";
	}
	if (p->deploy.host_locked)
		madvise(p->deploy.host_buf, p->deploy.map_bytes, MADV_DONTFORK);
	else
		pthread_once(&fork_once, watch_forks);
	return NULL;
}

/* Binds p at its first linking copy, which has not been made yet, on stream `on`. Holding
 * bind_lock. */
static const char *bind_now(struct pair *p, const void *ret, bool h2d, cudaStream_t on)
{
	if (!at_copy_site(p, ret, h2d))
		return "its buffers were linked by a copy at another site than the plan's (not the pair it saw)";
	if (!p->deploy.host_locked && shim_memory_type(p->deploy.host_buf) == cudaMemoryTypeHost)
		return "the program page-locked its host buffer itself"; /* through the driver, say */
	/* The copy would have started once what it is ordered after was done: wait for exactly
	 * that (not the device: a persistent kernel on another stream may wait for the host),
	 * and then make the copy, here, where the two become one. */
	if (shim_wait_before_copy(on) != cudaSuccess)
		return "the GPU work before its linking copy failed";
	if (h2d)
		memcpy(p->deploy.dev_buf, p->deploy.host_buf, p->bytes);
	uint64_t t0 = shim_uptime_ns(); /* the wait and the copy were the program's; the rest is set-up */
	const char *why = remap(p);
	shim_setup_since(t0);
	return why;
}

static bool bind(struct pair *p, const void *ret, bool h2d, cudaStream_t on)
{
	if (!(h2d ? p->input : p->output))
		return false; /* not its linking direction: a copy as written */
	pthread_mutex_lock(&bind_lock);
	pthread_mutex_lock(&shim_lock);
	bool done = p->deploy.bound, failed = p->failed;
	pthread_mutex_unlock(&shim_lock);
	const char *why = done || failed ? NULL : bind_now(p, ret, h2d, on);
	pthread_mutex_lock(&shim_lock);
	if (why)
		shim_give_up(p, why);
	else if (!done && !failed) {
		close(p->deploy.fd);
		p->deploy.fd = -1;
		__atomic_store_n(&p->deploy.bound, true, __ATOMIC_RELEASE);
	}
	done = p->deploy.bound;
	pthread_mutex_unlock(&shim_lock);
	pthread_mutex_unlock(&bind_lock);
	if (why)
		shim_say("pair %s: %s; leaving the pair as written", p->id, why);
	return done;
}

static bool within(const char *ptr, const char *base, uint64_t bytes)
{
	return base && ptr >= base && ptr < base + bytes;
}

/* A linking copy (the whole buffer, or one of its planned chunks) between a pair's two
 * buffers, binding them at the first: counted for its pair, which it returns, once the two
 * are one (the copy then moves nothing); NULL for any other copy, which moves data as
 * written. Lock-free unless it binds. */
struct pair *shim_linking_copy(const void *ret, void *dst, const void *src, size_t n, cudaStream_t on)
{
	for (int i = 0; dst && src && i < shim_plan.npairs; i++) {
		struct pair *p = &shim_plan.pairs[i];
		const char *h = atomic_load_explicit(&host_bufs[i], memory_order_acquire);
		const char *d = atomic_load_explicit(&dev_bufs[i], memory_order_acquire);
		bool h2d = within(dst, d, p->bytes) && within(src, h, p->bytes);
		if (!h2d && !(within(dst, h, p->bytes) && within(src, d, p->bytes)))
			continue;
		uint64_t offset = (uint64_t)((const char *)dst - (h2d ? d : h));
		if (offset != (uint64_t)((const char *)src - (h2d ? h : d)) || shim_piece(p, offset, n) < 0)
			continue;
		if (!__atomic_load_n(&p->deploy.bound, __ATOMIC_ACQUIRE) && !bind(p, ret, h2d, on))
			return NULL;
		__atomic_add_fetch(&p->deploy.elided, 1, __ATOMIC_RELAXED);
		return p;
	}
	return NULL;
}
