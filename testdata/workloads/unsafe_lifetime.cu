/*
 * Unsafe case S4, lifetime: every iteration the host allocates a staging buffer, copies it
 * to the persistent device buffer and frees it before the kernel that reads the device copy
 * runs. Merged naively, the host's free releases the one shared buffer and the kernel reads
 * freed memory. A correct merge frees it only after both frees and the GPU work using it.
 */
#include "workload.h"

MAP_KERNEL(offset, in[i] + 1.0f)

int main(int argc, char **argv)
{
	struct options o = parse_options(argc, argv, {256 << 10, 8, 0, 1, "malloc", "mapped", false});
	size_t n = o.size / sizeof(float);
	float *h_out = (float *)host_alloc(o.host, o.size), *d_out;
	CHECK(cudaMalloc((void **)&d_out, o.size));
#ifndef ECHO_NAIVE
	float *d_in;
	CHECK(cudaMalloc((void **)&d_in, o.size));
#endif
	uint64_t sum = FNV_OFFSET;
	struct laps l = laps_start(&o);
	for (int it = 0; it < o.warmup + o.iters; it++) {
#ifdef ECHO_NAIVE
		NAIVE_MERGE(m, o, h_in, d_in);
#else
		float *h_in = (float *)host_alloc(o.host, o.size);
#endif
		for (size_t i = 0; i < n; i++)
			h_in[i] = (float)((int)(i % 64) * (it + 1));
#ifdef ECHO_NAIVE
		merged_free(o.strategy, m); /* the host's free now frees the device copy too */
#else
		CHECK(cudaMemcpy(d_in, h_in, o.size, cudaMemcpyHostToDevice));
		host_free(o.host, h_in);
#endif
		void *args[] = {&d_in, &d_out, &n};
		launch((const void *)offset, n, args, 0);
		CHECK(cudaMemcpy(h_out, d_out, o.size, cudaMemcpyDeviceToHost));
		sum = fnv1a(sum, h_out, o.size);
		lap(&l);
	}
	report(sum, &l);
#ifndef ECHO_NAIVE
	CHECK(cudaFree(d_in));
#endif
	CHECK(cudaFree(d_out));
	host_free(o.host, h_out);
	return 0;
}
