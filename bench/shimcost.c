/*
 * The shim's passthrough cost, for bench/shim_cost.sh: run plain and with libechoshim.so
 * preloaded on a plan whose pairs these calls never match; the difference per call is what
 * the shim adds to a program's ordinary calls.
 *   malloc(64)+free      two host-allocator hooks (a size no pair has, a pointer no pair owns)
 *   cudaFree(NULL)       one runtime hook, on the emulator's cheapest call
 * Usage: shimcost [CALLS]   prints "name ns_per_call" lines.
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000000;
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
