/* Shared state of the emulator: knobs, the allocation table, streams and their operations. */
#ifndef ECHO_EMU_INTERNAL_H
#define ECHO_EMU_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "cuda_emulator.h"
#include "cuda_runtime_api.h"

#define EMU_API __attribute__((visibility("default")))

/* knobs.c */
struct emu_knobs {
	unsigned long kernel_delay_us;
	double managed_slowdown;
	double host_slowdown;
	size_t mem_limit; /* 0: none */
	unsigned long fail_alloc; /* the n-th runtime allocation fails (1-based); 0: none */
	int device_count;
	char device_name[256];
	int cc_major, cc_minor;
	int driver_version;
	int integrated;
	int pageable_access;
	int concurrent_managed;
};
const struct emu_knobs *emu_knobs(void);

/* errors.c: every failing call goes through emu_fail so cudaGetLastError sees it. */
cudaError_t emu_fail(cudaError_t err);
cudaError_t emu_ok(void); /* the common prologue: cudaErrorNoDevice when none is reported */

/* alloc.c */
enum emu_mem {
	EMU_MEM_PAGEABLE = 0, /* not known to the runtime */
	EMU_MEM_PINNED,	      /* cudaMallocHost / cudaHostAlloc */
	EMU_MEM_REGISTERED,   /* cudaHostRegister */
	EMU_MEM_DEVICE,	      /* cudaMalloc */
	EMU_MEM_MANAGED,      /* cudaMallocManaged */
};
struct emu_range {
	enum emu_mem kind;
	uintptr_t base;
	size_t size;
};
/* The allocation holding p, or kind EMU_MEM_PAGEABLE with base 0 when the runtime has none. */
struct emu_range emu_lookup(const void *p);
/* Whether the whole of [p, p+n) lies inside r (always true for unknown, pageable memory). */
bool emu_range_holds(struct emu_range r, const void *p, size_t n);
bool emu_device_accessible(enum emu_mem kind);
bool emu_is_host_kind(enum emu_mem kind);
void emu_mem_info(size_t *free, size_t *total);

/* stream.c */
struct emu_stream;
enum emu_op_kind { OP_COPY, OP_COPY2D, OP_MEMSET, OP_KERNEL, OP_WAIT, OP_EVENT };
struct emu_event;
struct emu_op {
	enum emu_op_kind kind;
	union {
		struct {
			void *dst;
			const void *src;
			size_t count;
		} copy;
		struct {
			void *dst;
			size_t dpitch;
			const void *src;
			size_t spitch, width, height;
		} copy2d;
		struct {
			void *dst;
			int value;
			size_t count;
		} memset;
		struct {
			void (*fn)(dim3, dim3, void **);
			dim3 grid, block;
			void *argv[EMU_MAX_KERNEL_ARGS];
			unsigned char *argbuf;
			double slowdown;
		} kernel;
		struct {
			struct emu_event *event;
			uint64_t generation;
		} record;
	} u;
	/* An OP_WAIT waits for wait_stream to have completed wait_target operations. */
	struct emu_stream *wait_stream;
	uint64_t wait_target;
	struct emu_op *next;
};

/* One lock orders all stream and event state; progress is broadcast whenever any stream
 * completes an operation. */
extern pthread_mutex_t emu_sched_lock;
extern pthread_cond_t emu_progress;

/* Resolves a handle (0, cudaStreamLegacy, cudaStreamPerThread or a created stream). NULL
 * means an invalid handle. */
struct emu_stream *emu_stream_resolve(cudaStream_t handle);
/* Enqueues op (taking ownership) after the implicit legacy-stream dependencies; returns the
 * op's completion target on that stream. */
uint64_t emu_enqueue(struct emu_stream *s, struct emu_op *op);
uint64_t emu_enqueue_locked(struct emu_stream *s, struct emu_op *op); /* holds emu_sched_lock */
/* Blocks the calling thread until stream s has completed target operations. */
void emu_wait_stream(struct emu_stream *s, uint64_t target);
bool emu_stream_reached(struct emu_stream *s, uint64_t target);
void emu_device_sync(void);
struct emu_op *emu_op_new(enum emu_op_kind kind);

/* event.c; called with emu_sched_lock held */
void emu_event_fire(struct emu_event *e, uint64_t generation);

/* kernel.c */
void emu_kernel_run(struct emu_op *op);

#endif
