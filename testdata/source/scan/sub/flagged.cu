// Parses only with the -D its compile command gives: the scan must have taken its flags from
// compile_commands.json. One pair, safe.
#include <cuda_runtime.h>
#include <stdlib.h>

#ifndef SCAN_N
#error "SCAN_N is set by the build (compile_commands.json)"
#endif

__global__ void incr(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] += 1.0f;
}

int main(void)
{
	size_t bytes = SCAN_N * sizeof(float);
	float *h = (float *)malloc(bytes);
	for (int i = 0; i < SCAN_N; i++)
		h[i] = 0.0f;
	float *d;
	cudaMalloc((void **)&d, bytes);
	cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);
	incr<<<(SCAN_N + 255) / 256, 256>>>(d, SCAN_N);
	cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost);
	int ok = h[0] == 1.0f;
	cudaFree(d);
	free(h);
	return ok ? 0 : 1;
}
