/*
 * Probe costs for bench/tracer_gpu.sh, with the real CUDA runtime.
 *
 *   callcost cost CALLS        ns per call, to compare plain against `echoctl trace`:
 *       malloc(64)+free            entry+return probes on a filtered host allocation, and
 *                                  the entry probe on free
 *       cudaStreamSynchronize      entry+return probes that record one event (idle stream)
 *       cudaGetDevice              not probed: the runtime's own cost, for reference
 *       cudaLaunchKernel           an empty kernel, timed in batches of 256 launches with a
 *                                  wait between batches (untimed), so the queue never fills:
 *                                  the runtime's and driver's probes (the runtime launches
 *                                  through cuLaunchKernel)
 *   callcost rate CALLS THREADS  every thread calls cudaStreamSynchronize CALLS times on a
 *                                stream of its own, to load the tracer; prints calls/s
 *   callcost sync CALLS          ns per wait on an idle device, for bench/optimize_gpu.sh: the
 *                                device-wide wait an elided synchronous copy keeps, against
 *                                the legacy stream's wait and a query
 */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

#define MEASURE(name, n, body)                                                  \
	do {                                                                    \
		double t0 = now_ns();                                           \
		for (long i = 0; i < (n); i++) {                                \
			body;                                                   \
		}                                                               \
		printf("%-28s %10.1f\n", name, (now_ns() - t0) / (double)(n)); \
	} while (0)

static long calls;

__global__ void empty(void) {}

/* ns per launch of an empty kernel, the waits for the device between batches not counted. */
static void launch_cost(long n)
{
	const long batch = 256;
	double timed = 0;
	for (long done = 0; done < n; done += batch) {
		double t0 = now_ns();
		for (long i = 0; i < batch; i++)
			empty<<<1, 1>>>();
		timed += now_ns() - t0;
		cudaDeviceSynchronize();
	}
	printf("%-28s %10.1f\n", "cudaLaunchKernel", timed / (double)((n + batch - 1) / batch * batch));
}

static void *hammer(void *arg)
{
	(void)arg;
	cudaStream_t s;
	cudaStreamCreate(&s);
	for (long i = 0; i < calls; i++)
		cudaStreamSynchronize(s);
	cudaStreamDestroy(s);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 3 || (strcmp(argv[1], "cost") && strcmp(argv[1], "rate") && strcmp(argv[1], "sync"))) {
		fprintf(stderr, "usage: callcost cost CALLS | callcost rate CALLS THREADS | callcost sync CALLS\n");
		return 2;
	}
	calls = atol(argv[2]);
	int dev;
	if (cudaGetDevice(&dev) != cudaSuccess || cudaFree(0) != cudaSuccess) {
		fprintf(stderr, "no CUDA device\n");
		return 1;
	}
	if (!strcmp(argv[1], "rate")) {
		int threads = argc > 3 ? atoi(argv[3]) : 8;
		pthread_t t[64];
		threads = threads < 1 ? 1 : threads > 64 ? 64 : threads;
		double t0 = now_ns();
		for (int i = 0; i < threads; i++)
			pthread_create(&t[i], NULL, hammer, NULL);
		for (int i = 0; i < threads; i++)
			pthread_join(t[i], NULL);
		printf("calls_per_s %.0f\n", (double)calls * threads / ((now_ns() - t0) / 1e9));
		return 0;
	}
	if (!strcmp(argv[1], "sync")) {
		MEASURE("cudaDeviceSynchronize", calls, cudaDeviceSynchronize());
		MEASURE("cudaStreamSynchronize(0)", calls, cudaStreamSynchronize(0));
		MEASURE("cudaStreamQuery(0)", calls, cudaStreamQuery(0));
		return 0;
	}
	cudaStream_t s;
	cudaStreamCreate(&s);
	void *volatile sink;
	MEASURE("malloc(64)+free", calls, { sink = malloc(64); free(sink); });
	MEASURE("cudaStreamSynchronize", calls, cudaStreamSynchronize(s));
	MEASURE("cudaGetDevice", calls, cudaGetDevice(&dev));
	/* A small synchronous copy, page-locked to device: the call, its DMA and one probe pair. */
	void *host, *device;
	cudaMallocHost(&host, 64);
	cudaMalloc(&device, 64);
	MEASURE("cudaMemcpy(64 B, h2d)", calls / 10, cudaMemcpy(device, host, 64, cudaMemcpyHostToDevice));
	cudaFree(device);
	cudaFreeHost(host);
	launch_cost(calls / 4);
	cudaStreamDestroy(s);
	return 0;
}
