/*
 * Call chains. A program that allocates through one helper (alloc_or_die, a framework's
 * allocator) makes every buffer at one site; the ordinal among the calls there then tells
 * them apart only as long as every run allocates the same buffers in the same order, and a
 * run with one more option shifts it. The return addresses above the helper's (who called
 * it, and who called that) do not shift: a planned slot names them, and its ordinal counts
 * only the calls from the same chain.
 *
 * The chain is also what names a buffer where several threads allocate at one site (a data
 * loader's threads and the training loop through one helper): the calls of the site
 * interleave as the threads run, but each chain's may not, and a class (site, size, chain)
 * that one thread alone calls numbers its buffers the same in every run. Each class keeps
 * whether more than one thread called it.
 *
 * The chain is read by unwinding the stack with the unwind tables (.eh_frame), which every
 * x86-64 and arm64 object has, frame pointers or not; the unwinder is libgcc's, linked into
 * the shim statically (-static-libgcc) so no library is opened in an allocation hook. It runs
 * only for allocations of a planned size at a planned site.
 */
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <unwind.h>

#include "shim.h"

#define MAX_CLASSES 64
#define MAX_DEPTH 32 /* frames searched for the allocation's own return address */

struct walk {
	uintptr_t ret; /* the allocation's return address: the chain starts above it */
	bool found;
	int depth, n;
	uintptr_t at[SHIM_CHAIN];
};

static _Unwind_Reason_Code step(struct _Unwind_Context *ctx, void *data)
{
	struct walk *w = data;
	uintptr_t ip = _Unwind_GetIP(ctx);
	if (++w->depth > MAX_DEPTH || ip == 0)
		return _URC_END_OF_STACK;
	if (!w->found) {
		w->found = ip == w->ret;
		return _URC_NO_REASON;
	}
	w->at[w->n++] = ip;
	return w->n == SHIM_CHAIN ? _URC_END_OF_STACK : _URC_NO_REASON;
}

/* The first unwind initialises libgcc's tables; done at start, not in an allocation. */
void shim_chain_init(void)
{
	struct frame f[SHIM_CHAIN];
	pthread_mutex_lock(&shim_lock);
	shim_chain_of(__builtin_return_address(0), f);
	pthread_mutex_unlock(&shim_lock);
}

/* The frames above the one that returns to ret, as module and offset, into out; how many
 * (0 when ret is not on the stack: a tail call, or unwind tables missing). Caller holds
 * shim_lock (the module cache). */
int shim_chain_of(const void *ret, struct frame *out)
{
	struct walk w = {.ret = (uintptr_t)ret};
	_Unwind_Backtrace(step, &w);
	for (int i = 0; i < w.n; i++) {
		struct site s;
		shim_site_of((const void *)w.at[i], "", 0, &s);
		memcpy(out[i].module, s.module, sizeof out[i].module);
		out[i].offset = s.offset;
	}
	return w.n;
}

bool shim_chain_equal(const struct site *a, int n, const struct frame *f)
{
	if (a->nchain != n)
		return false;
	for (int i = 0; i < n; i++)
		if (a->chain[i].offset != f[i].offset || strcmp(a->chain[i].module, f[i].module) != 0)
			return false;
	return true;
}

/* Calls so far from each (site, size, chain), and the thread that made them, or several. */
static struct {
	struct site site;
	int count;
	pid_t tid;
	bool several;
} classes[MAX_CLASSES];
static int nclasses;

/* The class of a call at s (its ordinal ignored) from chain f: its index, and in *ordinal
 * the calls from it before this one; -1 when the table is full. Caller holds shim_lock. */
int shim_chain_class(const struct site *s, int n, const struct frame *f, int *ordinal)
{
	pid_t tid = (pid_t)syscall(SYS_gettid);
	for (int i = 0; i < nclasses; i++)
		if (shim_site_equal(&classes[i].site, s) && shim_chain_equal(&classes[i].site, n, f)) {
			*ordinal = classes[i].count++;
			classes[i].several |= classes[i].tid != tid;
			return i;
		}
	if (nclasses == MAX_CLASSES)
		return -1;
	classes[nclasses].site = *s;
	classes[nclasses].site.nchain = n;
	memcpy(classes[nclasses].site.chain, f, n * sizeof *f);
	classes[nclasses].count = 1;
	classes[nclasses].tid = tid;
	classes[nclasses].several = false;
	*ordinal = 0;
	return nclasses++;
}

/* Whether more than one thread called from a class. Caller holds shim_lock. */
bool shim_chain_threads(int class_id)
{
	return class_id >= 0 && class_id < nclasses && classes[class_id].several;
}

/* Calls from a class so far. Caller holds shim_lock. */
int shim_chain_count(int class_id)
{
	return class_id >= 0 && class_id < nclasses ? classes[class_id].count : 0;
}
