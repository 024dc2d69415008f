/*
 * Resolve mode: where the buffers a plan knows only by pointer and size were allocated. A
 * trace without the host allocators (the default: their probes were the whole cost of
 * tracing an interpreter), or one attached to a running process, names a pair's buffers by
 * the pointers its copies passed. In-process, an allocation costs the shim a few
 * nanoseconds: it notes each allocation of a size some pair has, with its site and ordinal,
 * and each linking copy then names the allocation its pointers start. The report says, per
 * side, the site of the first buffer linked, how many distinct allocations were linked (more
 * than one: a fresh buffer every iteration), whether another site's were too, and how many
 * copies pointed at no allocation of the pair's size (a block inside a larger one, static
 * or stack memory); per site, how many allocations it made in all; and per linking-copy
 * site, how many of its copies were made with GPU work outstanding (busy.c), and how long
 * each took alone: the hooks drain the device before it and wait for it after, so the time
 * is its transfer, none of the earlier work's nor another stream's beside it (a trace
 * without launch events cannot tell the two apart); the time each iteration spent outside
 * them goes to the report (untimed_ns), and how much of that the drains before asynchronous
 * ones waited (drained_ns): the program's own iteration does not wait there. A chunk of a pair is timed at its copy site like a
 * whole-buffer copy, but links no buffer: its pointers are inside them. Draining orders
 * nothing the program's results depend on; it is left out once the program has enqueued a
 * host function, which might wait for this thread.
 */
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim.h"

#define MAX_LIVE 256
#define MAX_SITES 64

/* The sites of allocations of planned sizes, how many allocations each made (whatever
 * their ordinal: the pinned strategy's pool serves them all), whether more than one
 * thread allocated there (then which call is which depends on how the threads interleave,
 * and an ordinal names no buffer), and how many of a host site's allocations after its
 * first came back with most of their pages not in memory: the program faults those in
 * anew, which a pool's buffers, faulted in once, spare it (malloc hands a buffer freed and
 * asked for again fresh pages where it gave the memory back at free: a mapping of its own,
 * or the top of a heap it trimmed). */
static struct {
	struct site site; /* ordinal unused */
	pid_t tid;
	bool several;
	unsigned long allocations, fresh;
} sites[MAX_SITES];
static int nsites;

/* The index of site s in sites, or -1. Caller holds the lock. */
static int site_index(const struct site *s)
{
	for (int i = 0; i < nsites; i++)
		if (shim_site_equal(&sites[i].site, s))
			return i;
	return -1;
}

/* Whether most of the pages of [ptr, ptr+bytes) are not in memory (mincore): the program's
 * first touch of each will fault it in. */
static bool pages_fresh(const void *ptr, size_t bytes)
{
	static _Thread_local unsigned char vec[4096];
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = (uintptr_t)ptr & ~(uintptr_t)(page - 1), end = (uintptr_t)ptr + bytes;
	size_t pages = 0, absent = 0;
	for (uintptr_t at = start; at < end; at += sizeof vec * page) {
		size_t len = end - at < sizeof vec * page ? end - at : sizeof vec * page;
		if (mincore((void *)at, len, vec) != 0)
			return false;
		for (size_t i = 0; i < (len + page - 1) / page; i++, pages++)
			absent += !(vec[i] & 1);
	}
	return 2 * absent > pages;
}

/* Caller holds the lock. */
static void note_site(const struct site *s, bool fresh)
{
	pid_t tid = (pid_t)syscall(SYS_gettid);
	int i = site_index(s);
	if (i >= 0) {
		sites[i].several |= sites[i].tid != tid;
		sites[i].allocations++;
		sites[i].fresh += fresh;
		return;
	}
	if (nsites < MAX_SITES) {
		sites[nsites].site = *s;
		sites[nsites].tid = tid;
		sites[nsites].allocations = 1;
		sites[nsites].fresh = 0;
		sites[nsites++].several = false;
	}
}

unsigned long shim_resolve_site_allocations(const struct site *s, unsigned long *fresh)
{
	pthread_mutex_lock(&shim_lock);
	int i = site_index(s);
	unsigned long n = i >= 0 ? sites[i].allocations : 0;
	*fresh = i >= 0 ? sites[i].fresh : 0;
	pthread_mutex_unlock(&shim_lock);
	return n;
}

bool shim_resolve_threads(const struct site *s)
{
	pthread_mutex_lock(&shim_lock);
	int i = site_index(s);
	bool several = i >= 0 && sites[i].several;
	pthread_mutex_unlock(&shim_lock);
	return several;
}

/* The live allocations of planned sizes. */
static struct live {
	const void *ptr;
	bool host;
	struct site site; /* with its ordinal */
	struct identity ident; /* its call chain, and its ordinal among that chain's calls */
	unsigned long serial;
} live[MAX_LIVE];
static int nlive;
static unsigned long serials;

/* Caller holds the lock. */
static struct live *find(const void *ptr)
{
	for (int i = 0; i < nlive; i++)
		if (live[i].ptr == ptr)
			return &live[i];
	return NULL;
}

void shim_resolve_alloc(bool host_side, const void *ret, const char *call, size_t bytes, void *ptr)
{
	if (!ptr || !shim_size_planned(bytes) || !shim_enter())
		return;
	bool fresh = host_side && pages_fresh(ptr, bytes); /* before the program touches it */
	pthread_mutex_lock(&shim_lock);
	struct live *l = find(ptr); /* its free went unseen: the slot is the new buffer's */
	if (!l && nlive < MAX_LIVE)
		l = &live[nlive++];
	if (!l) /* full: the oldest slot goes; its buffer's copies will count as unmatched */
		l = &live[serials % MAX_LIVE];
	l->ptr = ptr;
	l->host = host_side;
	shim_site_of(ret, call, bytes, &l->site);
	l->site.ordinal = shim_next_ordinal(&l->site);
	note_site(&l->site, fresh);
	/* Its chain names it where several threads allocate at the site (chain.c). */
	struct identity *id = &l->ident;
	id->nchain = shim_chain_of(ret, id->chain);
	id->class_id = shim_chain_class(&l->site, id->nchain, id->chain, &id->ordinal);
	id->known = id->class_id >= 0 && id->nchain > 0;
	l->serial = ++serials;
	pthread_mutex_unlock(&shim_lock);
	shim_leave();
}

void shim_resolve_free(void *ptr)
{
	if (!ptr || !__atomic_load_n(&nlive, __ATOMIC_RELAXED) || !shim_enter())
		return;
	pthread_mutex_lock(&shim_lock);
	struct live *l = find(ptr);
	if (l)
		*l = live[--nlive];
	pthread_mutex_unlock(&shim_lock);
	shim_leave();
}

/* One side's pointer of one linking copy. Caller holds the lock. */
static void link_side(struct resolved *r, const void *ptr, bool host_side)
{
	struct live *l = find(ptr);
	if (!l || l->host != host_side) {
		r->unmatched++;
		return;
	}
	if (!r->found) {
		r->found = true;
		r->site = l->site;
		r->ident = l->ident;
		/* filled by now: a program that asks for huge pages (madvise) has asked */
		r->thp = host_side ? shim_thp_eligible(ptr) : -1;
	} else if (!shim_site_equal(&r->site, &l->site)) {
		r->other_sites = true;
	}
	if (l->serial != r->last) {
		r->allocations++;
		r->last = l->serial;
	}
}

/* A staging copy of the program's buffer user, found for staged pair p. Caller holds the lock. */
static void staged_by(struct pair *p, const void *user, const void *ret, const char *call, uint64_t ns)
{
	link_side(&p->resolved[0], user, true);
	if (!p->stage_copies++)
		shim_site_of(ret, call, p->bytes, &p->stage_site);
	p->stage_ns += ns;
}

bool shim_resolve_staged_out(const void *ret, const char *call, const void *dst, const void *src, size_t n,
			     uint64_t ns)
{
	bool linked = false;
	for (int i = 0; i < shim_plan.npairs; i++) {
		struct pair *p = &shim_plan.pairs[i];
		if (p->staged && p->stage_from == src && p->bytes == n) {
			staged_by(p, dst, ret, call, ns);
			p->stage_from = NULL;
			linked = true;
		}
	}
	return linked;
}

/* Which of p's linking-copy sites s is, or -1. */
static int copy_index(const struct pair *p, const struct site *s)
{
	for (int c = 0; c < p->ncopies; c++)
		if (shim_site_equal(&p->copy_sites[c], s))
			return c;
	return -1;
}

/* Whether a copy of n bytes may be a linking copy: a pair's size, or a chunk's. */
static bool copy_size_planned(size_t n)
{
	for (int i = 0; i < shim_plan.npairs; i++) {
		const struct pair *p = &shim_plan.pairs[i];
		if (p->bytes == n)
			return true;
		for (int c = 0; c < p->ncopies; c++)
			if (p->copy_sites[c].bytes == n)
				return true;
	}
	return false;
}

bool shim_resolve_copy(const void *ret, const char *call, const void *dst, const void *src, size_t n,
		       struct site *linked)
{
	if (!copy_size_planned(n) || !shim_enter())
		return false;
	bool linking = false;
	pthread_mutex_lock(&shim_lock);
	shim_site_of(ret, call, n, linked);
	bool busy = shim_busy();
	struct shim_staged staging;
	int took = -1; /* the staging copy into this copy's host buffer: not looked for, none, found */
	for (int i = 0; i < shim_plan.npairs; i++) {
		struct pair *p = &shim_plan.pairs[i];
		int c = copy_index(p, linked);
		if (c < 0)
			continue;
		bool h2d = p->copy_h2d[c];
		const void *host = h2d ? src : dst;
		if (n == p->bytes && p->staged && h2d) {
			/* the program's buffer is the one the framework's was last filled from: every
			 * pair at this site takes that one copy */
			if (took < 0)
				took = shim_staging_take(host, &staging);
			if (took)
				staged_by(p, staging.src, staging.ret, staging.call, staging.ns);
			else
				p->stage_missing++;
		} else if (n == p->bytes && p->staged) {
			if (p->stage_from) /* the last one was never copied out */
				p->stage_missing++;
			p->stage_from = host;
		} else if (n == p->bytes) { /* a chunk's pointers are inside the buffers: timed, not linked */
			link_side(&p->resolved[0], host, true);
		}
		if (n == p->bytes)
			link_side(&p->resolved[1], h2d ? dst : src, false);
		p->copies++;
		linking = true;
		if (busy)
			p->copy_busy[c]++;
		else
			p->copy_clean[c]++;
	}
	pthread_mutex_unlock(&shim_lock);
	shim_leave();
	return linking;
}

void shim_resolve_timed(const struct site *linked, uint64_t ns)
{
	pthread_mutex_lock(&shim_lock);
	for (int i = 0; i < shim_plan.npairs; i++) {
		struct pair *p = &shim_plan.pairs[i];
		int c = copy_index(p, linked);
		if (c < 0)
			continue;
		if (!p->copy_timed[c]++)
			p->copy_first_ns[c] = ns;
		p->copy_ns[c] += ns;
	}
	pthread_mutex_unlock(&shim_lock);
	shim_report_timed(ns);
}
