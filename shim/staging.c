/*
 * A framework's staging, seen in-process (issue 44; planner/staging.go). CuPy, given a
 * pageable NumPy array to copy to the device, copies it on the CPU into a page-locked buffer
 * of its own (memmove: NumPy's contiguous assignment) and copies that to the device; other
 * frameworks empty a page-locked buffer into the program's array after a copy from the
 * device (memcpy). A plan names such a pair by the framework's buffer, and marks it staged;
 * the resolve run finds the program's buffer behind it here. The shim exports memcpy and
 * memmove, so the program's calls reach them first (the C library's internal ones do not:
 * they are no concern of the program's); a copy of a staged pair's size is timed and noted,
 * and the pair's linking copy names the buffer the last copy into the framework's came from
 * (h2d, resolve.c), or the next copy out of it goes to (d2h, shim_resolve_staged_out).
 *
 * Everywhere else (another mode, another size, a copy made inside a hook) the call goes
 * straight to the C library's copy for one load and one compare. The C library's own entry
 * points are its checked twins, __memcpy_chk and __memmove_chk, called with an unknown
 * destination size (they then check nothing): names the shim does not define, so it never
 * calls itself, and nothing to look up before the first call, which may come before the
 * shim's constructor. A uprobe on the C library's memcpy would trap on every copy of the
 * process whatever its program then filtered (76 049 copies to start python3, which took 3.6 s
 * instead of 0.43 on the development VM: bench/memcpy_probe.sh); in-process the filter is the
 * cost.
 */
#include <stdatomic.h>
#include <string.h>

#include "shim.h"

#define RET __builtin_extract_return_addr(__builtin_return_address(0))
#define MAX_RECORDS 16
#define MAX_SIZES 8

extern void *libc_memcpy_chk(void *, const void *, size_t, size_t) __asm__("__memcpy_chk");
extern void *libc_memmove_chk(void *, const void *, size_t, size_t) __asm__("__memmove_chk");

/* The sizes of the staged pairs, set once before the program runs: 0 of them, and every copy
 * passes straight through. */
static size_t sizes[MAX_SIZES];
static int nsizes;

void shim_staging_init(void)
{
	for (int i = 0; i < shim_plan.npairs; i++) {
		const struct pair *p = &shim_plan.pairs[i];
		bool known = false;
		for (int j = 0; j < nsizes; j++)
			known |= sizes[j] == p->bytes;
		if (p->staged && !known && nsizes < MAX_SIZES)
			sizes[nsizes++] = p->bytes;
	}
}

static bool staged_size(size_t n)
{
	for (int i = 0; i < nsizes; i++)
		if (sizes[i] == n)
			return true;
	return false;
}

/* The last copies of a staged size into each buffer, for the linking copy that reads it
 * (shim_staging_take). Guarded by shim_lock. */
static struct record {
	const void *dst, *src, *ret;
	const char *call;
	uint64_t ns;
	bool live;
} records[MAX_RECORDS];
static unsigned next_record;

static void note(const void *ret, const char *call, const void *dst, const void *src, size_t n, uint64_t ns)
{
	(void)n;
	struct record *r = NULL;
	for (int i = 0; i < MAX_RECORDS && !r; i++)
		if (records[i].live && records[i].dst == dst)
			r = &records[i]; /* a later copy into the same buffer replaces the earlier */
	if (!r)
		r = &records[next_record++ % MAX_RECORDS];
	*r = (struct record){dst, src, ret, call, ns, true};
}

bool shim_staging_take(const void *buf, struct shim_staged *out)
{
	for (int i = 0; i < MAX_RECORDS; i++)
		if (records[i].live && records[i].dst == buf) {
			records[i].live = false;
			*out = (struct shim_staged){records[i].src, records[i].ret, records[i].call, records[i].ns};
			return true;
		}
	return false;
}

/* A copy of a staged pair's size: made, timed, and noted, unless a hook made it. */
static void *staged(const void *ret, const char *call, void *dst, const void *src, size_t n, bool move)
{
	if (!shim_enter())
		return move ? libc_memmove_chk(dst, src, n, (size_t)-1) : libc_memcpy_chk(dst, src, n, (size_t)-1);
	uint64_t t0 = shim_uptime_ns();
	void *r = move ? libc_memmove_chk(dst, src, n, (size_t)-1) : libc_memcpy_chk(dst, src, n, (size_t)-1);
	uint64_t ns = shim_uptime_ns() - t0;
	pthread_mutex_lock(&shim_lock);
	if (!shim_resolve_staged_out(ret, call, dst, src, n, ns))
		note(ret, call, dst, src, n, ns);
	pthread_mutex_unlock(&shim_lock);
	shim_leave();
	return r;
}

SHIM_API void *memcpy(void *dst, const void *src, size_t n)
{
	if (__builtin_expect(nsizes != 0, 0) && staged_size(n) && shim_resolving())
		return staged(RET, "memcpy", dst, src, n, false);
	return libc_memcpy_chk(dst, src, n, (size_t)-1);
}

SHIM_API void *memmove(void *dst, const void *src, size_t n)
{
	if (__builtin_expect(nsizes != 0, 0) && staged_size(n) && shim_resolving())
		return staged(RET, "memmove", dst, src, n, true);
	return libc_memmove_chk(dst, src, n, (size_t)-1);
}
