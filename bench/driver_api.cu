/*
 * A program that uses the CUDA driver API directly: the tracer must record its cuMem* calls
 * and its kernel launch (and, in runtime programs, not the driver calls the runtime makes).
 * Built with nvcc -lcuda by bench/tracer_gpu.sh and with g++ against the emulator's
 * libcuda.so.1 by the Makefile (build/tests/driver_api, tracer/driver_test.go).
 * Usage: driver_api [COPIES]   prints checksum=1 when the data came back incremented.
 */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* add_one(p, n): p[i] += 1, launched through cuLaunchKernel. */
#ifdef ECHO_EMU_CUDA_H
#include "cuda_emulator.h"

static void add_one(dim3 grid, dim3 block, void **args)
{
	(void)grid;
	(void)block;
	unsigned char *p = *(unsigned char **)args[0];
	size_t n = *(size_t *)args[1];
	for (size_t i = 0; i < n; i++)
		p[i] += 1;
}

static CUfunction add_one_function(void)
{
	const size_t sizes[] = {sizeof(void *), sizeof(size_t)};
	emuRegisterKernel((const void *)add_one, "add_one", 2, sizes);
	return (CUfunction)(void *)add_one;
}
#else
#include <cuda_runtime.h>

__global__ void add_one(unsigned char *p, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		p[i] += 1;
}

static CUfunction add_one_function(void)
{
	cudaFunction_t f = NULL;
	cudaGetFuncBySymbol(&f, (const void *)add_one);
	return (CUfunction)f;
}
#endif

#define CHECK(call)                                                               \
	do {                                                                      \
		CUresult r_ = (call);                                             \
		if (r_ != CUDA_SUCCESS) {                                         \
			fprintf(stderr, "%s failed: %d\n", #call, (int)r_);       \
			return 1;                                                 \
		}                                                                 \
	} while (0)

int main(int argc, char **argv)
{
	int copies = argc > 1 ? atoi(argv[1]) : 4;
	size_t bytes = 1 << 20;
	CUdevice dev;
	CUcontext ctx;
	CUdeviceptr d;
	CHECK(cuInit(0));
	CHECK(cuDeviceGet(&dev, 0));
	CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CHECK(cuCtxSetCurrent(ctx));
	unsigned char *h = (unsigned char *)malloc(bytes), *back = (unsigned char *)malloc(bytes);
	memset(h, 3, bytes);
	CHECK(cuMemAlloc(&d, bytes));
	for (int i = 0; i < copies; i++)
		CHECK(cuMemcpyHtoD(d, h, bytes));
	void *params[] = {&d, &bytes};
	CHECK(cuLaunchKernel(add_one_function(), (unsigned)(bytes / 256), 1, 1, 256, 1, 1, 0, NULL, params, NULL));
	CHECK(cuMemcpyDtoH(back, d, bytes));
	CHECK(cuCtxSynchronize());
	memset(h, 4, bytes);
	printf("checksum=%d\n", memcmp(h, back, bytes) == 0);
	CHECK(cuMemFree(d));
	CHECK(cuDevicePrimaryCtxRelease(dev));
	free(h);
	free(back);
	return 0;
}
