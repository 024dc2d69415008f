/*
 * The shim's own costs, for bench/shim_cost.sh.
 *
 *   shimcost [CALLS]          run plain and with libechoshim.so preloaded on a plan whose
 *                             pairs these calls never match; the difference per call is what
 *                             the shim adds to a program's ordinary calls:
 *       malloc(64)+free           two host-allocator hooks (a size no pair has, a pointer no
 *                                 pair owns)
 *       cudaFree(NULL)            one runtime hook, on the emulator's cheapest call
 *   shimcost copies CALLS     one 1 MiB host/device pair and CALLS whole-buffer H2D copies
 *                             between them, then CALLS idle device-wide waits. Deployed on a
 *                             plan that merges the pair, each copy is elided and costs the
 *                             hook plus the wait it keeps; the second line is the wait alone.
 * Prints "name ns_per_call" lines.
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PAIR_BYTES (1 << 20)

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int passthrough(long n)
{
	void *volatile sink;
	cudaFree(NULL); /* initialise */
	double t0 = now_ns();
	for (long i = 0; i < n; i++) {
		sink = malloc(64);
		free(sink);
	}
	printf("malloc(64)+free %.2f\n", (now_ns() - t0) / (double)n);
	t0 = now_ns();
	for (long i = 0; i < n; i++)
		cudaFree(NULL);
	printf("cudaFree(NULL) %.2f\n", (now_ns() - t0) / (double)n);
	return 0;
}

static int copies(long n)
{
	char *h = (char *)malloc(PAIR_BYTES);
	void *d = NULL;
	if (!h || cudaMalloc(&d, PAIR_BYTES) != cudaSuccess) {
		fprintf(stderr, "shimcost: allocation failed\n");
		return 1;
	}
	memset(h, 1, PAIR_BYTES);
	double t0 = now_ns();
	for (long i = 0; i < n; i++)
		if (cudaMemcpy(d, h, PAIR_BYTES, cudaMemcpyHostToDevice) != cudaSuccess) {
			fprintf(stderr, "shimcost: copy failed\n");
			return 1;
		}
	printf("cudaMemcpy(1MiB) %.2f\n", (now_ns() - t0) / (double)n);
	t0 = now_ns();
	for (long i = 0; i < n; i++)
		cudaDeviceSynchronize();
	printf("cudaDeviceSynchronize %.2f\n", (now_ns() - t0) / (double)n);
	cudaFree(d);
	free(h);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "copies"))
		return copies(atol(argv[2]));
	return passthrough(argc > 1 ? atol(argv[1]) : 20000000);
}
