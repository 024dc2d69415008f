// What real programs write that the emulator's headers alone do not parse: cudaMalloc on a
// float ** without a cast (cuda_runtime.h's template), runtime calls the emulator does not
// implement, the vector types and cuda_fp16.h. Parsed by TestPreludeParsesRealPrograms.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <device_launch_parameters.h>
#include <stdio.h>
#include <stdlib.h>

__constant__ float coef[4];

__global__ void scale(const float *in, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float2 v = make_float2(in[i], coef[i % 4]);
	if (i < n)
		out[i] = v.x * v.y;
}

__global__ void halves(__half *h, float4 *v, int2 *k)
{
	int i = threadIdx.x;
	h[i] = __float2half(v[i].x + (float)k[i].y);
	if (h[i] < h[0])
		h[i] += -h[0];
}

// The pair through the template cudaMalloc: proven.
int main(void)
{
	const int n = 1 << 16;
	size_t bytes = n * sizeof(float);
	cudaSetDeviceFlags(cudaDeviceMapHost);
	float *h_in = (float *)malloc(bytes), *h_out = (float *)malloc(bytes);
	for (int i = 0; i < n; i++)
		h_in[i] = (float)i;
	float c[4] = {1, 2, 3, 4};
	cudaMemcpyToSymbol(coef, c, sizeof c);
	float *d_in, *d_out;
	cudaMalloc(&d_in, bytes);
	cudaMalloc(&d_out, bytes);
	cudaEvent_t start;
	cudaEventCreate(&start);
	cudaEventRecord(start);
	cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice);
	scale<<<n / 256, 256>>>(d_in, d_out, n);
	cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost);
	double sum = 0;
	for (int i = 0; i < n; i++)
		sum += h_out[i];
	printf("checksum=%.1f\n", sum);
	cudaFree(d_in);
	cudaFree(d_out);
	free(h_in);
	free(h_out);
	cudaDeviceReset();
	return 0;
}

// A buffer handed to a call the proofs do not model (cudaMemcpyToSymbol): not proven.
void to_symbol(int n)
{
	float *h = (float *)malloc(n * sizeof(float)), *d;
	cudaMalloc(&d, n * sizeof(float));
	cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
	scale<<<1, 256>>>(d, d, n);
	cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
	cudaMemcpyToSymbol(coef, h, sizeof coef);
	cudaFree(d);
	free(h);
}

// Stream-ordered and pitched allocations, pinned host memory through the templates.
void stream_ordered(int n, cudaStream_t s)
{
	float *h, *d, *p;
	size_t pitch;
	cudaMallocHost(&h, n * sizeof(float));
	cudaMallocAsync(&d, n * sizeof(float), s);
	cudaMallocPitch(&p, &pitch, 64 * sizeof(float), 64);
	cudaStreamAttachMemAsync(s, p);
	cudaFuncAttributes attr;
	cudaFuncGetAttributes(&attr, scale);
	cudaTextureObject_t tex = 0;
	(void)tex;
	cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
	scale<<<1, 256, 0, s>>>(d, d, n);
	cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
	cudaFreeAsync(d, s);
	cudaFree(p);
	cudaFreeHost(h);
}
