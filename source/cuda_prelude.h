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
