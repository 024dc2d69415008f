/*
 * CHECK for the benchmarks built with nvcc (gpu_build in lib.sh): a runtime call that fails
 * ends the program, saying where and why.
 */
#ifndef ECHO_BENCH_CHECK_H
#define ECHO_BENCH_CHECK_H
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                                   \
	do {                                                                                          \
		cudaError_t e_ = (call);                                                              \
		if (e_ != cudaSuccess) {                                                              \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
			exit(1);                                                                      \
		}                                                                                     \
	} while (0)

#endif
