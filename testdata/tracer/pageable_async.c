/*
 * What pageable memory promises and pinned memory does not. Each iteration a fresh host
 * buffer from malloc is filled, copied to the device with cudaMemcpyAsync on a created
 * stream and at once overwritten; the device copy comes back with cudaMemcpyAsync into
 * another fresh buffer, which is read at once. Neither copy is followed by a
 * synchronization: from pageable memory an asynchronous copy has read its source when it
 * returns, and to pageable memory it has written its destination. The pinned strategy
 * serves both buffers from page-locked memory, where the same calls return at once, so it
 * must wait for them (shim/pinned.c): without that wait this program prints another
 * checksum on the emulator, whose streams run on worker threads (CUDA_EMU_COPY_DELAY_US
 * widens the window).
 * With "register", each input buffer is also page-locked with cudaHostRegister while it is
 * copied (a program that pins some buffers itself): the pinned strategy must let that succeed.
 * With "2d", the device data also comes back into the input buffer with cudaMemcpy2DAsync,
 * read at once (a pitched copy on a buffer the pinned strategy serves must wait too).
 * Usage: pageable_async [ITERATIONS] [BYTES] [register|2d]
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_runtime_api.h"
#include "check.h"

int main(int argc, char **argv)
{
	int iters = iterations_arg(argc, argv, 10);
	size_t bytes = bytes_arg(argc, argv);
	bool reg = argc > 3 && !strcmp(argv[3], "register");
	bool pitched = argc > 3 && !strcmp(argv[3], "2d");
	size_t n = bytes / sizeof(uint32_t);
	uint32_t *dev;
	cudaStream_t stream;
	CHECK(cudaMalloc((void **)&dev, bytes));
	CHECK(cudaStreamCreate(&stream));
	uint64_t sum = CHECKSUM_START;
	for (int it = 0; it < iters; it++) {
		uint32_t *in = malloc(bytes), *out = malloc(bytes);
		if (!in || !out)
			return 1;
		fill_input(in, n, it);
		if (reg)
			CHECK(cudaHostRegister(in, bytes, cudaHostRegisterDefault));
		CHECK(cudaMemcpyAsync(dev, in, bytes, cudaMemcpyHostToDevice, stream));
		if (reg) {
			CHECK(cudaStreamSynchronize(stream)); /* registered: the copy may still read it */
			CHECK(cudaHostUnregister(in));
		}
		memset(in, 0xff, bytes); /* pageable: the copy has read it already */
		if (pitched) {
			CHECK(cudaMemcpy2DAsync(in, bytes, dev, bytes, bytes, 1, cudaMemcpyDeviceToHost, stream));
			sum = fold(sum, in, n, 89); /* pageable: written already */
		}
		CHECK(cudaMemcpyAsync(out, dev, bytes, cudaMemcpyDeviceToHost, stream));
		sum = fold(sum, out, n, 97); /* pageable: the copy has written it already */
		free(in);
		free(out);
	}
	CHECK(cudaStreamSynchronize(stream));
	print_checksum(sum);
	CHECK(cudaStreamDestroy(stream));
	CHECK(cudaFree(dev));
	return 0;
}
