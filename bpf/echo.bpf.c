// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Echo's tracer: uprobes on the CUDA runtime, the CUDA driver and the host allocators of the
 * traced processes. Each call is recorded at its return as one struct echo_event in a ring
 * buffer; the entry probe keeps the arguments in a per-thread pending slot until then.
 *
 * Three families of calls have a pending slot each, so a call made inside another is seen
 * for what it is: a driver call under a runtime call, or a host allocation under either, is
 * the library's own business and is not recorded (no double counting); operator new[] is
 * recorded once, not again as the malloc it makes.
 */
#include "bpf.h"
#include "events.h"
#include "regs.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set before load (volatile const: the loader rewrites .rodata). */
volatile const __u64 min_host_bytes = 64 << 10;
volatile const __u8 follow_children = 0;
/* Launch mode: stop a process whenever its loader changes its libraries, so the tracer
 * reads them (and attaches to new ones) before the process goes on. */
volatile const __u8 stop_for_maps = 0;
/* sched_process_fork tracepoint field offsets, read from its format file by the loader. */
volatile const __u32 fork_parent_pid_off = 24;
volatile const __u32 fork_child_pid_off = 44;

#define SIGSTOP 19

struct pending {
	struct echo_event ev;
	__u64 out; /* user address of an out-argument read at return (void **, stream *) */
	__u64 sp;  /* stack pointer at entry */
	__u32 depth;
	__u32 _pad;
};

/* Whether a call entering with stack pointer sp runs inside the pending call p. Stacks grow
 * down, so a nested call has the lower stack pointer; otherwise p's return was never seen
 * (its thread died in it, say) and p is stale. */
static __always_inline int nested(struct pending *p, __u64 sp)
{
	return sp < p->sp;
}

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} events SEC(".maps");

/* Failed ring-buffer reservations, per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

/* Traced processes (tgid). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u8);
} targets SEC(".maps");

/* Calls in flight, by thread. Hash maps are preallocated when created: 4096 threads inside
 * probed calls at once is more than programs have, and creating three maps of 16384 took
 * 20 ms of every launch. */
#define PENDING_MAP(name)                                  \
	struct {                                           \
		__uint(type, BPF_MAP_TYPE_HASH);           \
		__uint(max_entries, 4096);                 \
		__type(key, __u32);                        \
		__type(value, struct pending);             \
	} name SEC(".maps")

PENDING_MAP(pending_rt);
PENDING_MAP(pending_drv);
PENDING_MAP(pending_host);

/* Live host allocations above the size filter, so their frees are recorded and no other. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, __u64);
} host_live SEC(".maps");

/* A scratch slot: struct pending is too big for the 512-byte BPF stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pending);
} scratch SEC(".maps");

/* The reader is woken for a batch, not for every event: by default each event a caught-up
 * reader has not seen wakes it, which costs the traced thread an interrupt and the reader a
 * context switch per event at the rates real loops call CUDA. The reader also looks every
 * idle wait (tracer/reader.go); the loader's notice, which a stopped process waits on, wakes
 * it at once. */
#define WAKE_BYTES (256 << 10)

static __always_inline void count_lost(void)
{
	__u32 zero = 0;
	__u64 *n = bpf_map_lookup_elem(&lost, &zero);
	if (n)
		(*n)++;
}

static __always_inline void emit(struct echo_event *ev)
{
	__u64 wake = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= WAKE_BYTES ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
	if (bpf_ringbuf_output(&events, ev, sizeof *ev, wake) != 0)
		count_lost();
}

static __always_inline int traced(__u32 tgid)
{
	return bpf_map_lookup_elem(&targets, &tgid) != NULL;
}

/*
 * Entry: claim the family's pending slot for this thread, or count a nested call. Returns
 * the slot to fill, or NULL when the call is not to be recorded.
 */
static __always_inline struct pending *enter(void *family, __u32 type, struct echo_regs *r)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;
	if (!traced(tgid))
		return NULL;
	struct pending *p = bpf_map_lookup_elem(family, &tid);
	if (p && nested(p, SP(r))) {
		p->depth++;
		return NULL;
	}
	/* A host allocation made by the runtime or driver, or a driver call made by the
	 * runtime, belongs to the library, not to the program. */
	if (family != &pending_rt && bpf_map_lookup_elem(&pending_rt, &tid))
		return NULL;
	if (family == &pending_host && bpf_map_lookup_elem(&pending_drv, &tid))
		return NULL;
	__u32 zero = 0;
	struct pending *s = bpf_map_lookup_elem(&scratch, &zero);
	if (!s)
		return NULL;
	__builtin_memset(s, 0, sizeof *s);
	s->ev.type = type;
	s->ev.pid = tgid;
	s->ev.tid = tid;
	s->ev.enter_ns = bpf_ktime_get_ns();
	s->ev.caller = caller(r);
	s->sp = SP(r);
	return s;
}

static __always_inline void commit(void *family, struct pending *s)
{
	bpf_map_update_elem(family, &s->ev.tid, s, BPF_ANY);
}

/* Return: finish and emit the outermost call of the family on this thread. */
static __always_inline int leave(void *family, struct echo_regs *r)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct pending *p = bpf_map_lookup_elem(family, &tid);
	if (!p)
		return 0;
	if (p->depth) {
		p->depth--;
		return 0;
	}
	struct echo_event *ev = &p->ev;
	ev->exit_ns = bpf_ktime_get_ns();
	__u64 rv = RET(r);
	if (family == &pending_host) {
		if (ev->type == ECHO_POSIX_MEMALIGN) {
			ev->ret = (__s32)rv;
			bpf_probe_read_user(&ev->addr, sizeof ev->addr, (void *)p->out);
		} else {
			ev->addr = rv;
		}
		if (ev->addr && ev->bytes >= min_host_bytes)
			bpf_map_update_elem(&host_live, &ev->addr, &ev->bytes, BPF_ANY);
		if (ev->type == ECHO_REALLOC && ev->src && ev->src != ev->addr)
			bpf_map_delete_elem(&host_live, &ev->src);
	} else {
		ev->ret = (__s32)rv;
		if (p->out)
			bpf_probe_read_user(&ev->addr, sizeof ev->addr, (void *)p->out);
	}
	emit(ev);
	bpf_map_delete_elem(family, &tid);
	return 0;
}

/* A free is recorded at entry, only for an allocation the filter let through. */
static __always_inline int host_free(__u32 type, struct echo_regs *r)
{
	__u64 ptr = arg(r, 0);
	if (!ptr || !bpf_map_lookup_elem(&host_live, &ptr))
		return 0;
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;
	if (!traced(tgid))
		return 0;
	bpf_map_delete_elem(&host_live, &ptr);
	struct echo_event ev = {.type = type, .pid = tgid, .tid = tid, .addr = ptr};
	ev.enter_ns = ev.exit_ns = bpf_ktime_get_ns();
	ev.caller = caller(r);
	emit(&ev);
	return 0;
}

/*
 * Each traced function is known by its event type. The programs below exist twice: one per
 * function for kernels that attach uprobes one at a time, and one per family attached to
 * every function at once with uprobe_multi (kernel 6.6+), the type arriving as the attach
 * cookie; detaching a multi link waits for one kernel grace period instead of one per probe.
 * ECHO_WITH_FLAGS marks the variant of a call that takes one more (flags) argument.
 */
#define ECHO_WITH_FLAGS (1u << 16)

/* ---- host allocators ---- */

static __always_inline int host_enter(__u32 cookie, struct echo_regs *r)
{
	__u32 type = cookie & 0xffff;
	__u64 bytes = 0, src = 0, out = 0;
	switch (type) {
	case ECHO_MALLOC:
	case ECHO_NEW_ARRAY:
		bytes = arg(r, 0);
		break;
	case ECHO_CALLOC:
		bytes = arg(r, 0) * arg(r, 1);
		break;
	case ECHO_REALLOC:
		src = arg(r, 0);
		bytes = arg(r, 1);
		break;
	case ECHO_POSIX_MEMALIGN: /* (void **out, alignment, size) */
		out = arg(r, 0);
		bytes = arg(r, 2);
		break;
	case ECHO_ALIGNED_ALLOC: /* (alignment, size) */
		bytes = arg(r, 1);
		break;
	default:
		return 0;
	}
	int keep = bytes >= min_host_bytes;
	if (type == ECHO_REALLOC && src && bpf_map_lookup_elem(&host_live, &src))
		keep = 1;
	if (!keep) {
		/* Still count depth, so an allocation nested in a recorded one is not recorded. */
		__u32 tid = (__u32)bpf_get_current_pid_tgid();
		struct pending *p = bpf_map_lookup_elem(&pending_host, &tid);
		if (p && nested(p, SP(r)))
			p->depth++;
		return 0;
	}
	struct pending *s = enter(&pending_host, type, r);
	if (!s)
		return 0;
	s->ev.bytes = bytes;
	s->ev.src = src;
	s->out = out;
	commit(&pending_host, s);
	return 0;
}

/* ---- CUDA runtime ---- */

static __always_inline void runtime_args(__u32 cookie, struct pending *s, struct echo_regs *r)
{
	struct echo_event *ev = &s->ev;
	switch (cookie & 0xffff) {
	/* allocations: (void **out, size_t bytes[, unsigned flags]) */
	case ECHO_CUDA_MALLOC:
	case ECHO_CUDA_MALLOC_HOST:
		s->out = arg(r, 0);
		ev->bytes = arg(r, 1);
		break;
	case ECHO_CUDA_HOST_ALLOC:
	case ECHO_CUDA_MALLOC_MANAGED:
		s->out = arg(r, 0);
		ev->bytes = arg(r, 1);
		ev->kind = (__u32)arg(r, 2);
		break;
	case ECHO_CUDA_HOST_REGISTER:
		ev->addr = arg(r, 0);
		ev->bytes = arg(r, 1);
		ev->kind = (__u32)arg(r, 2);
		break;
	case ECHO_CUDA_FREE:
	case ECHO_CUDA_FREE_HOST:
	case ECHO_CUDA_HOST_UNREGISTER:
	case ECHO_CUDA_EVENT_SYNCHRONIZE:
		ev->addr = arg(r, 0);
		break;
	/* copies: (dst, src, count, kind[, stream]) */
	case ECHO_CUDA_MEMCPY:
	case ECHO_CUDA_MEMCPY_ASYNC:
		ev->addr = arg(r, 0);
		ev->src = arg(r, 1);
		ev->bytes = arg(r, 2);
		ev->kind = (__u32)arg(r, 3);
		if ((cookie & 0xffff) == ECHO_CUDA_MEMCPY_ASYNC)
			ev->stream = arg(r, 4);
		break;
	/* 2D: (dst, dpitch, src, spitch, width, height, kind[, stream]); on x86-64 kind and
	 * stream are the 7th and 8th arguments, on the stack */
	case ECHO_CUDA_MEMCPY_2D:
	case ECHO_CUDA_MEMCPY_2D_ASYNC:
		ev->addr = arg(r, 0);
		ev->arg[0] = arg(r, 1);
		ev->src = arg(r, 2);
		ev->arg[1] = arg(r, 3);
		ev->arg[2] = arg(r, 4);
		ev->arg[3] = arg(r, 5);
		ev->bytes = ev->arg[2] * ev->arg[3];
		ev->kind = (__u32)arg(r, 6);
		if ((cookie & 0xffff) == ECHO_CUDA_MEMCPY_2D_ASYNC)
			ev->stream = arg(r, 7);
		break;
	/* (dst, value, count[, stream]) */
	case ECHO_CUDA_MEMSET:
	case ECHO_CUDA_MEMSET_ASYNC:
		ev->addr = arg(r, 0);
		ev->kind = (__u32)arg(r, 1);
		ev->bytes = arg(r, 2);
		if ((cookie & 0xffff) == ECHO_CUDA_MEMSET_ASYNC)
			ev->stream = arg(r, 3);
		break;
	/* cudaLaunchKernel(func, dim3 grid, dim3 block, args, sharedMem, stream): each 12-byte
	 * dim3 travels in two integer registers (x|y<<32, then z), so sharedMem and stream are
	 * the 7th and 8th slots: on the stack on x86-64, in x6 and x7 on arm64. */
	case ECHO_CUDA_LAUNCH_KERNEL:
		ev->addr = arg(r, 0);
		ev->arg[0] = arg(r, 1);
		ev->arg[1] = (__u32)arg(r, 2);
		ev->arg[2] = arg(r, 3);
		ev->arg[3] = (__u32)arg(r, 4);
		ev->stream = arg(r, 7);
		break;
	case ECHO_CUDA_STREAM_CREATE: /* (cudaStream_t *out[, flags]) */
		s->out = arg(r, 0);
		if (cookie & ECHO_WITH_FLAGS)
			ev->kind = (__u32)arg(r, 1);
		break;
	case ECHO_CUDA_STREAM_DESTROY:
	case ECHO_CUDA_STREAM_SYNCHRONIZE:
		ev->addr = ev->stream = arg(r, 0);
		break;
	case ECHO_CUDA_EVENT_RECORD: /* (event, stream) */
		ev->addr = arg(r, 0);
		ev->stream = arg(r, 1);
		break;
	case ECHO_CUDA_STREAM_WAIT_EVENT: /* (stream, event, flags) */
		ev->stream = arg(r, 0);
		ev->addr = arg(r, 1);
		ev->kind = (__u32)arg(r, 2);
		break;
	}
}

static __always_inline int runtime_enter(__u32 cookie, struct echo_regs *r)
{
	struct pending *s = enter(&pending_rt, cookie & 0xffff, r);
	if (!s)
		return 0;
	runtime_args(cookie, s, r);
	commit(&pending_rt, s);
	return 0;
}

/* ---- CUDA driver ---- */

/* cuLaunchKernel(f, gx, gy, gz, bx, by, bz, sharedMem, stream, params, extra) */
static __always_inline void launch_args(struct echo_event *ev, struct echo_regs *r)
{
	ev->addr = arg(r, 0);
	ev->arg[0] = (__u32)arg(r, 1) | (__u64)(__u32)arg(r, 2) << 32;
	ev->arg[1] = (__u32)arg(r, 3);
	ev->arg[2] = (__u32)arg(r, 4) | (__u64)(__u32)arg(r, 5) << 32;
	ev->arg[3] = (__u32)arg(r, 6);
	ev->stream = arg(r, 8);
}

static __always_inline void driver_args(__u32 type, struct pending *s, struct echo_regs *r)
{
	struct echo_event *ev = &s->ev;
	switch (type) {
	case ECHO_CU_MEM_ALLOC:
	case ECHO_CU_MEM_ALLOC_HOST:
		s->out = arg(r, 0);
		ev->bytes = arg(r, 1);
		break;
	case ECHO_CU_MEM_HOST_ALLOC:
	case ECHO_CU_MEM_ALLOC_MANAGED:
		s->out = arg(r, 0);
		ev->bytes = arg(r, 1);
		ev->kind = (__u32)arg(r, 2);
		break;
	case ECHO_CU_MEM_FREE:
	case ECHO_CU_MEM_FREE_HOST:
		ev->addr = arg(r, 0);
		break;
	/* (dst, src, bytes[, stream]); the kind is the runtime's equivalent */
	case ECHO_CU_MEMCPY_HTOD:
	case ECHO_CU_MEMCPY_DTOH:
	case ECHO_CU_MEMCPY_DTOD:
	case ECHO_CU_MEMCPY_HTOD_ASYNC:
	case ECHO_CU_MEMCPY_DTOH_ASYNC:
	case ECHO_CU_MEMCPY_DTOD_ASYNC:
		ev->addr = arg(r, 0);
		ev->src = arg(r, 1);
		ev->bytes = arg(r, 2);
		ev->kind = (type - ECHO_CU_MEMCPY_HTOD) % 3 + 1;
		if (type >= ECHO_CU_MEMCPY_HTOD_ASYNC)
			ev->stream = arg(r, 3);
		break;
	case ECHO_CU_STREAM_SYNCHRONIZE:
		ev->addr = ev->stream = arg(r, 0);
		break;
	}
}

static __always_inline int driver_enter(__u32 type, struct echo_regs *r)
{
	struct pending *s = enter(&pending_drv, type, r);
	if (!s)
		return 0;
	driver_args(type, s, r);
	commit(&pending_drv, s);
	return 0;
}

/*
 * cuLaunchKernel is recorded at its entry, with no return probe: its return (an error code;
 * a launch returns before its kernel runs) adds nothing a plan uses, and a return probe
 * costs as much again. It is the call real programs make most (a hundred or more per
 * iteration of an inference loop, most from cuDNN's and cuBLAS's own runtimes), and under
 * every cudaLaunchKernel the runtime's own. Its event has exit_ns = enter_ns and ret 0.
 */
static __always_inline int driver_launch(struct echo_regs *r)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;
	if (!traced(tgid) || bpf_map_lookup_elem(&pending_rt, &tid))
		return 0;
	struct pending *p = bpf_map_lookup_elem(&pending_drv, &tid);
	if (p && nested(p, SP(r)))
		return 0; /* no depth to count: no return will come to uncount it */
	struct echo_event ev = {.type = ECHO_CU_LAUNCH_KERNEL, .pid = tgid, .tid = tid};
	ev.enter_ns = ev.exit_ns = bpf_ktime_get_ns();
	ev.caller = caller(r);
	launch_args(&ev, r);
	emit(&ev);
	return 0;
}

/* ---- one program per function ---- */

#define HOST(name, cookie)                                                        \
	SEC("uprobe/" #name) int name##_enter(struct echo_regs *r) { return host_enter(cookie, r); }
#define FREE(name, type)                                                          \
	SEC("uprobe/" #name) int name##_enter(struct echo_regs *r) { return host_free(type, r); }
#define RUNTIME(name, cookie)                                                     \
	SEC("uprobe/" #name) int name##_enter(struct echo_regs *r) { return runtime_enter(cookie, r); }
#define DRIVER(name, type)                                                        \
	SEC("uprobe/" #name) int name##_enter(struct echo_regs *r) { return driver_enter(type, r); }

HOST(malloc, ECHO_MALLOC)
HOST(calloc, ECHO_CALLOC)
HOST(realloc, ECHO_REALLOC)
HOST(posix_memalign, ECHO_POSIX_MEMALIGN)
HOST(aligned_alloc, ECHO_ALIGNED_ALLOC)
HOST(new_array, ECHO_NEW_ARRAY)
FREE(free, ECHO_FREE)
FREE(delete_array, ECHO_DELETE_ARRAY)

RUNTIME(cudaMalloc, ECHO_CUDA_MALLOC)
RUNTIME(cudaMallocHost, ECHO_CUDA_MALLOC_HOST)
RUNTIME(cudaHostAlloc, ECHO_CUDA_HOST_ALLOC)
RUNTIME(cudaMallocManaged, ECHO_CUDA_MALLOC_MANAGED)
RUNTIME(cudaHostRegister, ECHO_CUDA_HOST_REGISTER)
RUNTIME(cudaFree, ECHO_CUDA_FREE)
RUNTIME(cudaFreeHost, ECHO_CUDA_FREE_HOST)
RUNTIME(cudaHostUnregister, ECHO_CUDA_HOST_UNREGISTER)
RUNTIME(cudaMemcpy, ECHO_CUDA_MEMCPY)
RUNTIME(cudaMemcpyAsync, ECHO_CUDA_MEMCPY_ASYNC)
RUNTIME(cudaMemcpy2D, ECHO_CUDA_MEMCPY_2D)
RUNTIME(cudaMemcpy2DAsync, ECHO_CUDA_MEMCPY_2D_ASYNC)
RUNTIME(cudaMemset, ECHO_CUDA_MEMSET)
RUNTIME(cudaMemsetAsync, ECHO_CUDA_MEMSET_ASYNC)
RUNTIME(cudaLaunchKernel, ECHO_CUDA_LAUNCH_KERNEL)
RUNTIME(cudaStreamCreate, ECHO_CUDA_STREAM_CREATE)
RUNTIME(cudaStreamCreateWithFlags, ECHO_CUDA_STREAM_CREATE | ECHO_WITH_FLAGS)
RUNTIME(cudaStreamDestroy, ECHO_CUDA_STREAM_DESTROY)
RUNTIME(cudaStreamSynchronize, ECHO_CUDA_STREAM_SYNCHRONIZE)
RUNTIME(cudaDeviceSynchronize, ECHO_CUDA_DEVICE_SYNCHRONIZE)
RUNTIME(cudaEventRecord, ECHO_CUDA_EVENT_RECORD)
RUNTIME(cudaEventSynchronize, ECHO_CUDA_EVENT_SYNCHRONIZE)
RUNTIME(cudaStreamWaitEvent, ECHO_CUDA_STREAM_WAIT_EVENT)

DRIVER(cuMemAlloc, ECHO_CU_MEM_ALLOC)
DRIVER(cuMemAllocHost, ECHO_CU_MEM_ALLOC_HOST)
DRIVER(cuMemHostAlloc, ECHO_CU_MEM_HOST_ALLOC)
DRIVER(cuMemAllocManaged, ECHO_CU_MEM_ALLOC_MANAGED)
DRIVER(cuMemFree, ECHO_CU_MEM_FREE)
DRIVER(cuMemFreeHost, ECHO_CU_MEM_FREE_HOST)
DRIVER(cuMemcpyHtoD, ECHO_CU_MEMCPY_HTOD)
DRIVER(cuMemcpyDtoH, ECHO_CU_MEMCPY_DTOH)
DRIVER(cuMemcpyDtoD, ECHO_CU_MEMCPY_DTOD)
DRIVER(cuMemcpyHtoDAsync, ECHO_CU_MEMCPY_HTOD_ASYNC)
DRIVER(cuMemcpyDtoHAsync, ECHO_CU_MEMCPY_DTOH_ASYNC)
DRIVER(cuMemcpyDtoDAsync, ECHO_CU_MEMCPY_DTOD_ASYNC)
SEC("uprobe/cuLaunchKernel") int cuLaunchKernel_enter(struct echo_regs *r) { return driver_launch(r); }
DRIVER(cuStreamSynchronize, ECHO_CU_STREAM_SYNCHRONIZE)
DRIVER(cuCtxSynchronize, ECHO_CU_CTX_SYNCHRONIZE)

SEC("uretprobe/host") int host_leave(struct echo_regs *r) { return leave(&pending_host, r); }
SEC("uretprobe/runtime") int runtime_leave(struct echo_regs *r) { return leave(&pending_rt, r); }
SEC("uretprobe/driver") int driver_leave(struct echo_regs *r) { return leave(&pending_drv, r); }

/* ---- one program per family, for uprobe_multi ---- */

SEC("uprobe.multi") int host_enter_multi(struct echo_regs *r)
{
	return host_enter((__u32)bpf_get_attach_cookie(r), r);
}
SEC("uprobe.multi") int free_enter_multi(struct echo_regs *r)
{
	return host_free((__u32)bpf_get_attach_cookie(r), r);
}
SEC("uprobe.multi") int runtime_enter_multi(struct echo_regs *r)
{
	return runtime_enter((__u32)bpf_get_attach_cookie(r), r);
}
SEC("uprobe.multi") int driver_enter_multi(struct echo_regs *r)
{
	return driver_enter((__u32)bpf_get_attach_cookie(r), r);
}
SEC("uprobe.multi") int driver_launch_multi(struct echo_regs *r)
{
	return driver_launch(r);
}
SEC("uretprobe.multi") int host_leave_multi(struct echo_regs *r) { return leave(&pending_host, r); }
SEC("uretprobe.multi") int runtime_leave_multi(struct echo_regs *r) { return leave(&pending_rt, r); }
SEC("uretprobe.multi") int driver_leave_multi(struct echo_regs *r) { return leave(&pending_drv, r); }

/* ---- the process ---- */

/* The dynamic loader calls _dl_debug_state (the debuggers' r_brk hook) once the initial
 * libraries are mapped, before any of their code runs, and around every dlopen and dlclose.
 * The tracer then reads the process's libraries again; in launch mode the process waits for
 * it (stopped until the tracer's SIGCONT), so even the first call into a new library is seen.
 * Only a notice that is in the ring stops the process: one the full ring has no room for
 * would never be answered, and the process would wait forever. And the stop is sent before
 * the notice is in the ring, so the answer always comes after it (a SIGCONT clears a stop
 * still pending); sent after, a reader quicker than this program would answer first. */
static __always_inline int loader_notice(void)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32;
	if (!traced(tgid))
		return 0;
	struct echo_event *ev = bpf_ringbuf_reserve(&events, sizeof *ev, 0);
	if (!ev) {
		count_lost();
		return 0;
	}
	__builtin_memset(ev, 0, sizeof *ev);
	ev->type = ECHO_DLOPEN;
	ev->pid = tgid;
	ev->tid = (__u32)id;
	ev->enter_ns = ev->exit_ns = bpf_ktime_get_ns();
	if (stop_for_maps)
		bpf_send_signal(SIGSTOP);
	bpf_ringbuf_submit(ev, BPF_RB_FORCE_WAKEUP);
	return 0;
}

SEC("uprobe/_dl_debug_state") int loader_state(struct echo_regs *r)
{
	(void)r;
	return loader_notice();
}

/* The same through a uprobe_multi link: on kernels that have one, it needs only CAP_BPF and
 * CAP_PERFMON, where a perf-event uprobe (6.18 at least) wants CAP_SYS_ADMIN. */
SEC("uprobe.multi") int loader_state_multi(struct echo_regs *r)
{
	(void)r;
	return loader_notice();
}

/* With --follow, children of traced processes are traced from their first instruction.
 * Threads pass through here too; adding their ids is harmless. */
SEC("tracepoint/sched/sched_process_fork") int process_fork(void *ctx)
{
	if (!follow_children)
		return 0;
	__u32 parent = 0, child = 0;
	bpf_probe_read_kernel(&parent, sizeof parent, (char *)ctx + fork_parent_pid_off);
	bpf_probe_read_kernel(&child, sizeof child, (char *)ctx + fork_child_pid_off);
	if (!bpf_map_lookup_elem(&targets, &parent))
		return 0;
	__u8 one = 1;
	bpf_map_update_elem(&targets, &child, &one, BPF_ANY);
	return 0;
}
