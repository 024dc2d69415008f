// Kernels whose non-const pointer parameters are only read through (as Rodinia's are: it
// seldom writes const): the host may read the host side after the launch, before the D2H
// copy, and the pair is still proven. TestKernelBodies pins each function's verdict.
#include "pair.h"

__global__ void sum_rows(float *in, float *out)
{
	__shared__ float part[16][16];
	int tx = threadIdx.x, ty = threadIdx.y;
	part[ty][tx] = in[ty * 16 + tx];
	__syncthreads();
	if (tx == 0) {
		float s = 0;
		for (int i = 0; i < 16; i++)
			s += part[ty][i];
		out[ty] = s;
	}
}

__device__ float at(float *q, int i) { return q[i]; }

__global__ void through_helper(float *in, float *out) { out[threadIdx.x] = at(in, threadIdx.x) * 2; }

__global__ void through_ldg(float *in, float *out) { out[threadIdx.x] = __ldg(in + threadIdx.x); }

#define PAIR(kernel) PAIR_LAUNCHED(1, dim3(16, 16), kernel)

float shared_reduction(void) { PAIR(sum_rows) }
float helper(void) { PAIR(through_helper) }
float ldg(void) { PAIR(through_ldg) }

__global__ void restricted(float *__restrict__ in, float *__restrict__ out) { out[threadIdx.x] = in[threadIdx.x]; }
float restrict_qualified(void) { PAIR(restricted) }

// A template's instantiation is the function its launch names: its body is read like any.
template <class T> __global__ void templated(T *in, T *out) { out[threadIdx.x] = in[threadIdx.x]; }
float templ(void) { PAIR(templated<float>) }

// A pointer to const the body only reads, through a local pointer into it and a __device__
// function.
__device__ float second(const float *q) { return q[1]; }
__global__ void const_reads(const float *in, float *out)
{
	const float *row = in + threadIdx.x;
	out[threadIdx.x] = row[0] + second(in);
}
float const_read(void) { PAIR(const_reads) }

// A static method called with values only (as std::numeric_limits<int>::max()) writes nothing
// the kernel was given.
struct limits {
	__device__ static float cap() { return 8.0f; }
};
__global__ void static_method(float *in, float *out) { out[threadIdx.x] = in[threadIdx.x] < limits::cap() ? in[threadIdx.x] : limits::cap(); }
float static_call(void) { PAIR(static_method) }
