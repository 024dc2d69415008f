/* Shared state of the emulator: knobs, the allocation table, streams and their operations. */
#ifndef ECHO_EMU_INTERNAL_H
#define ECHO_EMU_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "cuda.h"
#include "cuda_emulator.h"
#include "cuda_runtime_api.h"

#define EMU_API __attribute__((visibility("default")))

/* knobs.c */
struct emu_knobs {
	unsigned long kernel_delay_us;
	unsigned long kernel_min_us; /* a kernel's least duration: its time, not the host CPU's */
	unsigned long copy_delay_us;
	unsigned long pin_us_per_mib; /* page-locking's price: cudaHostAlloc, cudaMallocHost, cudaHostRegister */
	double managed_slowdown;
	double host_slowdown;
	size_t mem_limit; /* 0: none */
	unsigned long fail_alloc; /* the n-th runtime allocation fails (1-based); 0: none */
	unsigned long fail_register; /* the n-th cudaHostRegister fails (1-based); 0: none */
	int device_count;
	char device_name[256];
	int cc_major, cc_minor;
	int driver_version;
	int integrated;
	int pageable_access;
	int concurrent_managed;
	int host_atomics;
	int concurrent_kernels;
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
/* Masks of kinds for emu_release: what cudaFree and cudaFreeHost accept. */
#define EMU_DEVICE_KINDS (1u << EMU_MEM_DEVICE | 1u << EMU_MEM_MANAGED)
#define EMU_PINNED_KINDS (1u << EMU_MEM_PINNED)
cudaError_t emu_allocate(void **out, size_t size, enum emu_mem kind);
/* Frees an allocation of one of the kinds in mask, after waiting for the device. */
cudaError_t emu_release(void *p, unsigned mask);
/* The allocation holding p, or kind EMU_MEM_PAGEABLE with base 0 when the runtime has none. */
struct emu_range emu_lookup(const void *p);
/* Whether the whole of [p, p+n) lies inside r (always true for unknown, pageable memory). */
bool emu_range_holds(struct emu_range r, const void *p, size_t n);
bool emu_device_accessible(enum emu_mem kind);
bool emu_is_host_kind(enum emu_mem kind);
void emu_mem_info(size_t *free, size_t *total);

/* copy.c: every copy, 1D or 2D, synchronous or on a stream */
cudaError_t emu_copy(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
		     size_t height, enum cudaMemcpyKind kind, cudaStream_t stream, bool async, bool two_d);

/* kernel.c: a launch, for cudaLaunchKernel and the driver's cuLaunchKernel */
cudaError_t emu_launch(const void *func, dim3 grid, dim3 block, void **args, cudaStream_t stream);

/* route.c: with CUDA_EMU_DRIVER=1 the shared runtime makes its allocations, frees, copies,
 * device syncs and launches through the emulated driver, as the real runtime does; NULL
 * otherwise. */
struct emu_driver {
	CUresult (*mem_alloc)(CUdeviceptr *, size_t);
	CUresult (*mem_free)(CUdeviceptr);
	CUresult (*memcpy_htod)(CUdeviceptr, const void *, size_t);
	CUresult (*memcpy_dtoh)(void *, CUdeviceptr, size_t);
	CUresult (*memcpy_dtod)(CUdeviceptr, CUdeviceptr, size_t);
	CUresult (*ctx_synchronize)(void);
	CUresult (*launch_kernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
				  CUstream, void **, void **);
};
const struct emu_driver *emu_driver(void);
/* A driver result as the runtime reports it (failures recorded for cudaGetLastError). */
cudaError_t emu_from_driver(CUresult r);

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
			bool link; /* host to device or device to host: CUDA_EMU_COPY_DELAY_US applies */
			bool staged; /* and its host side is pageable: stage.c copies it in chunks */
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
/* cudaDeviceSynchronize and cudaStreamSynchronize as the runtime does them itself. */
cudaError_t emu_device_synchronize(void);
cudaError_t emu_stream_sync(cudaStream_t stream);
/* cudaStreamCreateWithFlags and cudaStreamDestroy as the runtime does them itself. */
cudaError_t emu_stream_create(cudaStream_t *pStream, unsigned int flags);
cudaError_t emu_stream_destroy(cudaStream_t stream);
struct emu_op *emu_op_new(enum emu_op_kind kind);

/* event.c; called with emu_sched_lock held */
void emu_event_fire(struct emu_event *e, uint64_t generation);

/* stage.c: runs an OP_COPY, a staged one through the worker's bounce buffer (allocated on
 * first use, owned by that worker alone). */
struct emu_bounce {
	void *buf;
};
struct emu_drv_copy_stats;
void emu_copy_run(struct emu_op *op, struct emu_bounce *b);
void emu_bounce_free(struct emu_bounce *b);
void emu_stage_stats(struct emu_drv_copy_stats *out);

/* kernel.c */
void emu_kernel_run(struct emu_op *op);
void emu_sleep_us(unsigned long us);

#endif
