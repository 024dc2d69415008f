/*
 * Matching allocations to the plan's pairs, handing out merged buffers, and releasing them
 * once both sides are freed. Everything here runs under shim_lock, and only for calls whose
 * size a pair names.
 */
#include <stdatomic.h>
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

static int next_ordinal(const struct site *s)
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
	}
}

/*
 * An allocation of bytes from the call site ret: the merged buffer when it is one side of a
 * planned pair (allocating it if the other side has not yet), with *handled set; otherwise
 * *handled is false and the caller allocates as the program asked.
 */
void *shim_alloc(bool host_side, const void *ret, const char *call, size_t bytes, bool *handled)
{
	*handled = false;
	pthread_mutex_lock(&shim_lock);
	struct site s;
	shim_site_of(ret, call, bytes, &s);
	s.ordinal = next_ordinal(&s);
	struct pair *p = NULL;
	for (int i = 0; i < shim_plan.npairs && !p; i++) {
		struct pair *c = &shim_plan.pairs[i];
		const struct site *want = host_side ? &c->host : &c->device;
		if (!c->failed && shim_site_equal(want, &s) && want->ordinal == s.ordinal)
			p = c;
	}
	void *out = NULL;
	if (p && (host_side ? p->host_taken : p->device_taken)) {
		/* a side allocated twice: not the program the plan saw */
		shim_say("pair %s: its %s side was allocated again; leaving it as written", p->id,
			 host_side ? "host" : "device");
		p = NULL;
	}
	if (p && !shim_context_ok())
		p = NULL;
	if (p && !p->merged) {
		p->merged = merged_alloc(bytes);
		if (!p->merged) {
			p->failed = true;
			shim_count.fallbacks++;
			shim_say("pair %s: the merged allocation of %zu bytes failed; leaving the pair as written", p->id, bytes);
			p = NULL;
		} else {
			atomic_store(&merged_ptrs[p - shim_plan.pairs], p->merged);
			shim_count.merged++;
		}
	}
	if (p) {
		*(host_side ? &p->host_taken : &p->device_taken) = true;
		*handled = true;
		out = p->merged;
	}
	pthread_mutex_unlock(&shim_lock);
	return out;
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

/* A free of one side of a merged buffer: true when handled (the caller must not free it).
 * The buffer itself goes once both sides are freed, with the deallocator that matches how
 * it was allocated. */
bool shim_free(bool host_side, void *ptr)
{
	struct pair *p = shim_merged_pair(ptr);
	if (!p)
		return false;
	pthread_mutex_lock(&shim_lock);
	bool taken = host_side ? p->host_taken : p->device_taken;
	if (taken)
		*(host_side ? &p->host_freed : &p->device_freed) = true;
	/* A side that was never handed the merged buffer cannot free it: if it does, the
	 * program is not the one planned; the free goes ahead as written. */
	if (taken && (p->host_freed || !p->host_taken) && (p->device_freed || !p->device_taken)) {
		atomic_store(&merged_ptrs[p - shim_plan.pairs], NULL);
		merged_free(p->merged);
		p->merged = NULL;
		shim_count.freed++;
	}
	pthread_mutex_unlock(&shim_lock);
	return taken;
}
