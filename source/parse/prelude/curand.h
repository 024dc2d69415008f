/*
 * Echo's stand-in for cuRAND's curand.h (the host API): generators, their creation and
 * seeding, and the generate calls, declared only.
 */
#ifndef CURAND_H_
#define CURAND_H_
#include "cuda_runtime_api.h"
#ifdef __cplusplus
extern "C" {
#endif
typedef enum curandStatus {
	CURAND_STATUS_SUCCESS = 0,
	CURAND_STATUS_VERSION_MISMATCH = 100,
	CURAND_STATUS_NOT_INITIALIZED = 101,
	CURAND_STATUS_ALLOCATION_FAILED = 102,
	CURAND_STATUS_TYPE_ERROR = 103,
	CURAND_STATUS_OUT_OF_RANGE = 104,
	CURAND_STATUS_LENGTH_NOT_MULTIPLE = 105,
	CURAND_STATUS_DOUBLE_PRECISION_REQUIRED = 106,
	CURAND_STATUS_LAUNCH_FAILURE = 201,
	CURAND_STATUS_PREEXISTING_FAILURE = 202,
	CURAND_STATUS_INITIALIZATION_FAILED = 203,
	CURAND_STATUS_ARCH_MISMATCH = 204,
	CURAND_STATUS_INTERNAL_ERROR = 999
} curandStatus_t;
typedef enum curandRngType {
	CURAND_RNG_PSEUDO_DEFAULT = 100,
	CURAND_RNG_PSEUDO_XORWOW = 101,
	CURAND_RNG_PSEUDO_MRG32K3A = 121,
	CURAND_RNG_PSEUDO_MTGP32 = 141,
	CURAND_RNG_PSEUDO_PHILOX4_32_10 = 161,
	CURAND_RNG_QUASI_DEFAULT = 200,
	CURAND_RNG_QUASI_SOBOL32 = 201
} curandRngType_t;
typedef struct curandGenerator_st *curandGenerator_t;
curandStatus_t curandCreateGenerator(curandGenerator_t *generator, curandRngType_t rng_type);
curandStatus_t curandCreateGeneratorHost(curandGenerator_t *generator, curandRngType_t rng_type);
curandStatus_t curandDestroyGenerator(curandGenerator_t generator);
curandStatus_t curandSetPseudoRandomGeneratorSeed(curandGenerator_t generator, unsigned long long seed);
curandStatus_t curandSetQuasiRandomGeneratorDimensions(curandGenerator_t generator, unsigned int num_dimensions);
curandStatus_t curandSetStream(curandGenerator_t generator, cudaStream_t stream);
curandStatus_t curandGenerate(curandGenerator_t generator, unsigned int *outputPtr, size_t num);
curandStatus_t curandGenerateUniform(curandGenerator_t generator, float *outputPtr, size_t num);
curandStatus_t curandGenerateUniformDouble(curandGenerator_t generator, double *outputPtr, size_t num);
curandStatus_t curandGenerateNormal(curandGenerator_t generator, float *outputPtr, size_t n, float mean, float stddev);
curandStatus_t curandGenerateNormalDouble(curandGenerator_t generator, double *outputPtr, size_t n, double mean,
					  double stddev);
#ifdef __cplusplus
}
#endif
#endif
