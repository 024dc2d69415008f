/* The kernels of the tracer's loop programs and their copy→kernel→copy loop. A kernel here is
 * a host function the emulator runs, registered with emuRegisterKernel. Include after
 * cuda_emulator.h and check.h. */
#ifndef ECHO_TESTDATA_TRACER_TRIPLE_H
#define ECHO_TESTDATA_TRACER_TRIPLE_H

/* An element-wise kernel over n words, out[i] = expr, with its (in, out, n) arguments. */
#define MAP_KERNEL(name, expr)                                                  \
	static __attribute__((unused)) void name(dim3 grid, dim3 block, void **args) \
	{                                                                       \
		(void)grid;                                                     \
		(void)block;                                                    \
		const uint32_t *in = *(const uint32_t **)args[0];               \
		uint32_t *out = *(uint32_t **)args[1];                          \
		size_t n = *(size_t *)args[2];                                  \
		for (size_t i = 0; i < n; i++)                                  \
			out[i] = (expr);                                        \
	}

/* Registers a MAP_KERNEL with the emulator under its own name. */
#define REGISTER_MAP_KERNEL(name)                                                         \
	do {                                                                              \
		const size_t sizes_[] = {sizeof(void *), sizeof(void *), sizeof(size_t)}; \
		CHECK(emuRegisterKernel((const void *)name, #name, 3, sizes_));           \
	} while (0)

MAP_KERNEL(triple, in[i] * 3 + 1)

/* The loop: iters times the input of the iteration copied in, triple on stream st, the output
 * copied back (a synchronous copy: it waits for the kernel) and folded into the checksum. */
static inline uint64_t triple_loop(int iters, size_t bytes, uint32_t *h_in, uint32_t *h_out, uint32_t *d_in,
				   uint32_t *d_out, cudaStream_t st)
{
	size_t n = bytes / sizeof(uint32_t);
	uint64_t sum = CHECKSUM_START;
	for (int it = 0; it < iters; it++) {
		fill_input(h_in, n, it);
		CHECK(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));
		void *args[] = {&d_in, &d_out, &n};
		CHECK(cudaLaunchKernel((const void *)triple, (dim3){1, 1, 1}, (dim3){1, 1, 1}, args, 0, st));
		CHECK(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));
		sum = fold(sum, h_out, n, 89);
	}
	return sum;
}

/* The programs' end: the checksum printed, the loop's buffers freed (the host's with free). */
static inline int report_and_free(uint64_t sum, uint32_t *h_in, uint32_t *h_out, uint32_t *d_in, uint32_t *d_out)
{
	print_checksum(sum);
	CHECK(cudaFree(d_in));
	CHECK(cudaFree(d_out));
	free(h_in);
	free(h_out);
	return 0;
}

#endif
