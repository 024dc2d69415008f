// What decides a pair's strategy (source's TestStrategyCases pins each function's): whether its
// kernels touch each byte once per copy, where a mapped buffer can pay on a discrete GPU; what
// pinning the host side needs of its lifetime; and where the merged buffer is freed. Parsed
// only, never run.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define N 4096
#define BYTES (N * sizeof(float))

__global__ void scale(const float *in, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = in[i] * 2.0f;
}

__global__ void scale_strided(const float *in, float *out, size_t n)
{
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		out[i] = in[i] + 1.0f;
}

__global__ void stencil(const float *in, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i > 0 && i + 1 < n)
		out[i] = in[i - 1] + in[i] + in[i + 1];
}

__global__ void row_sums(const float *in, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float s = 0;
	for (int j = 0; j < 16; j++)
		s += in[(i * 16 + j) % n];
	out[i] = s;
}

__global__ void tile(const float *in, float *out, int n)
{
	int i = (blockIdx.y * blockDim.y + threadIdx.y) * 64 + blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = in[i];
}

void consume(float *p);
float *kept;

// In and out once per copy: mapped on a discrete GPU.
int one_pass(void)
{
	float *h = (float *)malloc(BYTES), *d, *o = (float *)malloc(BYTES), *d_o;
	for (int i = 0; i < N; i++)
		h[i] = (float)i;
	cudaMalloc((void **)&d, BYTES);
	cudaMalloc((void **)&d_o, BYTES);
	cudaMemcpy(d, h, BYTES, cudaMemcpyHostToDevice);
	scale<<<N / 256, 256>>>(d, d_o, N);
	cudaMemcpy(o, d_o, BYTES, cudaMemcpyDeviceToHost);
	printf("%f\n", o[1]);
	cudaFree(d);
	cudaFree(d_o);
	free(h);
	free(o);
	return 0;
}

// A grid-stride loop over the global index is one pass too; a copy each iteration.
int strided(int iters)
{
	float *h = (float *)malloc(BYTES), *d, *d_o;
	cudaMalloc((void **)&d, BYTES);
	cudaMalloc((void **)&d_o, BYTES);
	for (int it = 0; it < iters; it++) {
		for (int i = 0; i < N; i++)
			h[i] = (float)(i + it);
		cudaMemcpy(d, h, BYTES, cudaMemcpyHostToDevice);
		scale_strided<<<8, 256>>>(d, d_o, N);
		cudaDeviceSynchronize();
	}
	cudaDeviceSynchronize();
	cudaFree(d);
	cudaFree(d_o);
	free(h);
	return 0;
}

// Launched every step with one copy before the loop (hotspot's power map): pinned.
int relaunched(int steps)
{
	float *h = (float *)malloc(BYTES), *d, *d_o;
	for (int i = 0; i < N; i++)
		h[i] = (float)i;
	cudaMalloc((void **)&d, BYTES);
	cudaMalloc((void **)&d_o, BYTES);
	cudaMemcpy(d, h, BYTES, cudaMemcpyHostToDevice);
	for (int s = 0; s < steps; s++)
		scale<<<N / 256, 256>>>(d, d_o, N);
	cudaDeviceSynchronize();
	cudaFree(d);
	cudaFree(d_o);
	free(h);
	return 0;
}

// Neighbours, a loop in the kernel, a 2-D index: each byte read more than once.
#define REREAD(name, kernel)                                                                       \
	int name(void)                                                                             \
	{                                                                                          \
		float *h = (float *)malloc(BYTES), *d, *d_o;                                       \
		for (int i = 0; i < N; i++)                                                        \
			h[i] = (float)i;                                                           \
		cudaMalloc((void **)&d, BYTES);                                                    \
		cudaMalloc((void **)&d_o, BYTES);                                                  \
		cudaMemcpy(d, h, BYTES, cudaMemcpyHostToDevice);                                   \
		kernel<<<N / 256, 256>>>(d, d_o, N);                                               \
		cudaDeviceSynchronize();                                                           \
		cudaFree(d);                                                                       \
		cudaFree(d_o);                                                                     \
		free(h);                                                                           \
		return 0;                                                                          \
	}
REREAD(neighbours, stencil)
REREAD(kernel_loop, row_sums)
REREAD(two_dims, tile)

// The host side freed on the error path and at the end: the merged buffer freed on both.
int early_return(int fail)
{
	float *h = (float *)malloc(BYTES), *d, *d_o;
	for (int i = 0; i < N; i++)
		h[i] = (float)i;
	cudaMalloc((void **)&d, BYTES);
	cudaMalloc((void **)&d_o, BYTES);
	cudaMemcpy(d, h, BYTES, cudaMemcpyHostToDevice);
	scale<<<N / 256, 256>>>(d, d_o, N);
	cudaDeviceSynchronize();
	if (fail) {
		cudaFree(d);
		free(h);
		return 1;
	}
	cudaFree(d);
	free(h);
	cudaFree(d_o);
	return 0;
}

// The device side freed while the host side lives on, never freed: one buffer cannot follow.
float used_after(void)
{
	float *h = (float *)malloc(BYTES), *d, *d_o;
	for (int i = 0; i < N; i++)
		h[i] = (float)i;
	cudaMalloc((void **)&d, BYTES);
	cudaMalloc((void **)&d_o, BYTES);
	cudaMemcpy(d, h, BYTES, cudaMemcpyHostToDevice);
	scale<<<N / 256, 256>>>(d, d_o, N);
	cudaDeviceSynchronize();
	cudaFree(d);
	cudaFree(d_o);
	return h[3];
}

// Which side is freed first depends on the path: the host side's free is first on one, second
// on the other.
int either_order(int c)
{
	float *h = (float *)malloc(BYTES), *d, *d_o;
	for (int i = 0; i < N; i++)
		h[i] = (float)i;
	cudaMalloc((void **)&d, BYTES);
	cudaMalloc((void **)&d_o, BYTES);
	cudaMemcpy(d, h, BYTES, cudaMemcpyHostToDevice);
	scale<<<N / 256, 256>>>(d, d_o, N);
	cudaDeviceSynchronize();
	if (c)
		cudaFree(d);
	free(h);
	if (!c)
		cudaFree(d);
	cudaFree(d_o);
	return 0;
}

// What pinning cannot follow: the host pointer handed on, resized, kept, or copied
// asynchronously, and a device reset while it lives; and what it can (fread).
int handed_on(cudaStream_t s)
{
	float *h = (float *)malloc(BYTES), *d, *d_o;
	for (int i = 0; i < N; i++)
		h[i] = (float)i;
	cudaMalloc((void **)&d, BYTES);
	cudaMalloc((void **)&d_o, BYTES);
	cudaMemcpy(d, h, BYTES, cudaMemcpyHostToDevice);
	for (int k = 0; k < 3; k++)
		scale<<<N / 256, 256, 0, s>>>(d, d_o, N);
	cudaDeviceSynchronize();
	consume(h);
	cudaFree(d);
	cudaFree(d_o);
	free(h);
	return 0;
}

int resized(cudaStream_t s)
{
	float *h = (float *)malloc(BYTES), *d, *d_o;
	for (int i = 0; i < N; i++)
		h[i] = (float)i;
	cudaMalloc((void **)&d, BYTES);
	cudaMalloc((void **)&d_o, BYTES);
	cudaMemcpy(d, h, BYTES, cudaMemcpyHostToDevice);
	for (int k = 0; k < 3; k++)
		scale<<<N / 256, 256, 0, s>>>(d, d_o, N);
	cudaDeviceSynchronize();
	h = (float *)realloc(h, 2 * BYTES);
	cudaFree(d);
	cudaFree(d_o);
	free(h);
	return 0;
}

int kept_global(cudaStream_t s)
{
	float *h = (float *)malloc(BYTES), *d, *d_o;
	for (int i = 0; i < N; i++)
		h[i] = (float)i;
	cudaMalloc((void **)&d, BYTES);
	cudaMalloc((void **)&d_o, BYTES);
	cudaMemcpy(d, h, BYTES, cudaMemcpyHostToDevice);
	for (int k = 0; k < 3; k++)
		scale<<<N / 256, 256, 0, s>>>(d, d_o, N);
	cudaDeviceSynchronize();
	kept = h;
	cudaFree(d);
	cudaFree(d_o);
	free(h);
	return 0;
}

int async_copy(cudaStream_t s)
{
	float *h = (float *)malloc(BYTES), *d, *d_o;
	for (int i = 0; i < N; i++)
		h[i] = (float)i;
	cudaMalloc((void **)&d, BYTES);
	cudaMalloc((void **)&d_o, BYTES);
	cudaMemcpy(d, h, BYTES, cudaMemcpyHostToDevice);
	for (int k = 0; k < 3; k++)
		scale<<<N / 256, 256, 0, s>>>(d, d_o, N);
	cudaDeviceSynchronize();
	cudaMemcpyAsync(h, d_o, BYTES, cudaMemcpyDeviceToHost, s);
	cudaFree(d);
	cudaFree(d_o);
	free(h);
	return 0;
}

int reset_while_used(cudaStream_t s)
{
	float *h = (float *)malloc(BYTES), *d, *d_o;
	for (int i = 0; i < N; i++)
		h[i] = (float)i;
	cudaMalloc((void **)&d, BYTES);
	cudaMalloc((void **)&d_o, BYTES);
	cudaMemcpy(d, h, BYTES, cudaMemcpyHostToDevice);
	for (int k = 0; k < 3; k++)
		scale<<<N / 256, 256, 0, s>>>(d, d_o, N);
	cudaDeviceSynchronize();
	cudaDeviceReset();
	printf("%f\n", h[0]);
	cudaFree(d);
	cudaFree(d_o);
	free(h);
	return 0;
}

int read_from_file(cudaStream_t s)
{
	float *h = (float *)malloc(BYTES), *d, *d_o;
	for (int i = 0; i < N; i++)
		h[i] = (float)i;
	cudaMalloc((void **)&d, BYTES);
	cudaMalloc((void **)&d_o, BYTES);
	cudaMemcpy(d, h, BYTES, cudaMemcpyHostToDevice);
	for (int k = 0; k < 3; k++)
		scale<<<N / 256, 256, 0, s>>>(d, d_o, N);
	cudaDeviceSynchronize();
	fread(h, sizeof(float), N, stdin);
	cudaFree(d);
	cudaFree(d_o);
	free(h);
	return 0;
}

// A free helper that does more than free: replacing its call would lose the message.
static void release(float *p)
{
	printf("releasing\n");
	free(p);
}

int noisy_free(void)
{
	float *h = (float *)malloc(BYTES), *d, *d_o;
	for (int i = 0; i < N; i++)
		h[i] = (float)i;
	cudaMalloc((void **)&d, BYTES);
	cudaMalloc((void **)&d_o, BYTES);
	cudaMemcpy(d, h, BYTES, cudaMemcpyHostToDevice);
	for (int k = 0; k < 3; k++)
		scale<<<N / 256, 256>>>(d, d_o, N);
	cudaDeviceSynchronize();
	cudaFree(d);
	cudaFree(d_o);
	release(h);
	return 0;
}
