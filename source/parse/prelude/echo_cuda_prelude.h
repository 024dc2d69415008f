/*
 * Echo's CUDA prelude for clang's host-only mode without a CUDA installation
 * (-x cuda --cuda-host-only -nocudainc -include this file). It gives every .cu file what nvcc
 * and clang's own CUDA wrapper headers give it: __CUDACC__, the attributes, the C and C++
 * headers nvcc's cuda_runtime.h pulls in (so a file that calls malloc or expf without
 * including stdlib.h or math.h parses, as it compiles), the driver and runtime APIs (this
 * directory's stand-ins for cuda.h and cuda_runtime.h), the built-in index variables, the
 * device functions (clang's own __clang_cuda_*.h: math, intrinsics, warp functions, __ldg),
 * the atomics of every overload, and the declarations clang's Sema looks up to build a
 * <<<...>>> launch. It follows __clang_cuda_runtime_wrapper.h's order, with the stand-ins in
 * place of the CUDA SDK's headers. Host-only mode reads kernel bodies but never compiles
 * them: only the parse matters.
 */
#ifndef ECHO_SOURCE_CUDA_PRELUDE_H
#define ECHO_SOURCE_CUDA_PRELUDE_H

#define __CUDACC__ 1
#define __CUDACC_VER_MAJOR__ 12
#define __CUDACC_VER_MINOR__ 8
#define __CUDACC_VER_BUILD__ 0
#define __CUDA_API_VER_MAJOR__ 12
#define __CUDA_API_VER_MINOR__ 8

#include "host_defines.h"

/* Before <cmath>: device overloads declared first keep libstdc++'s constexpr math functions
 * from becoming implicitly host+device (clang's comment in the header says why). */
#include <__clang_cuda_math_forward_declares.h>

/* What nvcc's cuda_runtime.h includes (crt/common_functions.h, crt/math_functions.h). */
#include <climits>
#include <cmath>
#include <cstdlib>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <time.h>
#include <assert.h>
#include <new>

#include "cuda.h"

/* threadIdx, blockIdx, blockDim, gridDim, warpSize: clang's own header, in its resource dir. */
#include <__clang_cuda_builtin_vars.h>

#include "cuda_runtime.h"
/* The real cuda_runtime.h gives these to every .cu file. */
#define __DEVICE_LAUNCH_PARAMETERS_H__
#define __DEVICE_FUNCTIONS_H__
#define __MATH_FUNCTIONS_H__
#define __COMMON_FUNCTIONS_H__
#define __DEVICE_FUNCTIONS_DECLS_H__

#include <__clang_cuda_libdevice_declares.h>
#include <__clang_cuda_device_functions.h>
#include <__clang_cuda_math.h>

/* device_atomic_functions.h and sm_*_atomic_functions.h: every overload, declared. */
#define ECHO_ATOMICS_INT(T)                                 \
	__device__ T atomicAdd(T *, T);                     \
	__device__ T atomicSub(T *, T);                     \
	__device__ T atomicExch(T *, T);                    \
	__device__ T atomicMin(T *, T);                     \
	__device__ T atomicMax(T *, T);                     \
	__device__ T atomicCAS(T *, T, T);                  \
	__device__ T atomicAnd(T *, T);                     \
	__device__ T atomicOr(T *, T);                      \
	__device__ T atomicXor(T *, T);                     \
	__device__ T atomicAdd_block(T *, T);               \
	__device__ T atomicAdd_system(T *, T);              \
	__device__ T atomicExch_block(T *, T);              \
	__device__ T atomicExch_system(T *, T);             \
	__device__ T atomicMin_block(T *, T);               \
	__device__ T atomicMin_system(T *, T);              \
	__device__ T atomicMax_block(T *, T);               \
	__device__ T atomicMax_system(T *, T);              \
	__device__ T atomicCAS_block(T *, T, T);            \
	__device__ T atomicCAS_system(T *, T, T);           \
	__device__ T atomicAnd_block(T *, T);               \
	__device__ T atomicAnd_system(T *, T);              \
	__device__ T atomicOr_block(T *, T);                \
	__device__ T atomicOr_system(T *, T);               \
	__device__ T atomicXor_block(T *, T);               \
	__device__ T atomicXor_system(T *, T);
ECHO_ATOMICS_INT(int)
ECHO_ATOMICS_INT(unsigned int)
ECHO_ATOMICS_INT(unsigned long long int)
#undef ECHO_ATOMICS_INT
__device__ long long atomicMin(long long *, long long);
__device__ long long atomicMax(long long *, long long);
__device__ unsigned short int atomicCAS(unsigned short int *, unsigned short int, unsigned short int);
__device__ unsigned int atomicInc(unsigned int *, unsigned int);
__device__ unsigned int atomicDec(unsigned int *, unsigned int);
__device__ float atomicAdd(float *, float);
__device__ float atomicAdd_block(float *, float);
__device__ float atomicAdd_system(float *, float);
__device__ double atomicAdd(double *, double);
__device__ double atomicAdd_block(double *, double);
__device__ double atomicAdd_system(double *, double);
__device__ float atomicExch(float *, float);
__device__ float atomicMin(float *, float);
__device__ float atomicMax(float *, float);
__device__ double atomicMin(double *, double);
__device__ double atomicMax(double *, double);

/* crt/math_functions.hpp's min and max over every pairing of integer and floating types
 * programs mix, for host and device (as overloads: clang's __clang_cuda_math.h already has the
 * device (int, int) pair, and a host+device function cannot overload a device one). */
#define ECHO_MINMAX(R, A, B)                          \
	__host__ R min(A, B);                          \
	__host__ R max(A, B);                          \
	__device__ R min(A, B);                        \
	__device__ R max(A, B);
__host__ int min(int, int);
__host__ int max(int, int);
ECHO_MINMAX(unsigned int, unsigned int, unsigned int)
ECHO_MINMAX(unsigned int, int, unsigned int)
ECHO_MINMAX(unsigned int, unsigned int, int)
ECHO_MINMAX(long, long, long)
ECHO_MINMAX(unsigned long, unsigned long, unsigned long)
ECHO_MINMAX(unsigned long, long, unsigned long)
ECHO_MINMAX(unsigned long, unsigned long, long)
ECHO_MINMAX(long long, long long, long long)
ECHO_MINMAX(unsigned long long, unsigned long long, unsigned long long)
ECHO_MINMAX(unsigned long long, long long, unsigned long long)
ECHO_MINMAX(unsigned long long, unsigned long long, long long)
ECHO_MINMAX(float, float, float)
ECHO_MINMAX(double, double, double)
ECHO_MINMAX(double, float, double)
ECHO_MINMAX(double, double, float)
#undef ECHO_MINMAX

/* The memory orders of CUDA 12's __nv_atomic_* functions. */
#define __NV_ATOMIC_RELAXED 0
#define __NV_ATOMIC_CONSUME 1
#define __NV_ATOMIC_ACQUIRE 2
#define __NV_ATOMIC_RELEASE 3
#define __NV_ATOMIC_ACQ_REL 4
#define __NV_ATOMIC_SEQ_CST 5
#define __NV_THREAD_SCOPE_THREAD 0
#define __NV_THREAD_SCOPE_BLOCK 1
#define __NV_THREAD_SCOPE_CLUSTER 2
#define __NV_THREAD_SCOPE_DEVICE 3
#define __NV_THREAD_SCOPE_SYSTEM 4

/* The rest of the device runtime nvcc declares for kernels. */
extern "C" {
__device__ int vprintf(const char *, const char *);
__device__ void free(void *) __attribute__((nothrow));
__device__ void *malloc(size_t) __attribute__((nothrow)) __attribute__((malloc));
__device__ void *memcpy(void *, const void *, size_t);
__device__ void *memset(void *, int, size_t);
__device__ void __assertfail(const char *__message, const char *__file, unsigned __line, const char *__function,
			     size_t __charSize);
__device__ int printf(const char *, ...);
}
__device__ static inline void __assert_fail(const char *__message, const char *__file, unsigned __line,
					    const char *__function)
{
	__assertfail(__message, __file, __line, __function, sizeof(char));
}
__device__ void __syncthreads(void);
__device__ unsigned long long __globaltimer(void);
__device__ void __nanosleep(unsigned int ns);
__device__ unsigned int __isGlobal(const void *);
__device__ unsigned int __isShared(const void *);
__device__ void *__cvta_generic_to_shared(const void *);

/* The conversions __clang_cuda_builtin_vars.h declares and the wrapper defines. */
__device__ inline __cuda_builtin_threadIdx_t::operator dim3() const { return dim3(x, y, z); }
__device__ inline __cuda_builtin_threadIdx_t::operator uint3() const { return {x, y, z}; }
__device__ inline __cuda_builtin_blockIdx_t::operator dim3() const { return dim3(x, y, z); }
__device__ inline __cuda_builtin_blockIdx_t::operator uint3() const { return {x, y, z}; }
__device__ inline __cuda_builtin_blockDim_t::operator dim3() const { return dim3(x, y, z); }
__device__ inline __cuda_builtin_blockDim_t::operator uint3() const { return {x, y, z}; }
__device__ inline __cuda_builtin_gridDim_t::operator dim3() const { return dim3(x, y, z); }
__device__ inline __cuda_builtin_gridDim_t::operator uint3() const { return {x, y, z}; }

#include <__clang_cuda_cmath.h>
#include <__clang_cuda_intrinsics.h>

/* Sema builds a launch as a call to one of these, depending on the CUDA version it assumes. */
extern "C" unsigned __cudaPushCallConfiguration(dim3 gridSize, dim3 blockSize, size_t sharedSize = 0,
						 cudaStream_t stream = 0);

#endif
