// A sample in the samples' style: helper_cuda.h by its bare name (the build's -I points at
// Common/), every runtime call checked, one launch, the result read back.
#include <cuda_runtime.h>
#include <helper_cuda.h>
#include <helper_functions.h>

__global__ void vecScale(const float *in, float *out, float k, int n)
{
	int i = blockDim.x * blockIdx.x + threadIdx.x;
	if (i < n)
		out[i] = k * in[i];
}

int main(int argc, char **argv)
{
	int dev = findCudaDevice(argc, (const char **)argv);
	StopWatchInterface *timer = NULL;
	sdkCreateTimer(&timer);
	int n = 1 << 16;
	size_t bytes = n * sizeof(float);
	float *h_in = (float *)malloc(bytes);
	float *h_out = (float *)malloc(bytes);
	for (int i = 0; i < n; i++)
		h_in[i] = (float)i;
	float *d_in, *d_out;
	checkCudaErrors(cudaMalloc((void **)&d_in, bytes));
	checkCudaErrors(cudaMalloc((void **)&d_out, bytes));
	sdkStartTimer(&timer);
	checkCudaErrors(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));
	vecScale<<<(n + 255) / 256, 256>>>(d_in, d_out, 2.0f, n);
	getLastCudaError("vecScale");
	checkCudaErrors(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));
	sdkStopTimer(&timer);
	printf("%f %f ms\n", h_out[n - 1], sdkGetTimerValue(&timer));
	checkCudaErrors(cudaFree(d_out));
	checkCudaErrors(cudaFree(d_in));
	free(h_out);
	free(h_in);
	return dev;
}
