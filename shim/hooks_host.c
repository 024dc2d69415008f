/*
 * The host allocators. The passthrough path is one check of a thread-local flag and a scan
 * of the (few) planned sizes, then glibc's own entry points; a planned size from a planned
 * site gets the pair's merged buffer.
 */
#include <errno.h>
#include <string.h>

#include "shim.h"

void *__libc_malloc(size_t);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);
void *__libc_memalign(size_t, size_t);
void __libc_free(void *);

#define RET __builtin_extract_return_addr(__builtin_return_address(0))

/* The shim's buffer for a host allocation of bytes from ret (merged, or in validate mode
 * one it can protect), or NULL to allocate as asked. */
static void *planned(const void *ret, const char *call, size_t bytes)
{
	if (__builtin_expect(!shim_active(), 1))
		return NULL;
	if (__builtin_expect(!shim_size_planned(bytes), 1)) {
		shim_sighted(true, ret, bytes);
		return NULL;
	}
	if (!shim_enter())
		return NULL;
	bool handled;
	void *p = NULL;
	shim_alloc(true, true, ret, call, bytes, &p, &handled);
	shim_leave();
	return handled ? p : NULL;
}

SHIM_API void *malloc(size_t n)
{
	void *p = planned(RET, "malloc", n);
	return p ? p : __libc_malloc(n);
}

SHIM_API void *calloc(size_t n, size_t size)
{
	size_t bytes;
	if (__builtin_mul_overflow(n, size, &bytes))
		return __libc_calloc(n, size);
	void *p = planned(RET, "calloc", bytes);
	if (!p)
		return __libc_calloc(n, size);
	memset(p, 0, bytes);
	return p;
}

SHIM_API int posix_memalign(void **out, size_t alignment, size_t n)
{
	/* merged buffers are page-aligned, which satisfies any alignment a program asks for */
	void *p = alignment <= 4096 ? planned(RET, "posix_memalign", n) : NULL;
	if (p) {
		*out = p;
		return 0;
	}
	if (alignment < sizeof(void *) || (alignment & (alignment - 1)))
		return EINVAL;
	p = __libc_memalign(alignment, n);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

SHIM_API void *aligned_alloc(size_t alignment, size_t n)
{
	void *p = alignment <= 4096 ? planned(RET, "aligned_alloc", n) : NULL;
	return p ? p : __libc_memalign(alignment, n);
}

SHIM_API void free(void *p)
{
	if (!shim_release(true, p))
		__libc_free(p);
}

SHIM_API void *realloc(void *p, size_t n)
{
	struct pair *pair = shim_merged_pair(p);
	if (__builtin_expect(!pair, 1))
		return __libc_realloc(p, n);
	/* The program resizes a merged buffer: give it ordinary memory with the contents. */
	void *q = __libc_malloc(n);
	if (!q)
		return NULL;
	memcpy(q, p, n < pair->bytes ? n : pair->bytes);
	free(p);
	return q;
}

/* operator new[] and delete[] (Itanium C++ ABI names). */
SHIM_API void *_Znam(size_t n)
{
	void *p = planned(RET, "operatornew[]", n);
	if (p)
		return p;
	shim_resolve();
	return real.new_array ? real.new_array(n) : __libc_malloc(n);
}

SHIM_API void _ZdaPv(void *p)
{
	if (shim_release(true, p))
		return;
	shim_resolve();
	if (real.delete_array)
		real.delete_array(p);
	else
		__libc_free(p);
}

SHIM_API void _ZdaPvm(void *p, size_t n)
{
	if (shim_release(true, p))
		return;
	shim_resolve();
	if (real.delete_array_sized)
		real.delete_array_sized(p, n);
	else
		__libc_free(p);
}
