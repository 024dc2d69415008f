/*
 * A copy→kernel→copy loop beside a data loader whose threads allocate too (a PyTorch
 * DataLoader whose workers make tensors): LOADERS threads allocate and free host and device
 * buffers of the loop's size, through the very helpers the loop allocates its buffers with,
 * until the loop is done. At each helper's allocation site the threads' calls interleave as
 * they run, so a site and an ordinal there name no buffer; the call chain does: the loop's
 * buffers come through the helpers called from loop(), the loader's from loader(). The
 * loaders copy nothing, so every pair is the loop's.
 * Usage: loader_threads [ITERATIONS] [BYTES]
 */
#define _DEFAULT_SOURCE /* usleep */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda_emulator.h"
#include "check.h"
#include "triple.h"

#define LOADERS 2

static atomic_bool done;

/* The helpers every thread allocates through: one site each. */
static __attribute__((noinline)) void *host_buffer(size_t bytes)
{
	void *p = malloc(bytes);
	if (!p)
		exit(1);
	return p;
}

static __attribute__((noinline)) void *device_buffer(size_t bytes)
{
	void *p;
	CHECK(cudaMalloc(&p, bytes));
	return p;
}

static void *loader(void *arg)
{
	size_t bytes = *(size_t *)arg;
	while (!atomic_load(&done)) {
		void *h = host_buffer(bytes), *d = device_buffer(bytes);
		memset(h, 0x5a, bytes);
		CHECK(cudaFree(d));
		free(h);
		usleep(100);
	}
	return NULL;
}

static __attribute__((noinline)) int loop(int iters, size_t bytes)
{
	uint32_t *h_in = host_buffer(bytes), *d_in = device_buffer(bytes);
	uint32_t *h_out = host_buffer(bytes), *d_out = device_buffer(bytes);
	uint64_t sum = triple_loop(iters, bytes, h_in, h_out, d_in, d_out, 0);
	return report_and_free(sum, h_in, h_out, d_in, d_out);
}

int main(int argc, char **argv)
{
	int iters = iterations_arg(argc, argv, 8);
	size_t bytes = bytes_arg(argc, argv);
	REGISTER_MAP_KERNEL(triple);
	pthread_t threads[LOADERS];
	for (int t = 0; t < LOADERS; t++)
		pthread_create(&threads[t], NULL, loader, &bytes);
	usleep(2000); /* the loaders are at it before the loop allocates */
	int rc = loop(iters, bytes);
	atomic_store(&done, true);
	for (int t = 0; t < LOADERS; t++)
		pthread_join(threads[t], NULL);
	return rc;
}
