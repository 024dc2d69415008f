/*
 * The host allocators. The passthrough path is one check of a thread-local flag and a scan
 * of the (few) planned sizes, then glibc's own entry points; a planned size from a planned
 * site gets the shim's buffer for the pair's host side (bind.c).
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

/* The shim's buffer for a host allocation of bytes from ret (merged, pinned, or in validate
 * mode one it can protect), or NULL to allocate as asked. */
static void *planned(const void *ret, const char *call, size_t bytes)
{
	if (__builtin_expect(!shim_active(), 1))
		return NULL;
	if (__builtin_expect(!shim_size_planned(bytes), 1)) {
		shim_sighted(true, ret, bytes);
		return NULL;
	}
	if (shim_resolving() || !shim_enter())
		return NULL;
	bool handled = false;
	void *p = NULL;
	if (shim_pinning())
		handled = (p = shim_pinned_alloc(ret, call, bytes)) != NULL;
	else
		shim_alloc(true, true, ret, call, bytes, &p, &handled);
	shim_leave();
	return handled ? p : NULL;
}

/* An allocation made as written: resolve mode notes where it came from, and the pinned
 * strategy one its pool could not serve. */
static void *noted(const void *ret, const char *call, size_t bytes, void *p)
{
	if (__builtin_expect(shim_resolving(), 0))
		shim_resolve_alloc(true, ret, call, bytes, p);
	shim_pinned_fell(p);
	return p;
}

SHIM_API void *malloc(size_t n)
{
	void *p = planned(RET, "malloc", n);
	return p ? p : noted(RET, "malloc", n, __libc_malloc(n));
}

SHIM_API void *calloc(size_t n, size_t size)
{
	size_t bytes;
	if (__builtin_mul_overflow(n, size, &bytes))
		return __libc_calloc(n, size);
	void *p = planned(RET, "calloc", bytes);
	if (!p)
		return noted(RET, "calloc", bytes, __libc_calloc(n, size));
	memset(p, 0, bytes);
	return p;
}

SHIM_API int posix_memalign(void **out, size_t alignment, size_t n)
{
	/* merged and pinned buffers are page-aligned, which satisfies any alignment a program
	 * asks for up to a page */
	void *p = alignment <= 4096 ? planned(RET, "posix_memalign", n) : NULL;
	if (p) {
		*out = p;
		return 0;
	}
	if (alignment < sizeof(void *) || (alignment & (alignment - 1))) {
		shim_pinned_fell(NULL); /* nothing was allocated after all */
		return EINVAL;
	}
	p = __libc_memalign(alignment, n);
	if (!p) {
		shim_pinned_fell(NULL);
		return ENOMEM;
	}
	*out = noted(RET, "posix_memalign", n, p);
	return 0;
}

SHIM_API void *aligned_alloc(size_t alignment, size_t n)
{
	void *p = alignment <= 4096 ? planned(RET, "aligned_alloc", n) : NULL;
	return p ? p : noted(RET, "aligned_alloc", n, __libc_memalign(alignment, n));
}

/* A host buffer the program frees: the shim's own (merged, validated, pinned) go back to it. */
static bool released(void *p)
{
	if (__builtin_expect(shim_resolving(), 0))
		shim_resolve_free(p);
	shim_pinned_forget(p);
	if (__builtin_expect(__atomic_load_n(&shim_pinned_buffers, __ATOMIC_RELAXED) != 0, 0) && shim_pinned_free(p))
		return true;
	return shim_release(true, p);
}

SHIM_API void free(void *p)
{
	if (!released(p))
		__libc_free(p);
}

SHIM_API void *realloc(void *p, size_t n)
{
	bool host_side = false;
	struct pair *pair = shim_pair_buffer(p, &host_side);
	if (pair && !host_side)
		pair = NULL; /* a device side's buffer: not the C library's, as written */
	size_t pinned = pair ? 0 : shim_pinned_size(p);
	if (__builtin_expect(!pair && !pinned, 1)) {
		if (__builtin_expect(shim_resolving(), 0))
			shim_resolve_free(p);
		shim_pinned_forget(p);
		return __libc_realloc(p, n);
	}
	/* The program resizes the shim's buffer: give it ordinary memory with the contents. */
	size_t have = pair ? pair->bytes : pinned;
	void *q = __libc_malloc(n);
	if (!q)
		return NULL;
	memcpy(q, p, n < have ? n : have);
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
	return noted(RET, "operatornew[]", n, SHIM_CALL(real.new_array, __libc_malloc(n), (n)));
}

SHIM_API void _ZdaPv(void *p)
{
	if (released(p))
		return;
	shim_resolve();
	SHIM_CALL(real.delete_array, __libc_free(p), (p));
}

SHIM_API void _ZdaPvm(void *p, size_t n)
{
	if (released(p))
		return;
	shim_resolve();
	SHIM_CALL(real.delete_array_sized, __libc_free(p), (p, n));
}
