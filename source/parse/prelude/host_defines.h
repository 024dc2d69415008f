/*
 * Echo's stand-in for CUDA's host_defines.h (crt/host_defines.h): the function and variable
 * attributes as clang spells them, which cuda_runtime.h gives every file that includes it,
 * .cpp files too.
 */
#ifndef __HOST_DEFINES_H__
#define __HOST_DEFINES_H__

#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __forceinline__ __inline__ __attribute__((always_inline))
/* Empty, not noinline: libstdc++ spells __attribute__((__noinline__)), which the real macro
 * breaks under clang 14 and an empty one leaves a valid empty attribute list. */
#define __noinline__
#define __inline_hint__ __attribute__((nv_inline_hint))
#define __align__(n) __attribute__((aligned(n)))
#define __thread__ __thread
#define __restrict__ __restrict
#define __device_builtin__
#define __device_builtin_texture_type__
#define __device_builtin_surface_type__
#define __cudart_builtin__
#define __builtin_align__(a) __align__(a)
#define __grid_constant__
#define __nv_pure__
#define CUDARTAPI
#define CUDART_CB
#define __CUDA_ALIGN__(n) __align__(n)

#endif
