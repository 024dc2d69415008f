// In the style of cuda-samples' asyncAPI and simpleStreams: errors checked through a
// checkCudaErrors macro over a template, page-locked host memory from cudaMallocHost, the
// device buffer cleared with cudaMemset, one whole-buffer round trip on the default stream
// overlapped with host work, then the same work split into chunks over several streams.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

template <typename T>
void check(T result, char const *const func, const char *const file, int const line)
{
	if (result) {
		fprintf(stderr, "CUDA error at %s:%d code=%d \"%s\"\n", file, line, (int)result, func);
		exit(EXIT_FAILURE);
	}
}
#define checkCudaErrors(val) check((val), #val, __FILE__, __LINE__)

__global__ void increment_kernel(int *g_data, int inc_value)
{
	int idx = blockIdx.x * blockDim.x + threadIdx.x;
	g_data[idx] = g_data[idx] + inc_value;
}

static bool correct_output(int *data, const int n, const int x)
{
	for (int i = 0; i < n; i++)
		if (data[i] != x)
			return false;
	return true;
}

int main(void)
{
	const int nstreams = 4;
	int n = 16 * 1024 * 1024;
	int nbytes = n * sizeof(int);
	int value = 26;

	int *a = 0;
	checkCudaErrors(cudaMallocHost((void **)&a, nbytes));
	memset(a, 0, nbytes);
	int *d_a = 0;
	checkCudaErrors(cudaMalloc((void **)&d_a, nbytes));
	checkCudaErrors(cudaMemset(d_a, 255, nbytes));

	dim3 threads = dim3(512, 1);
	dim3 blocks = dim3(n / threads.x, 1);
	cudaEvent_t stop;
	checkCudaErrors(cudaEventCreate(&stop));

	// asyncAPI: issue everything on stream 0, count host iterations until it is done.
	checkCudaErrors(cudaMemcpyAsync(d_a, a, nbytes, cudaMemcpyHostToDevice, 0));
	increment_kernel<<<blocks, threads, 0, 0>>>(d_a, value);
	checkCudaErrors(cudaMemcpyAsync(a, d_a, nbytes, cudaMemcpyDeviceToHost, 0));
	checkCudaErrors(cudaEventRecord(stop, 0));
	unsigned long counter = 0;
	while (cudaEventQuery(stop) == cudaErrorNotReady)
		counter++;
	bool ok = correct_output(a, n, value);

	// simpleStreams: the same increment in chunks, one per stream.
	cudaStream_t streams[nstreams];
	for (int i = 0; i < nstreams; i++)
		checkCudaErrors(cudaStreamCreate(&streams[i]));
	for (int i = 0; i < nstreams; i++) {
		int off = i * n / nstreams;
		checkCudaErrors(cudaMemcpyAsync(d_a + off, a + off, nbytes / nstreams, cudaMemcpyHostToDevice, streams[i]));
		increment_kernel<<<blocks.x / nstreams, threads, 0, streams[i]>>>(d_a + off, value);
		checkCudaErrors(cudaMemcpyAsync(a + off, d_a + off, nbytes / nstreams, cudaMemcpyDeviceToHost, streams[i]));
	}
	for (int i = 0; i < nstreams; i++)
		checkCudaErrors(cudaStreamSynchronize(streams[i]));
	ok = ok && correct_output(a, n, 2 * value);
	printf("host iterations while the GPU ran: %lu; %s\n", counter, ok ? "PASSED" : "FAILED");

	for (int i = 0; i < nstreams; i++)
		checkCudaErrors(cudaStreamDestroy(streams[i]));
	checkCudaErrors(cudaEventDestroy(stop));
	checkCudaErrors(cudaFreeHost(a));
	checkCudaErrors(cudaFree(d_a));
	return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
