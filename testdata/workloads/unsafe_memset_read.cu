/*
 * Unsafe: the host reads an output between the memset that zeroes its device buffer and the
 * copy that brings the new results. Each iteration zeroes the output on the device, waits
 * for the device (as timing code does), then folds the previous iteration's results, still
 * in the host buffer, into its checksum, and only then launches the kernel and copies the
 * new results back. Merged, the host reads the zeros. Refuse (memset.cu is the safe twin).
 */
#include "workload.h"

MAP_KERNEL(accumulate, out[i] + (in[i] * 0.5f + 1.0f))

int main(int argc, char **argv)
{
	struct options o = parse_options(argc, argv, {256 << 10, 8, 0, 1, "malloc", "mapped", false});
	size_t n = o.size / sizeof(float);
	float *h_in = (float *)host_alloc(o.host, o.size), *d_in;
	CHECK(cudaMalloc((void **)&d_in, o.size));
#ifdef ECHO_NAIVE
	NAIVE_MERGE(m, o, h_out, d_out);
#else
	float *h_out = (float *)host_alloc(o.host, o.size), *d_out;
	CHECK(cudaMalloc((void **)&d_out, o.size));
#endif
	for (size_t i = 0; i < n; i++)
		h_in[i] = (float)(i % 1000) * 0.001f, h_out[i] = 7.0f;
	uint64_t sum = FNV_OFFSET;
	struct laps l = laps_start(&o);
	for (int it = 0; it < o.warmup + o.iters; it++) {
		touch_pages(h_in, n, it);
		CHECK(cudaMemcpy(d_in, h_in, o.size, cudaMemcpyHostToDevice));
		CHECK(cudaMemset(d_out, 0, o.size));
		CHECK(cudaDeviceSynchronize());
		sum = fnv1a_pages(sum, h_out, n); /* the previous results: zeros, once merged */
		void *args[] = {&d_in, &d_out, &n};
		launch((const void *)accumulate, n, args, 0);
#ifdef ECHO_NAIVE
		CHECK(cudaDeviceSynchronize());
#else
		CHECK(cudaMemcpy(h_out, d_out, o.size, cudaMemcpyDeviceToHost));
#endif
		lap(&l);
	}
	report(fnv1a(sum, h_out, o.size), &l);
#ifdef ECHO_NAIVE
	merged_free(o.strategy, m);
#else
	CHECK(cudaFree(d_out));
	host_free(o.host, h_out);
#endif
	CHECK(cudaFree(d_in));
	host_free(o.host, h_in);
	return 0;
}
