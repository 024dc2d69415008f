/*
 * Buffers held in global pointers, allocated in one function and used in another: globals are
 * not followed yet, so both pairs are declined as undecidable, naming the globals.
 */
#include "corpus.h"

static float *h_in, *h_out, *d_in, *d_out;

KERNEL3(negate, const float *, in, float *, out, size_t, n)
{
	FOR_ALL(i, n)
	out[i] = -in[i];
}

static void setup(size_t bytes)
{
	h_in = (float *)malloc(bytes);
	h_out = (float *)malloc(bytes);
	CHECK(cudaMalloc((void **)&d_in, bytes));
	CHECK(cudaMalloc((void **)&d_out, bytes));
}

int main(int argc, char **argv)
{
	struct corpus c = corpus_options(argc, argv);
	size_t n = c.size / sizeof(float);
	double *ms = (double *)malloc((size_t)(c.warmup + c.iters) * sizeof(double));
	setup(c.size);
	uint64_t sum = FNV_OFFSET;
	for (int it = 0; it < c.warmup + c.iters; it++) {
		double t0 = now_ms();
		for (size_t i = 0; i < n; i++)
			h_in[i] = (float)((i + (size_t)it) % 23);
		CHECK(cudaMemcpy(d_in, h_in, c.size, cudaMemcpyHostToDevice));
		void *args[] = {&d_in, &d_out, &n};
		launch((const void *)negate, n, args);
		CHECK(cudaMemcpy(h_out, d_out, c.size, cudaMemcpyDeviceToHost));
		sum = fnv1a(sum, h_out, c.size);
		ms[it] = now_ms() - t0;
	}
	report(sum, ms, c.warmup, c.iters);
	CHECK(cudaFree(d_in));
	CHECK(cudaFree(d_out));
	free(h_in);
	free(h_out);
	free(ms);
	return 0;
}
