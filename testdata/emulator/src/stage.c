/*
 * Executing a 1D copy. The real runtime cannot DMA from or to pageable memory: it copies a
 * pageable host side through a small pinned staging buffer, one chunk at a time (host chunk
 * -> staging -> device for H2D, device chunk -> staging -> host for D2H), so a pageable copy
 * moves every byte twice where a pinned one moves it once. Pricing both alike would make the
 * pinned strategy look worthless here, so the emulator stages the same way: each stream
 * worker owns one bounce buffer of EMU_STAGE_CHUNK bytes (2 MiB, a size in the range the
 * CUDA driver stages with), and a copy whose host side is pageable goes through it.
 */
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

#include "internal.h"
#include "private.h"

#define EMU_STAGE_CHUNK ((size_t)2 << 20)

/* What the selftest reads through emu_drv_copy_stats: the staged path is otherwise only
 * visible as time, which unit tests must not assert on. */
static atomic_ullong staged_copies, staged_chunks, staged_bytes;

/* mmap, not malloc: a tracer's host-allocator probes must see only the program's own
 * allocations, never a 2 MiB buffer of the runtime's. Populated up front so the first copy
 * does not also pay its page faults. */
static bool bounce_ready(struct emu_bounce *b)
{
	if (b->buf)
		return true;
	void *p = mmap(NULL, EMU_STAGE_CHUNK, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (p == MAP_FAILED)
		return false;
	b->buf = p;
	return true;
}

void emu_bounce_free(struct emu_bounce *b)
{
	if (b->buf)
		munmap(b->buf, EMU_STAGE_CHUNK);
	b->buf = NULL;
}

void emu_copy_run(struct emu_op *op, struct emu_bounce *b)
{
	char *dst = op->u.copy.dst;
	const char *src = op->u.copy.src;
	size_t count = op->u.copy.count;
	/* One delay per copy, however it is executed: the knob models the link, not the chunks. */
	if (op->u.copy.link && emu_knobs()->copy_delay_us)
		emu_sleep_us(emu_knobs()->copy_delay_us);
	/* Without a bounce buffer (mmap failed) the copy is still right, only priced as pinned. */
	if (!op->u.copy.staged || !bounce_ready(b)) {
		memcpy(dst, src, count);
		return;
	}
	unsigned long long chunks = 0;
	for (size_t off = 0; off < count; off += EMU_STAGE_CHUNK, chunks++) {
		size_t n = count - off < EMU_STAGE_CHUNK ? count - off : EMU_STAGE_CHUNK;
		memcpy(b->buf, src + off, n);
		memcpy(dst + off, b->buf, n);
	}
	atomic_fetch_add_explicit(&staged_copies, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&staged_chunks, chunks, memory_order_relaxed);
	atomic_fetch_add_explicit(&staged_bytes, count, memory_order_relaxed);
}

void emu_stage_stats(struct emu_drv_copy_stats *out)
{
	out->staged_copies = atomic_load_explicit(&staged_copies, memory_order_relaxed);
	out->staged_chunks = atomic_load_explicit(&staged_chunks, memory_order_relaxed);
	out->staged_bytes = atomic_load_explicit(&staged_bytes, memory_order_relaxed);
	out->chunk_bytes = EMU_STAGE_CHUNK;
}
