/*
 * An out-of-bounds program, like the one that planned as "too rare" on the GPU host: a
 * 1 MiB host buffer and a 1 MiB device buffer, one whole-buffer copy that works, then a loop
 * whose copies ask for 2 MiB and fail (cudaErrorInvalidValue), unchecked. The trace must say
 * the calls failed, and the plan must refuse the pair for it.
 * Usage: failing_copies [ITERATIONS]
 */
#include <stdio.h>
#include <stdlib.h>

#include "cuda_runtime_api.h"

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 20;
	size_t bytes = 1 << 20;
	float *host = malloc(bytes), *dev = NULL;
	if (!host || cudaMalloc((void **)&dev, bytes) != cudaSuccess)
		return 1;
	for (size_t i = 0; i < bytes / sizeof *host; i++)
		host[i] = (float)i;
	int failed = cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice) != cudaSuccess;
	for (int i = 0; i < iters; i++)
		failed += cudaMemcpy(dev, host, 2 * bytes, cudaMemcpyHostToDevice) != cudaSuccess;
	printf("failed=%d\n", failed);
	cudaFree(dev);
	free(host);
	return 0;
}
