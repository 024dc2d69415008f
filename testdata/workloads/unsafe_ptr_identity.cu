/*
 * Unsafe case S3, pointer identity: the program keeps its own table of buffers keyed by
 * address and routes work by looking pointers up in it. Merged into one pointer (the naive
 * build), the lookup finds the host entry for the device pointer, and the program takes
 * another path. Echo's binary path merges memory, not pointers (shim/bind.c): the two
 * pointers stay distinct, and the program computes what it did as written.
 */
#include "workload.h"

MAP_KERNEL(twice, 2.0f * in[i])

struct tag {
	const void *ptr;
	char role; /* 'h' host staging, 'd' device */
};

static char role_of(const struct tag *tags, int ntags, const void *p)
{
	for (int i = 0; i < ntags; i++)
		if (tags[i].ptr == p)
			return tags[i].role;
	return '?';
}

int main(int argc, char **argv)
{
	struct options o = parse_options(argc, argv, {256 << 10, 8, 0, 1, "hostalloc", "mapped", false});
	size_t n = o.size / sizeof(float);
	float *h_out = (float *)host_alloc(o.host, o.size), *d_out;
	CHECK(cudaMalloc((void **)&d_out, o.size));
#ifdef ECHO_NAIVE
	NAIVE_MERGE(m, o, h_in, d_in);
#else
	float *h_in = (float *)host_alloc(o.host, o.size), *d_in;
	CHECK(cudaMalloc((void **)&d_in, o.size));
#endif
	struct tag tags[] = {{h_in, 'h'}, {d_in, 'd'}};
	uint64_t sum = FNV_OFFSET;
	struct laps l = laps_start(&o);
	for (int it = 0; it < o.warmup + o.iters; it++) {
		for (size_t i = 0; i < n; i++)
			h_in[i] = (float)((int)i % 50 + it);
#ifndef ECHO_NAIVE
		CHECK(cudaMemcpy(d_in, h_in, o.size, cudaMemcpyHostToDevice));
#endif
		if (role_of(tags, 2, d_in) == 'd') {
			void *args[] = {&d_in, &d_out, &n};
			launch((const void *)twice, n, args, 0);
			CHECK(cudaMemcpy(h_out, d_out, o.size, cudaMemcpyDeviceToHost));
		} else {
			for (size_t i = 0; i < n; i++) /* "already on the host": a different result */
				h_out[i] = h_in[i];
		}
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
