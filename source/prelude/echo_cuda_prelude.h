/*
 * Echo's CUDA prelude for clang's host-only mode without a CUDA installation
 * (-x cuda --cuda-host-only -nocudainc -include this file). It stands in for what nvcc and
 * clang's own CUDA wrapper headers give every .cu file: __CUDACC__, the function and variable
 * attributes, the built-in index variables, the runtime API (from whichever cuda_runtime.h is
 * on the include path: the emulator's, in testdata/emulator/include) and the declarations
 * clang's Sema looks up to build a <<<...>>> launch. Device-side functions are declared, never
 * defined: host-only mode reads kernel bodies but never compiles them. Only the parse matters.
 */
#ifndef ECHO_SOURCE_CUDA_PRELUDE_H
#define ECHO_SOURCE_CUDA_PRELUDE_H

#define __CUDACC__ 1

#include <cuda_runtime.h>

#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict

/* threadIdx, blockIdx, blockDim, gridDim, warpSize: clang's own header, in its resource dir. */
#include "__clang_cuda_builtin_vars.h"

/*
 * What nvcc's headers declare and the emulator's (which only carry what the emulator
 * implements) do not: runtime calls ordinary programs make, the C++ overloads and default
 * arguments cuda_runtime.h adds for C++ (so `cudaMalloc(&d_x, bytes)` with a float *d_x and
 * `cudaEventRecord(start)` parse), and the vector types. Declarations only: a call to one of
 * these the proofs do not model reaches no body, so a buffer passed to it makes its pair
 * undecidable. CUDA is always C++; the guard is for a reader who includes this elsewhere.
 */
#ifdef __cplusplus
#define cudaDeviceScheduleAuto 0x00
#define cudaDeviceScheduleSpin 0x01
#define cudaDeviceScheduleYield 0x02
#define cudaDeviceScheduleBlockingSync 0x04
#define cudaDeviceMapHost 0x08
#define cudaDeviceLmemResizeToMax 0x10
#define cudaMemPoolAttrReleaseThreshold 4
typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;
struct cudaFuncAttributes {
	size_t sharedSizeBytes, constSizeBytes, localSizeBytes;
	int maxThreadsPerBlock, numRegs, ptxVersion, binaryVersion, cacheModeCA;
	int maxDynamicSharedSizeBytes, preferredShmemCarveout;
};
extern "C" {
cudaError_t cudaDeviceReset(void);
cudaError_t cudaSetDeviceFlags(unsigned int flags);
cudaError_t cudaGetDeviceFlags(unsigned int *flags);
cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height);
cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t stream);
cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t stream);
cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset = 0,
			       enum cudaMemcpyKind kind = cudaMemcpyHostToDevice);
cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset = 0,
				 enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost);
cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count, size_t offset,
				    enum cudaMemcpyKind kind, cudaStream_t stream = 0);
cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset,
				      enum cudaMemcpyKind kind, cudaStream_t stream = 0);
cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol);
cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count);
cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, int dstDevice, cudaStream_t stream = 0);
cudaError_t cudaThreadSynchronize(void);
cudaError_t cudaThreadExit(void);
cudaError_t cudaProfilerStart(void);
cudaError_t cudaProfilerStop(void);
cudaError_t cudaFuncSetCacheConfig(const void *func, int cacheConfig);
cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func);
cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr, size_t length = 0,
				     unsigned int flags = cudaMemAttachSingle);
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func, int blockSize,
							  size_t dynamicSMemSize);
cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
					size_t sharedMem = 0, cudaStream_t stream = 0);
}

/* cuda_runtime.h's C++ overloads: default arguments the C declarations lack... */
cudaError_t cudaEventRecord(cudaEvent_t event);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
			      size_t height, enum cudaMemcpyKind kind);
cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event);
cudaError_t cudaMallocManaged(void **devPtr, size_t size);
cudaError_t cudaHostRegister(void *ptr, size_t size);

/* ...and the templates that take a T ** (or a T & symbol, or a kernel) without a cast. */
template <class T> cudaError_t cudaMalloc(T **devPtr, size_t size);
template <class T> cudaError_t cudaMallocHost(T **ptr, size_t size, unsigned int flags = 0);
template <class T> cudaError_t cudaHostAlloc(T **ptr, size_t size, unsigned int flags);
template <class T> cudaError_t cudaHostGetDevicePointer(T **pDevice, void *pHost, unsigned int flags);
template <class T>
cudaError_t cudaMallocManaged(T **devPtr, size_t size, unsigned int flags = cudaMemAttachGlobal);
template <class T> cudaError_t cudaMallocPitch(T **devPtr, size_t *pitch, size_t width, size_t height);
template <class T> cudaError_t cudaMallocAsync(T **devPtr, size_t size, cudaStream_t stream);
template <class T> cudaError_t cudaGetSymbolAddress(void **devPtr, const T &symbol);
template <class T>
cudaError_t cudaMemcpyToSymbol(const T &symbol, const void *src, size_t count, size_t offset = 0,
			       enum cudaMemcpyKind kind = cudaMemcpyHostToDevice);
template <class T>
cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t count, size_t offset = 0,
				 enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost);
template <class T>
cudaError_t cudaMemcpyToSymbolAsync(const T &symbol, const void *src, size_t count, size_t offset = 0,
				    enum cudaMemcpyKind kind = cudaMemcpyHostToDevice, cudaStream_t stream = 0);
template <class T>
cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const T &symbol, size_t count, size_t offset = 0,
				      enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost, cudaStream_t stream = 0);
template <class T>
cudaError_t cudaLaunchKernel(T *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem = 0,
			     cudaStream_t stream = 0);
template <class T> cudaError_t cudaFuncSetCacheConfig(T *func, int cacheConfig);
template <class T> cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, T *func);
template <class T>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, T func, int blockSize,
							  size_t dynamicSMemSize);
#endif

#include "vector_types.h"
#include "vector_functions.h"

#ifdef __cplusplus
extern "C" {
#endif
/* Sema builds a launch as a call to one of these, depending on the CUDA version it assumes. */
int cudaConfigureCall(dim3 gridSize, dim3 blockSize, size_t sharedSize = 0, cudaStream_t stream = 0);
unsigned __cudaPushCallConfiguration(dim3 gridSize, dim3 blockSize, size_t sharedSize = 0,
				     cudaStream_t stream = 0);
#ifdef __cplusplus
}
#endif

/* The device-side intrinsics ordinary kernels call. */
__device__ void __syncthreads(void);
__device__ int __syncthreads_count(int);
__device__ int __syncthreads_and(int);
__device__ int __syncthreads_or(int);
__device__ void __syncwarp(unsigned mask = 0xffffffffu);
__device__ void __threadfence(void);
__device__ void __threadfence_block(void);
__device__ void __threadfence_system(void);
__device__ void __nanosleep(unsigned ns);
__device__ long long clock64(void);
__device__ long long clock(void);
__device__ unsigned __activemask(void);
__device__ unsigned __ballot_sync(unsigned mask, int pred);
__device__ int __any_sync(unsigned mask, int pred);
__device__ int __all_sync(unsigned mask, int pred);
__device__ int __popc(unsigned);
__device__ int __clz(int);
__device__ int __ffs(int);
__device__ float __expf(float);
__device__ float __logf(float);
__device__ float __sinf(float);
__device__ float __cosf(float);
__device__ float __fdividef(float, float);
__device__ float rsqrtf(float);
#define ECHO_PRELUDE_ATOMICS(T)            \
	__device__ T atomicAdd(T *, T);    \
	__device__ T atomicSub(T *, T);    \
	__device__ T atomicExch(T *, T);   \
	__device__ T atomicMin(T *, T);    \
	__device__ T atomicMax(T *, T);    \
	__device__ T atomicCAS(T *, T, T); \
	__device__ T atomicAnd(T *, T);    \
	__device__ T atomicOr(T *, T);     \
	__device__ T atomicXor(T *, T);
ECHO_PRELUDE_ATOMICS(int)
ECHO_PRELUDE_ATOMICS(unsigned int)
ECHO_PRELUDE_ATOMICS(unsigned long long int)
#undef ECHO_PRELUDE_ATOMICS
__device__ float atomicAdd(float *, float);
__device__ double atomicAdd(double *, double);
__device__ float atomicExch(float *, float);
template <class T> __device__ T __shfl_sync(unsigned, T, int, int = 32);
template <class T> __device__ T __shfl_up_sync(unsigned, T, unsigned, int = 32);
template <class T> __device__ T __shfl_down_sync(unsigned, T, unsigned, int = 32);
template <class T> __device__ T __shfl_xor_sync(unsigned, T, int, int = 32);
template <class T> __device__ T __ldg(const T *);

#endif
