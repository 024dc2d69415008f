// A file that includes a library this machine does not have (a TensorRT-style engine
// header): the header is stood in for by an empty one, the function that uses its names has
// errors and its pair is undecidable, and main's own pair is still proven.
#include <cuda_runtime.h>
#include <NvInferStandIn.h>
#include <stdlib.h>

__global__ void twice(const float *in, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = 2.0f * in[i];
}

int infer(int n)
{
	size_t bytes = n * sizeof(float);
	float *h = (float *)malloc(bytes);
	float *d;
	cudaMalloc((void **)&d, bytes);
	for (int i = 0; i < n; i++)
		h[i] = (float)i;
	cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);
	standin::Engine *engine = standin::createEngine(d, n);
	engine->run();
	cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost);
	int r = (int)h[n - 1];
	cudaFree(d);
	free(h);
	return r;
}

int main(void)
{
	const int n = 4096;
	size_t bytes = n * sizeof(float);
	float *h_in = (float *)malloc(bytes);
	float *h_out = (float *)malloc(bytes);
	float *d_in, *d_out;
	cudaMalloc((void **)&d_in, bytes);
	cudaMalloc((void **)&d_out, bytes);
	for (int i = 0; i < n; i++)
		h_in[i] = (float)i;
	cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice);
	twice<<<n / 256, 256>>>(d_in, d_out, n);
	cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost);
	int r = (int)h_out[n - 1];
	cudaFree(d_out);
	cudaFree(d_in);
	free(h_out);
	free(h_in);
	return r;
}
