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
	int iters = argc > 1 ? atoi(argv[1]) : 8;
	size_t bytes = argc > 2 ? strtoull(argv[2], NULL, 0) : 1 << 20;
	size_t n = bytes / sizeof(uint32_t);
	const size_t sizes[] = {sizeof(void *), sizeof(void *), sizeof(size_t)};
	CHECK(emuRegisterKernel((const void *)triple, "triple", 3, sizes));
	cudaStream_t work;
	CHECK(cudaStreamCreate(&work)); /* blocking */
	uint32_t *h_in = malloc(bytes), *h_out = malloc(bytes), *d_in, *d_out;
	if (!h_in || !h_out)
		return 1;
	CHECK(cudaMalloc((void **)&d_in, bytes));
	CHECK(cudaMalloc((void **)&d_out, bytes));
	uint64_t sum = CHECKSUM_START;
	for (int it = 0; it < iters; it++) {
		fill_input(h_in, n, it);
		CHECK(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));
		void *args[] = {&d_in, &d_out, &n};
		CHECK(cudaLaunchKernel((const void *)triple, (dim3){1, 1, 1}, (dim3){1, 1, 1}, args, 0, work));
		CHECK(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost)); /* waits for the kernel */
		sum = fold(sum, h_out, n, 89);
	}
	printf("checksum=%016llx\n", (unsigned long long)sum);
	CHECK(cudaStreamDestroy(work));
	CHECK(cudaFree(d_in));
	CHECK(cudaFree(d_out));
	free(h_in);
	free(h_out);
	return 0;
}
