// unsafe.cu with its early host write under #ifndef QUIET (issue 46): built as the project
// builds it (no QUIET), h_in/d_in is unsafe (S1 refused); a compile database that defines
// QUIET makes it provably safe, for that build only. A database another user left in a parent
// directory must not decide which build is proved.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

__global__ void scale(const float *in, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = 2.0f * in[i];
}

int main(void)
{
	const int n = 1 << 16;
	size_t bytes = n * sizeof(float);
	float *h_in = (float *)malloc(bytes);
	float *h_out = (float *)malloc(bytes);
	float *d_in, *d_out;
	cudaMalloc((void **)&d_in, bytes);
	cudaMalloc((void **)&d_out, bytes);
	for (int i = 0; i < n; i++)
		h_in[i] = (float)i;
	cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice);
	double sum = 0;
	for (int it = 0; it < 4; it++) {
		scale<<<(n + 255) / 256, 256>>>(d_in, d_out, n);
#ifndef QUIET
		h_in[0] = (float)it; /* the next batch, written too early */
#endif
		cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost);
		for (int i = 0; i < n; i++)
			sum += h_out[i];
	}
	printf("checksum=%.1f\n", sum);
	cudaFree(d_out);
	cudaFree(d_in);
	free(h_out);
	free(h_in);
	return 0;
}
