// The body of every case in this directory (TestKernelBodies): a host buffer h and its device
// side d, the kernel launched on d and an output d_out with the given configuration, then the
// host's read of h after the launch, before the D2H copy brings the kernel's writes back: the
// read S1 judges, refused when the kernel may write d.
#include <cuda_runtime.h>
#include <stdlib.h>

#define N 4096

#define PAIR_LAUNCHED(grid, block, ...)                                        \
	float *h = (float *)malloc(N * sizeof(float)), *d, *d_out;            \
	for (int i = 0; i < N; i++)                                           \
		h[i] = (float)i;                                              \
	cudaMalloc((void **)&d, N * sizeof(float));                           \
	cudaMalloc((void **)&d_out, N * sizeof(float));                       \
	cudaMemcpy(d, h, N * sizeof(float), cudaMemcpyHostToDevice);          \
	__VA_ARGS__<<<grid, block>>>(d, d_out);                               \
	cudaDeviceSynchronize();                                              \
	float first = h[0];                                                   \
	cudaMemcpy(h, d, N * sizeof(float), cudaMemcpyDeviceToHost);          \
	cudaFree(d);                                                          \
	cudaFree(d_out);                                                      \
	free(h);                                                              \
	return first;
