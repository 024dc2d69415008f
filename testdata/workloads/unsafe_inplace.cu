/*
 * Unsafe case 5, in-place update of an input: the kernel rescales the device copy of the
 * input in place and the result is copied out to another host buffer; the host then reads
 * its input buffer again, expecting what it wrote. Merged, the host sees the rescaled values.
 */
#include "workload.h"

KERNEL2(rescale, float *, data, size_t, n)
{
	FOR_ALL(i, n)
	data[i] = data[i] * 0.5f + 3.0f;
}

int main(int argc, char **argv)
{
	struct options o = parse_options(argc, argv, {256 << 10, 8, 0, 1, "malloc", "mapped", false});
	size_t n = o.size / sizeof(float);
	float *h_out = (float *)host_alloc(o.host, o.size);
#ifdef ECHO_NAIVE
	NAIVE_MERGE(m, o, h_in, d_data);
#else
	float *h_in = (float *)host_alloc(o.host, o.size), *d_data;
	CHECK(cudaMalloc((void **)&d_data, o.size));
#endif
	for (size_t i = 0; i < n; i++)
		h_in[i] = (float)(i % 128);
	uint64_t sum = FNV_OFFSET;
	struct laps l = laps_start(&o);
	for (int it = 0; it < o.warmup + o.iters; it++) {
		h_in[(size_t)it % n] = (float)it;
#ifndef ECHO_NAIVE
		CHECK(cudaMemcpy(d_data, h_in, o.size, cudaMemcpyHostToDevice));
#endif
		void *args[] = {&d_data, &n};
		launch((const void *)rescale, n, args, 0);
		CHECK(cudaMemcpy(h_out, d_data, o.size, cudaMemcpyDeviceToHost));
		double residual = 0.0; /* output against the input the host believes it sent */
		for (size_t i = 0; i < n; i++)
			residual += (double)h_out[i] - (double)h_in[i];
		sum = fnv1a(sum, &residual, sizeof residual);
		lap(&l);
	}
	report(sum, &l);
#ifdef ECHO_NAIVE
	merged_free(o.strategy, m);
#else
	CHECK(cudaFree(d_data));
	host_free(o.host, h_in);
#endif
	host_free(o.host, h_out);
	return 0;
}
