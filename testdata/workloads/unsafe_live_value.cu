/*
 * Unsafe case S1, still-live device value: right after copying the batch to the device the
 * host starts filling the next batch into the same host buffer, before the kernel that
 * reads the device copy has run. Merged, the kernel reads the next batch. Refuse.
 */
#include "workload.h"

MAP_KERNEL(square, in[i] * in[i])

int main(int argc, char **argv)
{
	struct options o = parse_options(argc, argv, {256 << 10, 8, 0, 1, "malloc", "mapped", false});
	size_t n = o.size / sizeof(float);
	float *h_out = (float *)host_alloc(o.host, o.size), *d_out;
	CHECK(cudaMalloc((void **)&d_out, o.size));
#ifdef ECHO_NAIVE
	NAIVE_MERGE(m, o, h_in, d_in);
#else
	float *h_in = (float *)host_alloc(o.host, o.size), *d_in;
	CHECK(cudaMalloc((void **)&d_in, o.size));
#endif
	fill_batch(h_in, n, 0);
	uint64_t sum = FNV_OFFSET;
	struct laps l = laps_start(&o);
	for (int it = 0; it < o.warmup + o.iters; it++) {
#ifndef ECHO_NAIVE
		CHECK(cudaMemcpy(d_in, h_in, o.size, cudaMemcpyHostToDevice));
#endif
		fill_batch(h_in, n, it + 1); /* the next batch, while d_in still holds this one */
		void *args[] = {&d_in, &d_out, &n};
		launch((const void *)square, n, args, 0);
		CHECK(cudaMemcpy(h_out, d_out, o.size, cudaMemcpyDeviceToHost));
		sum = fnv1a(sum, h_out, o.size);
		lap(&l);
	}
	report(sum, &l);
#ifdef ECHO_NAIVE
	merged_free(o.strategy, m);
#else
	CHECK(cudaFree(d_in));
	host_free(o.host, h_in);
#endif
	CHECK(cudaFree(d_out));
	host_free(o.host, h_out);
	return 0;
}
