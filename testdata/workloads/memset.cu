/*
 * memset: an output accumulated on the device from zero every iteration, as histogram and
 * reduction code does. Each iteration the host updates its input and copies it to the
 * device (H2D), cudaMemset zeroes the output's device buffer, a kernel adds every input
 * element's contribution into it, and the output is copied back (D2H) and read by the host.
 * One input pair; one output pair whose device side is also set with cudaMemset. Merged, the
 * output's host buffer holds the zeros from the memset until the kernel is done, which the
 * host never looks at: safe (unsafe_memset_read.cu is its unsafe twin). The hand-merged
 * reference (--manual) merges both pairs, memsets the merged output and waits where the D2H
 * copy waited.
 */
#define WORKLOAD_MANUAL
#include "workload.h"

MAP_KERNEL(accumulate, out[i] + (in[i] * 0.5f + 1.0f))

int main(int argc, char **argv)
{
	struct options o = parse_options(argc, argv, {4 << 20, 20, 3, 1, "malloc", "mapped", false});
	size_t n = o.size / sizeof(float);
	struct merged in = {}, out = {};
	float *h_in, *h_out, *d_in, *d_out;
	if (o.manual) {
		in = merged_alloc(o.strategy, o.size), out = merged_alloc(o.strategy, o.size);
		h_in = (float *)in.host, h_out = (float *)out.host;
		d_in = (float *)in.dev, d_out = (float *)out.dev;
	} else {
		h_in = (float *)host_alloc(o.host, o.size), h_out = (float *)host_alloc(o.host, o.size);
		CHECK(cudaMalloc((void **)&d_in, o.size));
		CHECK(cudaMalloc((void **)&d_out, o.size));
	}
	fill_ramp(h_in, n);

	uint64_t sum = FNV_OFFSET;
	struct laps l = laps_start(&o);
	for (int it = 0; it < o.warmup + o.iters; it++) {
		touch_pages(h_in, n, it);
		if (!o.manual)
			CHECK(cudaMemcpy(d_in, h_in, o.size, cudaMemcpyHostToDevice));
		CHECK(cudaMemset(d_out, 0, o.size));
		void *args[] = {&d_in, &d_out, &n};
		launch((const void *)accumulate, n, args, 0);
		if (o.manual)
			CHECK(cudaDeviceSynchronize());
		else
			CHECK(cudaMemcpy(h_out, d_out, o.size, cudaMemcpyDeviceToHost));
		sum = fnv1a_pages(sum, h_out, n);
		lap(&l);
	}
	report(fnv1a(sum, h_out, o.size), &l);

	if (o.manual) {
		merged_free(o.strategy, in);
		merged_free(o.strategy, out);
	} else {
		CHECK(cudaFree(d_in));
		CHECK(cudaFree(d_out));
		host_free(o.host, h_in);
		host_free(o.host, h_out);
	}
	return 0;
}
