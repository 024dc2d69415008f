// Kernels that may write the device side through a parameter, const or not (const can be cast
// away: what a kernel writes is read from its body, never from a type), or that hold
// something the analysis cannot see through: the host reading the host side after the
// launch, before the D2H copy brings the kernel's writes back, is refused (S1).
// TestKernelBodies pins each function's verdict.
#include "pair.h"

__global__ void writes_param(float *p, float *out) { p[threadIdx.x] = 2 * p[threadIdx.x]; }

__device__ float *g_alias;
__global__ void writes_global(float *p, float *out) { g_alias[threadIdx.x] = p[threadIdx.x]; }

__device__ void bump(float *q) { q[0] += 1; }
__global__ void writes_in_helper(float *p, float *out) { bump(p); }

__global__ void atomic_add(float *p, float *out) { atomicAdd(&p[0], out[0]); }

__global__ void increments(float *p, float *out)
{
	p += threadIdx.x;
	out[0] = *p;
}

__global__ void stores(float *p, float *out) { g_alias = p; }

__device__ float opaque(float *q); // no body in this translation unit
__global__ void calls_opaque(float *p, float *out) { out[0] = opaque(p); }

__global__ void inline_asm(float *p, float *out)
{
	asm volatile("" ::: "memory");
	out[0] = p[0];
}

#define PAIR(...) PAIR_LAUNCHED(1, 256, __VA_ARGS__)

float param(void) { PAIR(writes_param) }
float global(void) { PAIR(writes_global) }
float helper(void) { PAIR(writes_in_helper) }
float atomic(void) { PAIR(atomic_add) }
float increment(void) { PAIR(increments) }
float store(void) { PAIR(stores) }
float opaque_call(void) { PAIR(calls_opaque) }
float assembly(void) { PAIR(inline_asm) }

__global__ void through_reference(float *p, float *out)
{
	float &r = p[threadIdx.x];
	r = out[0];
}
float reference(void) { PAIR(through_reference) }

// A pointer to const written all the same: through a C cast, const_cast, reinterpret_cast, an
// atomic on the cast pointer, a local copy of the parameter, a __device__ function (two calls
// deep), inline assembly.
__global__ void c_cast(const float *p, float *out) { ((float *)p)[threadIdx.x] = out[0]; }
float const_c_cast(void) { PAIR(c_cast) }

__global__ void k_const_cast(const float *p, float *out) { const_cast<float *>(p)[0] = out[0]; }
float const_cast_write(void) { PAIR(k_const_cast) }

__global__ void k_reinterpret(const float *p, float *out) { *reinterpret_cast<unsigned *>(const_cast<float *>(p)) = 0; }
float reinterpret(void) { PAIR(k_reinterpret) }

__global__ void k_atomic_cast(const float *p, float *out) { atomicExch((float *)p + threadIdx.x, out[0]); }
float atomic_cast(void) { PAIR(k_atomic_cast) }

__global__ void k_local_copy(const float *p, float *out)
{
	float *q = (float *)p + 1;
	q[threadIdx.x] = out[0];
}
float local_copy(void) { PAIR(k_local_copy) }

__device__ void poke_deep(const float *q, float v) { *(float *)q = v; }
__device__ void poke(const float *q, float v) { poke_deep(q + threadIdx.x, v); }
__global__ void k_device_fn(const float *p, float *out) { poke(p, out[0]); }
float device_fn(void) { PAIR(k_device_fn) }

__global__ void k_asm_const(const float *p, float *out) { asm volatile("" : : "l"(p) : "memory"); }
float asm_const(void) { PAIR(k_asm_const) }

// A kernel whose body is not in this translation unit (-rdc, another file) may write every
// argument, const or not.
__global__ void elsewhere(const float *p, float *out);
float extern_kernel(void) { PAIR(elsewhere) }
