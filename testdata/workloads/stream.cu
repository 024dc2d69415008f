/*
 * stream: the copy-dominated loop of the paper's micro-benchmarks. Each iteration the host
 * updates its input buffer, copies it to the device (H2D), a light kernel maps it to the
 * output, the output is copied back (D2H) and the host reads it. One input pair, one output
 * pair. The hand-merged reference (--manual) merges both pairs and keeps the wait the D2H
 * copy gave; built with ECHO_KEEP_WAITS, it also keeps the wait the H2D copy gave (a
 * synchronous copy first waits for earlier GPU work), as Echo's deployed plan does.
 */
#define WORKLOAD_MANUAL
#include "workload.h"

SCALE_KERNEL(1.000001f, 0.5f)

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
#ifdef ECHO_KEEP_WAITS
		else
			CHECK(cudaDeviceSynchronize());
#endif
		void *args[] = {&d_in, &d_out, &n, &o.work};
		launch((const void *)scale, n, args, 0);
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
