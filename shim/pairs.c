/*
 * Matching allocations to the plan's pairs, handing out merged buffers, and releasing them
 * once both sides are freed, only for calls whose size a pair names. The pair table is read
 * and changed under shim_lock; calls into the runtime are made without it.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

#define MAX_SITES 64

/* Calls seen so far at each planned site (without ordinal): the next call's ordinal. */
static struct {
	struct site site;
	int count;
} seen[MAX_SITES];
static int nseen;

/* Merged host pointers, readable without the lock by the free and copy hot paths. */
static _Atomic(void *) merged_ptrs[MAX_PAIRS];

bool shim_size_planned(size_t bytes)
{
	for (int i = 0; i < shim_plan.npairs; i++)
		if (shim_plan.pairs[i].bytes == bytes)
			return true;
	return false;
}

int shim_next_ordinal(const struct site *s)
{
	for (int i = 0; i < nseen; i++)
		if (shim_site_equal(&seen[i].site, s))
			return seen[i].count++;
	if (nseen == MAX_SITES)
		return -1;
	seen[nseen].site = *s;
	seen[nseen].count = 1;
	nseen++;
	return 0;
}

static void *merged_alloc(size_t bytes)
{
	void *p = NULL;
	cudaError_t err = cudaSuccess;
	switch (shim_plan.strategy) {
	case STRATEGY_MAPPED:
		err = real.cudaHostAlloc(&p, bytes, cudaHostAllocMapped);
		break;
	case STRATEGY_MANAGED:
		err = real.cudaMallocManaged(&p, bytes, cudaMemAttachGlobal);
		break;
	case STRATEGY_SYSTEM:
		p = malloc(bytes);
		break;
	case STRATEGY_PINNED: /* keeps both buffers: pinned.c */
		break;
	}
	return err == cudaSuccess ? p : NULL;
}

static void merged_free(void *p)
{
	switch (shim_plan.strategy) {
	case STRATEGY_MAPPED:
		real.cudaFreeHost(p);
		break;
	case STRATEGY_MANAGED:
		real.cudaFree(p);
		break;
	case STRATEGY_SYSTEM:
		/* Plain memory: wait for the GPU work that may still use it. */
		real.cudaDeviceSynchronize();
		free(p);
		break;
	case STRATEGY_PINNED:
		break;
	}
}

/* The pair side planned for an allocation of bytes from ret, if any. Caller holds the lock. */
static struct pair *match(bool host_side, const void *ret, const char *call, size_t bytes)
{
	struct site s;
	shim_site_of(ret, call, bytes, &s);
	s.ordinal = shim_next_ordinal(&s);
	for (int i = 0; i < shim_plan.npairs; i++) {
		struct pair *c = &shim_plan.pairs[i];
		const struct site *want = host_side ? &c->host : &c->device;
		if (c->failed || !shim_site_equal(want, &s))
			continue;
		c->seen[!host_side].calls++; /* the planned site and size, if not yet the planned call */
		if (want->ordinal != s.ordinal)
			continue;
		if (host_side ? c->host_taken : c->device_taken) {
			/* a side allocated twice: not the program the plan saw */
			shim_say("pair %s: its %s side was allocated again; leaving it as written", c->id,
				 host_side ? "host" : "device");
			return NULL;
		}
		return c;
	}
	return NULL;
}

/* Gives up merging p in this run; the first reason is the one reported. Caller holds the lock. */
static void give_up(struct pair *p, const char *why)
{
	p->failed = true;
	if (!p->note[0])
		snprintf(p->note, sizeof p->note, "%s", why);
}

/* Deploy mode: whether the side may have the merged buffer. The device side may only once the
 * host side holds it: a device side merged alone would put the program's device buffer in
 * host-reachable memory with no copy removed, slower and for nothing (a run with other
 * arguments, another host allocator). A host side merged alone is host memory the program
 * uses as such. Caller holds the lock. */
static bool may_merge(struct pair *p, bool host_side)
{
	if (host_side)
		return true;
	if (p->host_taken && !p->host_freed)
		return true;
	give_up(p, p->host_freed ? "its host side was freed before its device side was allocated"
				 : "its device side was allocated while its host side was not (not at its planned site, "
				   "or later): the merged buffer is handed out at the host side");
	return false;
}

/* Deploy mode: the pair's merged buffer, allocating it if the other side has not yet. The
 * allocation calls the runtime, so it runs without the lock: a runtime thread that holds
 * one of its own locks may be waiting for ours in a hook. Two sides allocating at once both
 * allocate; the first to publish wins and the other frees its buffer. */
static void *merged(struct pair *p, size_t bytes)
{
	pthread_mutex_lock(&shim_lock);
	void *have = p->failed ? NULL : p->merged;
	bool failed = p->failed;
	pthread_mutex_unlock(&shim_lock);
	if (have || failed)
		return have;

	void *fresh = merged_alloc(bytes);
	pthread_mutex_lock(&shim_lock);
	void *extra = NULL;
	if (!fresh) {
		give_up(p, "the merged allocation failed");
		shim_count.fallbacks++;
	} else if (p->merged || p->failed) {
		extra = fresh;
	} else {
		p->merged = fresh;
		atomic_store(&merged_ptrs[p - shim_plan.pairs], fresh);
	}
	void *out = p->failed ? NULL : p->merged;
	pthread_mutex_unlock(&shim_lock);
	if (extra)
		merged_free(extra);
	if (!fresh)
		shim_say("pair %s: the merged allocation of %zu bytes failed; leaving the pair as written", p->id, bytes);
	return out;
}

struct pair *shim_alloc(bool host_side, bool pageable, const void *ret, const char *call, size_t bytes,
			void **out, bool *handled)
{
	*handled = false;
	/* A plan directory's deployment is chosen at the first allocation at one of their sites:
	 * then, if it serves pairs with the pinned strategy, this is a pool's allocation. */
	if (__builtin_expect(shim_choosing(), 0)) {
		if (!shim_site_in_dir(ret, call, bytes) || !shim_context_ok())
			return NULL;
		if (shim_pinning()) {
			if (host_side && pageable)
				*handled = (*out = shim_pinned_alloc(ret, call, bytes)) != NULL;
			return NULL;
		}
	}
	pthread_mutex_lock(&shim_lock);
	struct pair *p = match(host_side, ret, call, bytes);
	bool ok = p && (shim_plan.mode != MODE_DEPLOY || may_merge(p, host_side));
	pthread_mutex_unlock(&shim_lock);
	/* The context check and the merged allocation call the runtime: outside the lock. */
	if (!ok || !shim_context_ok())
		return NULL;
	if (shim_plan.mode == MODE_DEPLOY) {
		if ((*out = merged(p, bytes)) == NULL)
			return NULL;
		*handled = true;
	}
	pthread_mutex_lock(&shim_lock);
	if (shim_plan.mode == MODE_VALIDATE && host_side && pageable &&
	    (*out = shim_validate_host_buffer(bytes)) != NULL) {
		*handled = p->owned = true;
		p->host_ptr = *out;
	}
	if (*handled || shim_plan.mode == MODE_VALIDATE)
		*(host_side ? &p->host_taken : &p->device_taken) = true;
	pthread_mutex_unlock(&shim_lock);
	return shim_plan.mode == MODE_DEPLOY && !*handled ? NULL : p;
}

/* Validate mode: the pointer the program's own allocation returned for a side of p. */
void shim_allocated(struct pair *p, bool host_side, void *ptr)
{
	pthread_mutex_lock(&shim_lock);
	*(host_side ? &p->host_ptr : &p->dev_ptr) = ptr;
	pthread_mutex_unlock(&shim_lock);
}

/* The pair whose merged buffer starts at ptr, or NULL. Lock-free. */
struct pair *shim_merged_pair(const void *ptr)
{
	if (!ptr)
		return NULL;
	for (int i = 0; i < shim_plan.npairs; i++)
		if (atomic_load_explicit(&merged_ptrs[i], memory_order_acquire) == ptr)
			return &shim_plan.pairs[i];
	return NULL;
}

/* The index of the piece of p at offset (the whole buffer, or one of the plan's chunks);
 * -1 when p has none there. */
int shim_piece(const struct pair *p, uint64_t offset, size_t bytes)
{
	for (int i = 0; i <= p->nchunks; i++)
		if (p->chunk[i].offset == offset && p->chunk[i].bytes == bytes)
			return i;
	return -1;
}

/* The merged pair whose buffer holds a piece of n bytes at ptr, NULL if none. */
struct pair *shim_merged_piece(const void *ptr, size_t n)
{
	for (int i = 0; ptr && i < shim_plan.npairs; i++) {
		const char *m = atomic_load_explicit(&merged_ptrs[i], memory_order_acquire);
		if (m && (const char *)ptr >= m && (const char *)ptr < m + shim_plan.pairs[i].bytes &&
		    shim_piece(&shim_plan.pairs[i], (uint64_t)((const char *)ptr - m), n) >= 0)
			return &shim_plan.pairs[i];
	}
	return NULL;
}

/* A free of one side of a merged buffer: true when handled (the caller must not free it).
 * The buffer itself goes once both sides are freed, with the deallocator that matches how
 * it was allocated. */
static bool free_side(bool host_side, void *ptr)
{
	if (shim_plan.mode == MODE_VALIDATE)
		return host_side && shim_validate_free(ptr);
	struct pair *p = shim_merged_pair(ptr);
	if (!p)
		return false;
	pthread_mutex_lock(&shim_lock);
	bool taken = host_side ? p->host_taken : p->device_taken;
	if (taken)
		*(host_side ? &p->host_freed : &p->device_freed) = true;
	/* A side that was never handed the merged buffer cannot free it: if it does, the
	 * program is not the one planned; the free goes ahead as written. */
	void *release = NULL;
	if (taken && (p->host_freed || !p->host_taken) && (p->device_freed || !p->device_taken)) {
		atomic_store(&merged_ptrs[p - shim_plan.pairs], NULL);
		release = p->merged;
		p->merged = NULL;
		shim_count.freed++;
	}
	pthread_mutex_unlock(&shim_lock);
	if (release)
		merged_free(release); /* calls the runtime: outside the lock, like the allocation */
	return taken;
}

/* The program frees ptr: a merged buffer's side (or a buffer validate mode made) is released
 * through the pair, never by the allocator that would have owned it. False: free as written. */
bool shim_release(bool host_side, void *ptr)
{
	if (__builtin_expect(!ptr || !shim_active(), 1))
		return false;
	if (shim_plan.mode == MODE_VALIDATE ? !shim_validate_watched(ptr) : !shim_merged_pair(ptr))
		return false;
	if (!shim_enter())
		return false;
	bool handled = free_side(host_side, ptr);
	shim_leave();
	return handled;
}
