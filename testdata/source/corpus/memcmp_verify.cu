/*
 * A verify step: the host computes the expected output, compares the device's result with it
 * by memcmp, and keeps a copy of the result by memcpy. Both are host reads of the output's host
 * side after its D2H copy: with the copy's wait kept, both pairs are merged.
 */
#include "corpus.h"

KERNEL3(square, const float *, in, float *, out, size_t, n)
{
	FOR_ALL(i, n)
	out[i] = in[i] * in[i];
}

int main(int argc, char **argv)
{
	struct corpus c = corpus_options(argc, argv);
	size_t n = c.size / sizeof(float);
	float *h_in = (float *)malloc(c.size), *h_out = (float *)malloc(c.size), *d_in, *d_out;
	float *expected = (float *)malloc(c.size), *kept = (float *)malloc(c.size);
	double *ms = (double *)malloc((size_t)(c.warmup + c.iters) * sizeof(double));
	CHECK(cudaMalloc((void **)&d_in, c.size));
	CHECK(cudaMalloc((void **)&d_out, c.size));
	uint64_t sum = FNV_OFFSET;
	int mismatches = 0;
	for (int it = 0; it < c.warmup + c.iters; it++) {
		double t0 = now_ms();
		for (size_t i = 0; i < n; i++) {
			h_in[i] = (float)((i * 7 + (size_t)it) % 31);
			expected[i] = h_in[i] * h_in[i];
		}
		CHECK(cudaMemcpy(d_in, h_in, c.size, cudaMemcpyHostToDevice));
		void *args[] = {&d_in, &d_out, &n};
		launch((const void *)square, n, args);
		CHECK(cudaMemcpy(h_out, d_out, c.size, cudaMemcpyDeviceToHost));
		if (memcmp(h_out, expected, c.size) != 0)
			mismatches++;
		memcpy(kept, h_out, c.size);
		sum = fnv1a(sum, kept, c.size);
		ms[it] = now_ms() - t0;
	}
	sum = fnv1a(sum, &mismatches, sizeof mismatches);
	report(sum, ms, c.warmup, c.iters);
	CHECK(cudaFree(d_in));
	CHECK(cudaFree(d_out));
	free(h_in);
	free(h_out);
	free(expected);
	free(kept);
	free(ms);
	return 0;
}
