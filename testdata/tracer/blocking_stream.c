/*
 * A kernel on a created blocking stream between synchronous copies on the legacy stream,
 * as simple CUDA programs order their work: the D2H copy waits for the kernel (the legacy
 * stream waits for the blocking streams' earlier work), and the host rewrites its input only
 * after it. Safe to merge; validation must count the legacy copy's wait for the blocking
 * stream, or it keeps the input's window open and refuses the rewrite.
 * Usage: blocking_stream [ITERATIONS] [BYTES]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuda_emulator.h"
#include "check.h"
#include "triple.h"

int main(int argc, char **argv)
{
	int iters = iterations_arg(argc, argv, 8);
	size_t bytes = bytes_arg(argc, argv);
	REGISTER_MAP_KERNEL(triple);
	cudaStream_t work;
	CHECK(cudaStreamCreate(&work)); /* blocking */
	uint32_t *h_in = malloc(bytes), *h_out = malloc(bytes), *d_in, *d_out;
	if (!h_in || !h_out)
		return 1;
	CHECK(cudaMalloc((void **)&d_in, bytes));
	CHECK(cudaMalloc((void **)&d_out, bytes));
	uint64_t sum = triple_loop(iters, bytes, h_in, h_out, d_in, d_out, work);
	CHECK(cudaStreamDestroy(work));
	return report_and_free(sum, h_in, h_out, d_in, d_out);
}
