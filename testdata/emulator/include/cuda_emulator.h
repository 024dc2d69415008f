/*
 * Echo's CUDA runtime emulator: what it is and how it behaves.
 *
 * libcudart.so.12 (and libcudart_static.a) from testdata/emulator stand in for the CUDA
 * runtime on machines without a GPU, and libcuda.so.1 for the driver (<cuda.h>: the memory,
 * copy, context and sync calls; it works on the runtime's device). The emulated device is a
 * unified-memory GPU: device memory is host DRAM, every copy is a real memcpy, so copy costs
 * are real and a program that removes copies really gets faster.
 *
 * Kernels. A kernel is a host function with the signature
 *
 *     void kernel(dim3 gridDim, dim3 blockDim, void **args);
 *
 * cudaLaunchKernel(func, grid, block, args, shmem, stream) calls
 * ((void (*)(dim3, dim3, void **))func)(grid, block, args) once, on the stream's worker
 * thread; the function covers the whole grid itself. Like the real runtime, the emulator
 * copies the argument values at launch, so the caller may reuse them as soon as the launch
 * returns. A host function carries no parameter metadata, so each kernel is registered once
 * with its argument sizes (the real runtime learns them from the fatbinary that nvcc
 * registers); launching an unregistered function fails with cudaErrorInvalidDeviceFunction.
 *
 * Streams. Each stream is a FIFO executed by a worker thread of its own. The legacy default
 * stream (0, cudaStreamLegacy) waits for all earlier work in blocking streams and blocking
 * streams wait for earlier legacy work; cudaStreamNonBlocking streams do not. Host-side
 * blocking follows the CUDA "API synchronization behavior" rules: cudaMemcpy returns after
 * the copy has completed except device-to-device; cudaMemcpyAsync blocks only when pageable
 * host memory is involved; cudaMemset blocks only for pinned host memory; kernel launches
 * never block; cudaFree and cudaFreeHost wait for the device. A program that forgets an
 * ordering therefore reads stale data (widen the window with CUDA_EMU_KERNEL_DELAY_US).
 *
 * Copies. Like the real runtime, which cannot DMA from pageable memory, a host-to-device or
 * device-to-host copy whose host side is pageable (plain malloc or stack memory, not
 * cudaMallocHost, cudaHostAlloc, cudaHostRegister or managed memory) goes through a pinned
 * bounce buffer of 2 MiB, one per stream, chunk by chunk: host chunk to buffer, then buffer
 * to device (the other way round for device to host). A pageable copy thus moves every byte
 * twice where a pinned one, a single memcpy, moves it once, so the pinned strategy pays here
 * as on a discrete GPU. Runtime and driver API copies (cuMemcpyHtoD and kin) are priced
 * alike; 2D copies are not staged.
 *
 * Memory. Allocations come from mmap, never from malloc, so host-allocator probes only see
 * the program's own calls. Freed runtime memory is filled with 0xA5 bytes and kept for reuse
 * by the next allocation of the same size, so a use after free reads poison rather than the
 * old values. Unlike a discrete GPU, host code can dereference device pointers here.
 *
 * Knobs (environment variables, read once at start; a malformed value is reported on stderr
 * and ignored):
 *   CUDA_EMU_KERNEL_DELAY_US     sleep this long before each kernel runs (default 0)
 *   CUDA_EMU_KERNEL_MIN_US       a kernel that computes in less than this sleeps out the rest,
 *                                so that it takes what a device would, whatever the host's CPUs
 *                                and memory give its loop at the moment (default 0: its own time)
 *   CUDA_EMU_COPY_DELAY_US       sleep this long in each host-to-device and device-to-host
 *                                copy, like a slow link: copies then dominate an iteration
 *                                by a margin no loaded machine hides; once per copy, staged
 *                                or not (default 0)
 *   CUDA_EMU_PIN_US_PER_MIB      cudaHostAlloc, cudaMallocHost and cudaHostRegister sleep this
 *                                long per MiB they page-lock, as the real runtime takes (the
 *                                H200 registered 64 MiB in 3.7 ms); 0 makes them as cheap as
 *                                malloc (default 55)
 *   CUDA_EMU_MANAGED_SLOWDOWN    a kernel with a managed-memory argument takes F times as
 *                                long, like the paper's Thor case (default 1)
 *   CUDA_EMU_HOST_SLOWDOWN       likewise for pinned, mapped or registered host memory, like
 *                                a discrete GPU reading over PCIe (default 1)
 *   CUDA_EMU_MEM_LIMIT           bytes the runtime may hand out (cudaMalloc, cudaMallocManaged,
 *                                cudaMallocHost, cudaHostAlloc); suffixes K, M, G; past it
 *                                allocations fail with cudaErrorMemoryAllocation (default none)
 *   CUDA_EMU_FAIL_ALLOC          the N-th runtime allocation of the process (1-based) fails
 *                                with cudaErrorMemoryAllocation, to inject exactly one failure
 *   CUDA_EMU_FAIL_REGISTER       the N-th cudaHostRegister of the process (1-based) fails
 *                                with cudaErrorMemoryAllocation (page-locked memory is limited)
 *   CUDA_EMU_DEVICE_COUNT        devices reported; 0 makes every call fail with
 *                                cudaErrorNoDevice (default 1)
 *   CUDA_EMU_DEVICE_NAME         device name (default "Echo UMA Emulator")
 *   CUDA_EMU_CC                  compute capability MAJOR.MINOR (default 8.7, as Jetson Orin)
 *   CUDA_EMU_DRIVER_VERSION      cudaDriverGetVersion's answer (default 12080)
 *   CUDA_EMU_INTEGRATED          cudaDevAttrIntegrated (default 1)
 *   CUDA_EMU_PAGEABLE_ACCESS     cudaDevAttrPageableMemoryAccess: 1 lets device-side copies
 *                                and kernels use plain malloc memory, as HMM/ATS does (default 0)
 *   CUDA_EMU_CONCURRENT_MANAGED  cudaDevAttrConcurrentManagedAccess (default 1; reported
 *                                only, host access to managed memory is never trapped)
 *   CUDA_EMU_HOST_ATOMICS        cudaDevAttrHostNativeAtomicSupported (default 0; reported only)
 *   CUDA_EMU_CONCURRENT_KERNELS  cudaDevAttrConcurrentKernels (default 1 on more than 2 CPUs,
 *                                where the streams' threads run beside the host's; reported only)
 *   CUDA_EMU_PROFILE             orin or gh200: the name, compute capability and the four
 *                                attributes above as that machine reports them (Jetson AGX
 *                                Orin: 8.7, integrated, no pageable access, no concurrent
 *                                managed access, no host atomics; Grace Hopper: 9.0, not
 *                                integrated, pageable access through the host's page
 *                                tables, concurrent managed access, host atomics); the single
 *                                knobs override it
 *   CUDA_EMU_DRIVER              1: the shared runtime loads libcuda.so.1 from its own directory
 *                                and makes cudaMalloc, cudaFree, cudaMemcpy (explicit kinds)
 *                                and cudaDeviceSynchronize through it, as the real runtime
 *                                calls the driver (default 0; the static runtime ignores it)
 */
#ifndef ECHO_EMU_CUDA_EMULATOR_H
#define ECHO_EMU_CUDA_EMULATOR_H

#include <stddef.h>

#include "cuda_runtime_api.h"

#ifdef __cplusplus
extern "C" {
#endif

#define EMU_MAX_KERNEL_ARGS 16

/* Registers a kernel and the size of each of its nargs arguments. Idempotent. */
cudaError_t emuRegisterKernel(const void *func, const char *name, int nargs,
			      const size_t *argSizes);

#ifdef __cplusplus
}
#endif

#endif
