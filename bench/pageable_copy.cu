/*
 * What a pageable host side costs a copy next to a pinned one: one device buffer, a pageable
 * (malloc) and a pinned (cudaMallocHost) host buffer, and rounds of one H2D plus one D2H of
 * the whole buffer from each, alternating so drift hits both alike. Runtime (cudaMemcpy) and
 * driver (cuMemcpyHtoD/cuMemcpyDtoH) copies are timed separately: the emulator must price
 * them alike. Built with g++ against the emulator by the Makefile (build/bench/pageable_copy)
 * and with nvcc -lcuda on the GPU host.
 * Usage: pageable_copy [MIB] [ROUNDS]   (default 64 MiB, 11 rounds; the first is dropped)
 * Prints "api host median_ms GB/s" lines, then "api pageable/pinned RATIO".
 */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_ROUNDS 101

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, by_value);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One H2D and one D2H of bytes between host and dev, through the runtime or the driver;
 * milliseconds, or -1 on an error. */
static double round_trip(void *host, void *dev, size_t bytes, bool driver)
{
	double t0 = now_ms();
	if (driver) {
		if (cuMemcpyHtoD((CUdeviceptr)dev, host, bytes) != CUDA_SUCCESS ||
		    cuMemcpyDtoH(host, (CUdeviceptr)dev, bytes) != CUDA_SUCCESS)
			return -1;
	} else if (cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice) != cudaSuccess ||
		   cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost) != cudaSuccess) {
		return -1;
	}
	return now_ms() - t0;
}

int main(int argc, char **argv)
{
	size_t bytes = (size_t)(argc > 1 ? atoi(argv[1]) : 64) << 20;
	int rounds = argc > 2 ? atoi(argv[2]) : 11;
	if (bytes == 0 || rounds < 2 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: pageable_copy [MIB] [ROUNDS 2..%d]\n", MAX_ROUNDS);
		return 2;
	}
	void *dev, *pinned, *pageable = malloc(bytes);
	if (!pageable || cudaMalloc(&dev, bytes) != cudaSuccess ||
	    cudaMallocHost(&pinned, bytes) != cudaSuccess) {
		fprintf(stderr, "pageable_copy: allocating 3 x %zu bytes failed\n", bytes);
		return 1;
	}
	/* Touched first, so no round pays the host buffers' page faults. */
	memset(pageable, 1, bytes);
	memset(pinned, 1, bytes);
	CUcontext ctx;
	if (cuInit(0) != CUDA_SUCCESS || cuDevicePrimaryCtxRetain(&ctx, 0) != CUDA_SUCCESS ||
	    cuCtxSetCurrent(ctx) != CUDA_SUCCESS) {
		fprintf(stderr, "pageable_copy: the driver did not initialise\n");
		return 1;
	}
	for (int api = 0; api < 2; api++) {
		bool driver = api == 1;
		const char *name = driver ? "driver" : "runtime";
		double t_pageable[MAX_ROUNDS], t_pinned[MAX_ROUNDS];
		for (int r = 0; r < rounds; r++) {
			t_pageable[r] = round_trip(pageable, dev, bytes, driver);
			t_pinned[r] = round_trip(pinned, dev, bytes, driver);
			if (t_pageable[r] < 0 || t_pinned[r] < 0) {
				fprintf(stderr, "pageable_copy: a %s copy failed\n", name);
				return 1;
			}
		}
		/* The first round warms caches and the staging buffer: dropped. */
		double pg = median(t_pageable + 1, rounds - 1), pn = median(t_pinned + 1, rounds - 1);
		printf("%s pageable %.3f %.2f\n", name, pg, 2.0 * (double)bytes / pg / 1e6);
		printf("%s pinned %.3f %.2f\n", name, pn, 2.0 * (double)bytes / pn / 1e6);
		printf("%s pageable/pinned %.2f\n", name, pg / pn);
	}
	cudaFreeHost(pinned);
	cudaFree(dev);
	free(pageable);
	return 0;
}
