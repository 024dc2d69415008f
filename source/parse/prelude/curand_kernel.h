/*
 * Echo's stand-in for cuRAND's curand_kernel.h: the device generator states and the calls that
 * seed and draw from them, declared only.
 */
#ifndef CURAND_KERNEL_H_
#define CURAND_KERNEL_H_

#include "cuda_runtime.h"

typedef struct curandStateXORWOW {
	unsigned int d, v[5];
	int boxmuller_flag, boxmuller_flag_double;
	float boxmuller_extra;
	double boxmuller_extra_double;
} curandStateXORWOW_t;
typedef curandStateXORWOW_t curandState_t;
typedef curandStateXORWOW_t curandState;
typedef struct curandStatePhilox4_32_10 {
	uint4 ctr, output;
	uint2 key;
	unsigned int STATE;
	int boxmuller_flag, boxmuller_flag_double;
	float boxmuller_extra;
	double boxmuller_extra_double;
} curandStatePhilox4_32_10_t;
typedef struct curandStateMRG32k3a {
	unsigned int s1[3], s2[3];
	int boxmuller_flag, boxmuller_flag_double;
	float boxmuller_extra;
	double boxmuller_extra_double;
} curandStateMRG32k3a_t;

#define ECHO_CURAND_STATE(S)                                                                       \
	__device__ void curand_init(unsigned long long seed, unsigned long long subsequence,         \
				    unsigned long long offset, S *state);                             \
	__device__ unsigned int curand(S *state);                                                    \
	__device__ float curand_uniform(S *state);                                                   \
	__device__ double curand_uniform_double(S *state);                                           \
	__device__ float curand_normal(S *state);                                                    \
	__device__ double curand_normal_double(S *state);                                            \
	__device__ float2 curand_normal2(S *state);                                                  \
	__device__ float curand_log_normal(S *state, float mean, float stddev);                      \
	__device__ unsigned int curand_poisson(S *state, double lambda);
ECHO_CURAND_STATE(curandStateXORWOW_t)
ECHO_CURAND_STATE(curandStatePhilox4_32_10_t)
ECHO_CURAND_STATE(curandStateMRG32k3a_t)
#undef ECHO_CURAND_STATE
__device__ float4 curand_uniform4(curandStatePhilox4_32_10_t *state);
__device__ float4 curand_normal4(curandStatePhilox4_32_10_t *state);
__device__ uint4 curand4(curandStatePhilox4_32_10_t *state);

#endif
