/*
 * A program that uses the CUDA driver API directly: the tracer must record its cuMem* calls
 * (and, in runtime programs, not the driver calls the runtime makes). Built with nvcc -lcuda
 * by bench/tracer_gpu.sh and with g++ against the emulator's libcuda.so.1 by the Makefile
 * (build/tests/driver_api, tracer/driver_test.go).
 * Usage: driver_api [COPIES]   prints checksum=1 when the data came back intact.
 */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	CHECK(cuMemcpyDtoH(back, d, bytes));
	CHECK(cuCtxSynchronize());
	printf("checksum=%d\n", memcmp(h, back, bytes) == 0);
	CHECK(cuMemFree(d));
	CHECK(cuDevicePrimaryCtxRelease(dev));
	free(h);
	free(back);
	return 0;
}
