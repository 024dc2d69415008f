/*
 * A program with no CUDA library at all that calls the shim's hooks: every real function the
 * shim looks up is then NULL, and each hook must answer its documented error (the runtime's
 * cudaErrorInitializationError, the driver's CUDA_ERROR_NOT_INITIALIZED) instead of calling
 * through a NULL pointer (shim.h, SHIM_CALL). The hooks are weak references: without the shim
 * preloaded they are NULL and the program says so (exit 2).
 */
#include <stdio.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#pragma weak cudaLaunchKernel
#pragma weak cudaMemcpy
#pragma weak cudaMemcpyAsync
#pragma weak cudaMalloc
#pragma weak cudaFree
#pragma weak cudaDeviceSynchronize
#pragma weak cudaStreamSynchronize
#pragma weak cudaEventRecord
#pragma weak cuMemAlloc_v2
#pragma weak cuMemcpyHtoD_v2
#pragma weak cuMemcpyHtoDAsync_v2
#pragma weak cuLaunchKernel

static int failed;

static void expect(const char *call, int got, int want)
{
	printf("%s=%d\n", call, got);
	if (got != want) {
		fprintf(stderr, "%s: %d, want %d\n", call, got, want);
		failed = 1;
	}
}

int main(void)
{
	if (!cudaLaunchKernel || !cuLaunchKernel) {
		fprintf(stderr, "the shim is not preloaded\n");
		return 2;
	}
	char host[64] = {0};
	void *dev = NULL;
	dim3 one = {1, 1, 1};
	CUdeviceptr d = 0;
	expect("cudaLaunchKernel", cudaLaunchKernel((const void *)main, one, one, NULL, 0, 0), cudaErrorInitializationError);
	expect("cudaMalloc", cudaMalloc(&dev, sizeof host), cudaErrorInitializationError);
	expect("cudaMemcpy", cudaMemcpy(host, host + 32, 32, cudaMemcpyHostToHost), cudaErrorInitializationError);
	expect("cudaMemcpyAsync", cudaMemcpyAsync(host, host + 32, 32, cudaMemcpyHostToHost, 0),
	       cudaErrorInitializationError);
	expect("cudaFree", cudaFree(dev), cudaErrorInitializationError);
	expect("cudaDeviceSynchronize", cudaDeviceSynchronize(), cudaErrorInitializationError);
	expect("cudaStreamSynchronize", cudaStreamSynchronize(0), cudaErrorInitializationError);
	expect("cudaEventRecord", cudaEventRecord(0, 0), cudaErrorInitializationError);
	expect("cuMemAlloc_v2", cuMemAlloc_v2(&d, sizeof host), CUDA_ERROR_NOT_INITIALIZED);
	expect("cuMemcpyHtoD_v2", cuMemcpyHtoD_v2(d, host, sizeof host), CUDA_ERROR_NOT_INITIALIZED);
	expect("cuMemcpyHtoDAsync_v2", cuMemcpyHtoDAsync_v2(d, host, sizeof host, 0), CUDA_ERROR_NOT_INITIALIZED);
	expect("cuLaunchKernel", cuLaunchKernel(0, 1, 1, 1, 1, 1, 1, 0, 0, NULL, NULL), CUDA_ERROR_NOT_INITIALIZED);
	return failed;
}
