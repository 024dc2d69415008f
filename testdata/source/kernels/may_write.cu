// Kernels that may write the device side through a non-const parameter, or that hold
// something the analysis cannot see through: the host reading the host side after the
// launch, before the D2H copy brings the kernel's writes back, is refused (S1).
// TestKernelBodies pins each function's verdict.
#include <cuda_runtime.h>
#include <stdlib.h>

#define N 4096

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

template <class T> __global__ void templated(T *p, T *out) { out[0] = p[0]; }

#define PAIR(...)                                                       \
	float *h = (float *)malloc(N * sizeof(float)), *d, *d_out;        \
	for (int i = 0; i < N; i++)                                       \
		h[i] = (float)i;                                          \
	cudaMalloc((void **)&d, N * sizeof(float));                              \
	cudaMalloc((void **)&d_out, N * sizeof(float));                          \
	cudaMemcpy(d, h, N * sizeof(float), cudaMemcpyHostToDevice);      \
	__VA_ARGS__<<<1, 256>>>(d, d_out);                                \
	cudaDeviceSynchronize();                                          \
	float first = h[0];                                               \
	cudaMemcpy(h, d, N * sizeof(float), cudaMemcpyDeviceToHost);      \
	cudaFree(d);                                                      \
	cudaFree(d_out);                                                  \
	free(h);                                                          \
	return first;

float param(void) { PAIR(writes_param) }
float global(void) { PAIR(writes_global) }
float helper(void) { PAIR(writes_in_helper) }
float atomic(void) { PAIR(atomic_add) }
float increment(void) { PAIR(increments) }
float store(void) { PAIR(stores) }
float opaque_call(void) { PAIR(calls_opaque) }
float assembly(void) { PAIR(inline_asm) }
float templ(void) { PAIR(templated<float>) }

__global__ void through_reference(float *p, float *out)
{
	float &r = p[threadIdx.x];
	r = out[0];
}
float reference(void) { PAIR(through_reference) }
