/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The one definition of what Echo's tracer records. The BPF programs fill struct
 * echo_event, and the trace file stores it verbatim (trace/FORMAT.md). bpf2go generates the
 * tracer's Go type from it (echoEchoEvent); trace.Event, which the readers of a trace file
 * use, and trace.EventType are hand-written twins of the struct and the enum, held to this
 * header by tests (tracer/layout_test.go against the generated type, trace/event_test.go
 * against this file), so a change here that the twins miss fails them. Fixed-width fields, a
 * type tag first, padding spelled out; compiled with -Wpadded so a hole is an error.
 */
#ifndef ECHO_EVENTS_H
#define ECHO_EVENTS_H

enum echo_event_type {
	/* host allocators (libc, libstdc++), filtered by size in the kernel */
	ECHO_MALLOC = 1,
	ECHO_CALLOC = 2,
	ECHO_REALLOC = 3,
	ECHO_POSIX_MEMALIGN = 4,
	ECHO_ALIGNED_ALLOC = 5,
	ECHO_FREE = 6,
	ECHO_NEW_ARRAY = 7,    /* operator new[] */
	ECHO_DELETE_ARRAY = 8, /* operator delete[] */

	/* CUDA runtime: memory */
	ECHO_CUDA_MALLOC = 16,
	ECHO_CUDA_MALLOC_HOST = 17,
	ECHO_CUDA_HOST_ALLOC = 18,
	ECHO_CUDA_MALLOC_MANAGED = 19,
	ECHO_CUDA_HOST_REGISTER = 20,
	ECHO_CUDA_FREE = 21,
	ECHO_CUDA_FREE_HOST = 22,
	ECHO_CUDA_HOST_UNREGISTER = 23,

	/* CUDA runtime: copies and sets */
	ECHO_CUDA_MEMCPY = 32,
	ECHO_CUDA_MEMCPY_ASYNC = 33,
	ECHO_CUDA_MEMCPY_2D = 34,
	ECHO_CUDA_MEMCPY_2D_ASYNC = 35,
	ECHO_CUDA_MEMSET = 36,
	ECHO_CUDA_MEMSET_ASYNC = 37,

	/* CUDA runtime: work and ordering */
	ECHO_CUDA_LAUNCH_KERNEL = 48,
	ECHO_CUDA_STREAM_CREATE = 49,
	ECHO_CUDA_STREAM_DESTROY = 50,
	ECHO_CUDA_STREAM_SYNCHRONIZE = 51,
	ECHO_CUDA_DEVICE_SYNCHRONIZE = 52,
	ECHO_CUDA_EVENT_RECORD = 53,
	ECHO_CUDA_EVENT_SYNCHRONIZE = 54,
	ECHO_CUDA_STREAM_WAIT_EVENT = 55,

	/* CUDA driver API, recorded only when no runtime call is under way on the thread */
	ECHO_CU_MEM_ALLOC = 64,
	ECHO_CU_MEM_ALLOC_HOST = 65,
	ECHO_CU_MEM_HOST_ALLOC = 66,
	ECHO_CU_MEM_ALLOC_MANAGED = 67,
	ECHO_CU_MEM_FREE = 68,
	ECHO_CU_MEM_FREE_HOST = 69,
	ECHO_CU_MEMCPY_HTOD = 72,
	ECHO_CU_MEMCPY_DTOH = 73,
	ECHO_CU_MEMCPY_DTOD = 74,
	ECHO_CU_MEMCPY_HTOD_ASYNC = 75,
	ECHO_CU_MEMCPY_DTOH_ASYNC = 76,
	ECHO_CU_MEMCPY_DTOD_ASYNC = 77,
	ECHO_CU_LAUNCH_KERNEL = 80,
	ECHO_CU_STREAM_SYNCHRONIZE = 81,
	ECHO_CU_CTX_SYNCHRONIZE = 82,

	/* the dynamic loader changed the process's libraries (at start, dlopen, dlclose): the
	 * tracer reads them again */
	ECHO_DLOPEN = 96,
};

/*
 * One API call, written at its return. Which fields a type uses:
 *   allocations  addr = the pointer returned, bytes = size, kind = flags; realloc: src = old
 *   frees        addr = the pointer freed
 *   copies       addr = dst, src = src, bytes = bytes moved, kind = cudaMemcpyKind (driver
 *                copies carry the equivalent kind), stream; 2D: arg = dpitch, spitch, width,
 *                height and bytes = width * height
 *   memsets      addr = dst, bytes = count, kind = value, stream
 *   launches     addr = kernel function, stream, arg = grid x|y<<32, grid z, block x|y<<32,
 *                block z
 *   streams      addr = the stream handle (created, destroyed, synchronized)
 *   events       addr = the event handle, stream (record, wait)
 */
struct echo_event {
	__u32 type; /* enum echo_event_type */
	__u32 pid;  /* process (tgid) */
	__u32 tid;  /* thread */
	__s32 ret;  /* return code: cudaError_t, CUresult, the host call's int result, 0 */
	__u64 enter_ns; /* CLOCK_MONOTONIC at entry */
	__u64 exit_ns;	/* CLOCK_MONOTONIC at return */
	__u64 caller;	/* return address of the call: its site */
	__u64 addr;
	__u64 src;
	__u64 bytes;
	__u64 stream;
	__u32 kind;
	__u32 _pad0;
	__u64 arg[4];
};

#endif
