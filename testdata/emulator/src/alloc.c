/*
 * The runtime's allocations: a sorted table of every range the runtime knows (device,
 * managed, pinned and registered host memory), the memory limit, and reuse of freed blocks.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

#define POISON 0xA5
#define CACHE_SLOTS 64
#define CACHE_MAX_BYTES (1ULL << 30)

struct entry {
	uintptr_t base;
	size_t size;
	size_t maplen; /* 0 for registered ranges, which the program owns */
	enum emu_mem kind;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry *table;
static size_t ntable, captable;
static size_t live_bytes;
static unsigned long allocations; /* runtime allocations asked for, for CUDA_EMU_FAIL_ALLOC */
static struct {
	void *p;
	size_t maplen;
} cache[CACHE_SLOTS];
static size_t ncache, cached_bytes;

/* Index of the last entry with base <= p, or -1. Caller holds lock. */
static long find_floor(uintptr_t p)
{
	long lo = 0, hi = (long)ntable - 1, found = -1;
	while (lo <= hi) {
		long mid = (lo + hi) / 2;
		if (table[mid].base <= p) {
			found = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return found;
}

static long find_containing(uintptr_t p)
{
	long i = find_floor(p);
	if (i >= 0 && p < table[i].base + table[i].size)
		return i;
	return -1;
}

static bool overlaps(uintptr_t base, size_t size)
{
	long i = find_floor(base + size - 1);
	return i >= 0 && table[i].base + table[i].size > base;
}

static bool insert(struct entry e)
{
	if (ntable == captable) {
		size_t cap = captable ? captable * 2 : 64;
		struct entry *t = realloc(table, cap * sizeof *t);
		if (!t)
			return false;
		table = t;
		captable = cap;
	}
	long at = find_floor(e.base) + 1;
	memmove(&table[at + 1], &table[at], (ntable - (size_t)at) * sizeof *table);
	table[at] = e;
	ntable++;
	return true;
}

static void remove_at(long i)
{
	memmove(&table[i], &table[i + 1], (ntable - (size_t)i - 1) * sizeof *table);
	ntable--;
}

static size_t page_round(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	return (n + page - 1) / page * page;
}

/* A block of maplen bytes: the newest freed block of that length, else a fresh mapping. */
static void *take_block(size_t maplen)
{
	for (size_t i = ncache; i-- > 0;) {
		if (cache[i].maplen != maplen)
			continue;
		void *p = cache[i].p;
		memmove(&cache[i], &cache[i + 1], (ncache - i - 1) * sizeof cache[0]);
		ncache--;
		cached_bytes -= maplen;
		return p;
	}
	void *p = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static void give_block(void *p, size_t maplen)
{
	memset(p, POISON, maplen);
	while (ncache > 0 && (ncache == CACHE_SLOTS || cached_bytes + maplen > CACHE_MAX_BYTES)) {
		munmap(cache[0].p, cache[0].maplen);
		cached_bytes -= cache[0].maplen;
		memmove(&cache[0], &cache[1], (ncache - 1) * sizeof cache[0]);
		ncache--;
	}
	if (maplen > CACHE_MAX_BYTES) {
		munmap(p, maplen);
		return;
	}
	cache[ncache].p = p;
	cache[ncache].maplen = maplen;
	ncache++;
	cached_bytes += maplen;
}

cudaError_t emu_allocate(void **out, size_t size, enum emu_mem kind)
{
	cudaError_t err = emu_ok();
	if (err)
		return err;
	if (!out)
		return emu_fail(cudaErrorInvalidValue);
	if (size == 0) {
		*out = NULL;
		return cudaSuccess;
	}
	size_t limit = emu_knobs()->mem_limit;
	size_t maplen = page_round(size);
	pthread_mutex_lock(&lock);
	void *p = NULL;
	bool injected = ++allocations == emu_knobs()->fail_alloc;
	if (!injected && (!limit || (size <= limit && live_bytes <= limit - size)))
		p = take_block(maplen);
	if (p && !insert((struct entry){(uintptr_t)p, size, maplen, kind})) {
		give_block(p, maplen);
		p = NULL;
	}
	if (p)
		live_bytes += size;
	pthread_mutex_unlock(&lock);
	if (!p)
		return emu_fail(cudaErrorMemoryAllocation);
	*out = p;
	return cudaSuccess;
}

/* Frees an allocation of one of the kinds in mask (bits of 1 << kind). Like the real runtime,
 * freeing waits for the device first. */
cudaError_t emu_release(void *p, unsigned mask)
{
	cudaError_t err = emu_ok();
	if (err)
		return err;
	if (!p)
		return cudaSuccess;
	emu_device_sync();
	pthread_mutex_lock(&lock);
	long i = find_floor((uintptr_t)p);
	if (i < 0 || table[i].base != (uintptr_t)p || !(mask & (1u << table[i].kind)) ||
	    !table[i].maplen) {
		pthread_mutex_unlock(&lock);
		return emu_fail(cudaErrorInvalidValue);
	}
	struct entry e = table[i];
	remove_at(i);
	live_bytes -= e.size;
	give_block(p, e.maplen);
	pthread_mutex_unlock(&lock);
	return cudaSuccess;
}

struct emu_range emu_lookup(const void *p)
{
	struct emu_range r = {EMU_MEM_PAGEABLE, 0, 0};
	pthread_mutex_lock(&lock);
	long i = find_containing((uintptr_t)p);
	if (i >= 0)
		r = (struct emu_range){table[i].kind, table[i].base, table[i].size};
	pthread_mutex_unlock(&lock);
	return r;
}

bool emu_range_holds(struct emu_range r, const void *p, size_t n)
{
	if (r.kind == EMU_MEM_PAGEABLE)
		return true;
	uintptr_t a = (uintptr_t)p;
	return a >= r.base && n <= r.size && a - r.base <= r.size - n;
}

bool emu_device_accessible(enum emu_mem kind)
{
	return kind != EMU_MEM_PAGEABLE || emu_knobs()->pageable_access;
}

bool emu_is_host_kind(enum emu_mem kind)
{
	return kind == EMU_MEM_PAGEABLE || kind == EMU_MEM_PINNED || kind == EMU_MEM_REGISTERED;
}

EMU_API cudaError_t cudaMalloc(void **devPtr, size_t size)
{
	const struct emu_driver *drv = emu_driver();
	if (drv)
		return emu_from_driver(drv->mem_alloc((CUdeviceptr *)devPtr, size));
	return emu_allocate(devPtr, size, EMU_MEM_DEVICE);
}

EMU_API cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
	if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost)
		return emu_fail(cudaErrorInvalidValue);
	return emu_allocate(devPtr, size, EMU_MEM_MANAGED);
}

/* pin prices page-locking size bytes as the real runtime does (CUDA_EMU_PIN_US_PER_MIB): far
 * more than a malloc, so that a plan whose page-locking costs more than its iterations save
 * shows as a slower complete run here too. */
static cudaError_t pin(cudaError_t err, size_t size)
{
	unsigned long per_mib = emu_knobs()->pin_us_per_mib;
	if (err == cudaSuccess && per_mib)
		emu_sleep_us((unsigned long)(((unsigned long long)size * per_mib + (1u << 20) - 1) >> 20));
	return err;
}

EMU_API cudaError_t cudaMallocHost(void **ptr, size_t size)
{
	return pin(emu_allocate(ptr, size, EMU_MEM_PINNED), size);
}

EMU_API cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
	if (flags & ~(unsigned)(cudaHostAllocPortable | cudaHostAllocMapped |
				cudaHostAllocWriteCombined))
		return emu_fail(cudaErrorInvalidValue);
	return pin(emu_allocate(pHost, size, EMU_MEM_PINNED), size);
}

EMU_API cudaError_t cudaFree(void *devPtr)
{
	const struct emu_driver *drv = emu_driver();
	if (drv)
		return emu_from_driver(drv->mem_free((CUdeviceptr)devPtr));
	return emu_release(devPtr, EMU_DEVICE_KINDS);
}

EMU_API cudaError_t cudaFreeHost(void *ptr)
{
	return emu_release(ptr, EMU_PINNED_KINDS);
}

EMU_API cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
	cudaError_t err = emu_ok();
	if (err)
		return err;
	if (!ptr || !size || flags & ~0xfu)
		return emu_fail(cudaErrorInvalidValue);
	static unsigned long registrations;
	pthread_mutex_lock(&lock);
	if (++registrations == emu_knobs()->fail_register)
		err = cudaErrorMemoryAllocation;
	else if (overlaps((uintptr_t)ptr, size))
		err = cudaErrorHostMemoryAlreadyRegistered;
	else if (!insert((struct entry){(uintptr_t)ptr, size, 0, EMU_MEM_REGISTERED}))
		err = cudaErrorMemoryAllocation;
	pthread_mutex_unlock(&lock);
	return pin(emu_fail(err), size);
}

EMU_API cudaError_t cudaHostUnregister(void *ptr)
{
	cudaError_t err = emu_ok();
	if (err)
		return err;
	emu_device_sync();
	pthread_mutex_lock(&lock);
	long i = find_floor((uintptr_t)ptr);
	if (i >= 0 && table[i].base == (uintptr_t)ptr && table[i].kind == EMU_MEM_REGISTERED)
		remove_at(i);
	else
		err = cudaErrorHostMemoryNotRegistered;
	pthread_mutex_unlock(&lock);
	return emu_fail(err);
}

EMU_API cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags)
{
	cudaError_t err = emu_ok();
	if (err)
		return err;
	if (!pDevice || flags)
		return emu_fail(cudaErrorInvalidValue);
	struct emu_range r = emu_lookup(pHost);
	if (r.kind != EMU_MEM_PINNED && r.kind != EMU_MEM_REGISTERED)
		return emu_fail(cudaErrorInvalidValue);
	*pDevice = pHost; /* unified virtual addressing: one address for both sides */
	return cudaSuccess;
}

EMU_API cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes,
					     const void *ptr)
{
	cudaError_t err = emu_ok();
	if (err)
		return err;
	if (!attributes)
		return emu_fail(cudaErrorInvalidValue);
	void *p = (void *)(uintptr_t)ptr;
	struct emu_range r = emu_lookup(ptr);
	struct cudaPointerAttributes a = {cudaMemoryTypeUnregistered, -2, NULL, NULL};
	switch (r.kind) {
	case EMU_MEM_PAGEABLE:
		break;
	case EMU_MEM_PINNED:
	case EMU_MEM_REGISTERED:
		a = (struct cudaPointerAttributes){cudaMemoryTypeHost, 0, p, p};
		break;
	case EMU_MEM_DEVICE:
		a = (struct cudaPointerAttributes){cudaMemoryTypeDevice, 0, p, NULL};
		break;
	case EMU_MEM_MANAGED:
		a = (struct cudaPointerAttributes){cudaMemoryTypeManaged, 0, p, p};
		break;
	}
	*attributes = a;
	return cudaSuccess;
}

EMU_API cudaError_t cudaMemGetInfo(size_t *free, size_t *total)
{
	cudaError_t err = emu_ok();
	if (err)
		return err;
	if (!free || !total)
		return emu_fail(cudaErrorInvalidValue);
	emu_mem_info(free, total);
	return cudaSuccess;
}

void emu_mem_info(size_t *free, size_t *total)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t limit = emu_knobs()->mem_limit;
	pthread_mutex_lock(&lock);
	if (limit) {
		*total = limit;
		*free = limit - live_bytes;
	} else {
		*total = (size_t)sysconf(_SC_PHYS_PAGES) * page;
		*free = (size_t)sysconf(_SC_AVPHYS_PAGES) * page;
	}
	pthread_mutex_unlock(&lock);
}
