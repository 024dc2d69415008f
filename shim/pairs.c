/*
 * Matching allocations to the plan's pairs, only for calls whose size a pair names, and
 * handing the planned sides the shim's buffers (bind.c). The pair table is read and changed
 * under shim_lock; calls into the runtime are made without it.
 */
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

/* The pair side planned for an allocation of bytes from ret, if any. A slot that names a
 * call chain is matched by it and by the ordinal among that chain's calls; one without, by
 * the ordinal among every call of the size at the site. Validate mode reads the chain of the
 * allocation that takes a slot, and counts that chain's calls, for the plan (chain.c).
 * Caller holds the lock. */
static struct pair *match(bool host_side, const void *ret, const char *call, size_t bytes)
{
	struct site s;
	shim_site_of(ret, call, bytes, &s);
	s.ordinal = shim_next_ordinal(&s);
	struct frame chain[SHIM_CHAIN];
	int nchain = -1, class_id = -1, class_ordinal = -1; /* -1: not read yet */
	for (int i = 0; i < shim_plan.npairs; i++) {
		struct pair *c = &shim_plan.pairs[i];
		const struct site *want = host_side ? &c->host : &c->device;
		if (c->failed || !shim_site_equal(want, &s))
			continue;
		c->seen[!host_side].calls++; /* the planned site and size, if not yet the planned call */
		if ((want->nchain || shim_plan.mode == MODE_VALIDATE) && nchain < 0) {
			nchain = shim_chain_of(ret, chain);
			class_id = shim_chain_class(&s, nchain, chain, &class_ordinal);
		}
		if (want->nchain ? !shim_chain_equal(want, nchain, chain) || want->ordinal != class_ordinal
				 : want->ordinal != s.ordinal)
			continue;
		if (host_side ? c->host_taken : c->device_taken) {
			/* a side allocated twice: not the program the plan saw */
			shim_say("pair %s: its %s side was allocated again; leaving it as written", c->id,
				 host_side ? "host" : "device");
			return NULL;
		}
		if (shim_plan.mode == MODE_VALIDATE)
			c->validate.ident[!host_side] = (struct identity){.known = nchain > 0 && class_id >= 0, .nchain = nchain,
								 .ordinal = class_ordinal, .class_id = class_id};
		if (shim_plan.mode == MODE_VALIDATE && nchain > 0)
			memcpy(c->validate.ident[!host_side].chain, chain, nchain * sizeof *chain);
		return c;
	}
	return NULL;
}

/* Gives up merging p in this run; the first reason is the one reported. Caller holds the lock. */
void shim_give_up(struct pair *p, const char *why)
{
	p->failed = true;
	if (!p->note[0])
		snprintf(p->note, sizeof p->note, "%s", why);
}

/* Deploy mode: whether the side may have the shim's buffer. The device side may only once the
 * host side holds one: a device side served alone would put the program's device buffer in
 * host-reachable memory with no copy removed, slower and for nothing (a run with other
 * arguments, another host allocator). Caller holds the lock. */
static bool may_merge(struct pair *p, bool host_side)
{
	if (host_side)
		return true;
	if (p->host_taken && !p->host_freed)
		return true;
	shim_give_up(p, p->host_freed ? "its host side was freed before its device side was allocated"
				 : "its device side was allocated while its host side was not (not at its planned site, "
				   "or later): the host side is served first");
	return false;
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
	/* The context check and the shim's buffers call the runtime: outside the lock. */
	if (!ok || !shim_context_ok())
		return NULL;
	if (shim_plan.mode == MODE_DEPLOY) {
		uint64_t t0 = shim_uptime_ns();
		*out = host_side ? shim_host_buffer(p, call) : shim_device_buffer(p);
		shim_setup_since(t0);
		if (*out == NULL)
			return NULL;
		*handled = true;
	}
	pthread_mutex_lock(&shim_lock);
	if (shim_plan.mode == MODE_VALIDATE && host_side && pageable &&
	    (*out = shim_validate_host_buffer(bytes)) != NULL) {
		*handled = p->validate.owned = true;
		p->validate.host_ptr = *out;
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
	*(host_side ? &p->validate.host_ptr : &p->validate.dev_ptr) = ptr;
	pthread_mutex_unlock(&shim_lock);
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

/* The program frees ptr: a side's buffer of the shim's (or a buffer validate mode made) goes
 * back to the shim, never to the allocator that would have owned it. False: free as written. */
bool shim_release(bool host_side, void *ptr)
{
	if (__builtin_expect(!ptr || !shim_active(), 1))
		return false;
	if (shim_plan.mode == MODE_VALIDATE) {
		if (!host_side || !shim_validate_watched(ptr) || !shim_enter())
			return false;
		bool owned = shim_validate_free(ptr);
		shim_leave();
		return owned;
	}
	bool is_host;
	struct pair *p = shim_pair_buffer(ptr, &is_host);
	/* A side freed by the other side's deallocator is not the program the plan saw: as written. */
	if (!p || is_host != host_side || !shim_enter())
		return false;
	bool handled = shim_free_buffer(p, host_side);
	shim_leave();
	return handled;
}
