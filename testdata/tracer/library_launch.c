/*
 * A kernel launched by an entry point other than cudaLaunchKernel, while the program's
 * buffers and copies are the runtime's: stream's loop, the kernel writing the output. By
 * default through the driver, as a library with its own runtime does (cuBLAS and cuDNN link
 * one statically, which takes cuLaunchKernel from cuGetProcAddress); with "nvcc13" through
 * __cudaLaunchKernel with the handle from __cudaGetKernel, as nvcc 13 compiles <<<>>>. With
 * "early", the host reads the output between the launch and the copy that brings it (the
 * previous iteration's results, as written): merged, it would read the new ones, so
 * validation must see the launch to refuse the output.
 * Usage: library_launch [ITERATIONS] [BYTES] [early|after] [driver|nvcc13]
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda.h"
#include "cuda_emulator.h"
#include "check.h"
#include "triple.h"

MAP_KERNEL(add_one, in[i] + 1)

typedef CUresult (*get_proc_fn)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);
typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
			      CUstream, void **, void **);

/* The library's way to the driver: cuGetProcAddress_v2 from dlsym, then cuLaunchKernel. */
static launch_fn driver_launch(void)
{
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	get_proc_fn get_proc = lib ? (get_proc_fn)dlsym(lib, "cuGetProcAddress_v2") : NULL;
	CUresult (*init)(unsigned) = lib ? (CUresult(*)(unsigned))dlsym(lib, "cuInit") : NULL;
	CUresult (*retain)(CUcontext *, CUdevice) = lib ? (CUresult(*)(CUcontext *, CUdevice))dlsym(lib, "cuDevicePrimaryCtxRetain") : NULL;
	CUresult (*set_current)(CUcontext) = lib ? (CUresult(*)(CUcontext))dlsym(lib, "cuCtxSetCurrent") : NULL;
	void *f = NULL;
	CUcontext ctx;
	if (!get_proc || !init || !retain || !set_current || init(0) || retain(&ctx, 0) || set_current(ctx) ||
	    get_proc("cuLaunchKernel", &f, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, NULL) || !f) {
		fprintf(stderr, "no cuLaunchKernel from the driver\n");
		exit(1);
	}
	return (launch_fn)f;
}

int main(int argc, char **argv)
{
	int iters = iterations_arg(argc, argv, 8);
	size_t bytes = bytes_arg(argc, argv);
	int early = argc > 3 && !strcmp(argv[3], "early");
	int nvcc13 = argc > 4 && !strcmp(argv[4], "nvcc13");
	size_t n = bytes / sizeof(uint32_t);
	REGISTER_MAP_KERNEL(add_one);
	launch_fn launch = nvcc13 ? NULL : driver_launch();
	cudaKernel_t kernel;
	CHECK(__cudaGetKernel(&kernel, (const void *)add_one));
	uint32_t *h_in = malloc(bytes), *h_out = malloc(bytes), *d_in, *d_out;
	if (!h_in || !h_out)
		return 1;
	CHECK(cudaMalloc((void **)&d_in, bytes));
	CHECK(cudaMalloc((void **)&d_out, bytes));
	memset(h_out, 0, bytes);
	uint64_t sum = CHECKSUM_START;
	for (int it = 0; it < iters; it++) {
		fill_input(h_in, n, it);
		CHECK(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));
		void *params[] = {&d_in, &d_out, &n};
		if (nvcc13)
			CHECK(__cudaLaunchKernel(kernel, (dim3){1, 1, 1}, (dim3){1, 1, 1}, params, 0, NULL));
		else
			CHECK(launch((CUfunction)(void *)add_one, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL));
		if (early) /* the previous results: the new ones, once merged */
			sum = fold(sum, h_out, n, 97);
		CHECK(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));
		sum = fold(sum, h_out, n, 89);
	}
	return report_and_free(sum, h_in, h_out, d_in, d_out);
}
