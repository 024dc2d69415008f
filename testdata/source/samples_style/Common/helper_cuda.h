// In the style of the CUDA samples' helper_cuda.h: error checks over the runtime's error
// type, declared only when the runtime's types are in scope (__DRIVER_TYPES_H__).
#ifndef SAMPLES_STYLE_HELPER_CUDA_H
#define SAMPLES_STYLE_HELPER_CUDA_H

#include <stdio.h>
#include <stdlib.h>

#ifdef __DRIVER_TYPES_H__
static const char *errorName(cudaError_t error) { return cudaGetErrorName(error); }

template <typename T> void check(T result, char const *const func, const char *const file, int const line)
{
	if (result) {
		fprintf(stderr, "CUDA error at %s:%d code=%d(%s) \"%s\"\n", file, line, (int)result, errorName(result), func);
		exit(EXIT_FAILURE);
	}
}

#define checkCudaErrors(val) check((val), #val, __FILE__, __LINE__)

inline void lastError(const char *msg, const char *file, const int line)
{
	cudaError_t err = cudaGetLastError();
	if (cudaSuccess != err) {
		fprintf(stderr, "%s(%i) : getLastCudaError() CUDA error : %s : (%d) %s.\n", file, line, msg, (int)err,
			cudaGetErrorString(err));
		exit(EXIT_FAILURE);
	}
}
#define getLastCudaError(msg) lastError(msg, __FILE__, __LINE__)

inline int findCudaDevice(int argc, const char **argv)
{
	int dev = 0;
	checkCudaErrors(cudaSetDevice(dev));
	return argc > 1 && argv[1][0] == '1' ? 1 : dev;
}
#endif

#endif
