/*
 * Buffers held in a struct's fields, Rodinia style (s.h_in = malloc(...), cudaMalloc(&s.d_in,
 * ...)): fields are not followed yet, so both pairs are declined as undecidable, naming the
 * fields and the construct.
 */
#include "corpus.h"

struct buffers {
	float *h_in, *h_out; /* host */
	float *d_in, *d_out; /* device */
};

KERNEL3(twice, const float *, in, float *, out, size_t, n)
{
	FOR_ALL(i, n)
	out[i] = in[i] * 2.0f;
}

int main(int argc, char **argv)
{
	struct corpus c = corpus_options(argc, argv);
	size_t n = c.size / sizeof(float);
	struct buffers b;
	b.h_in = (float *)malloc(c.size);
	b.h_out = (float *)malloc(c.size);
	double *ms = (double *)malloc((size_t)(c.warmup + c.iters) * sizeof(double));
	CHECK(cudaMalloc((void **)&b.d_in, c.size));
	CHECK(cudaMalloc((void **)&b.d_out, c.size));
	uint64_t sum = FNV_OFFSET;
	for (int it = 0; it < c.warmup + c.iters; it++) {
		double t0 = now_ms();
		for (size_t i = 0; i < n; i++)
			b.h_in[i] = (float)((i + (size_t)it) % 41);
		CHECK(cudaMemcpy(b.d_in, b.h_in, c.size, cudaMemcpyHostToDevice));
		void *args[] = {&b.d_in, &b.d_out, &n};
		launch((const void *)twice, n, args);
		CHECK(cudaMemcpy(b.h_out, b.d_out, c.size, cudaMemcpyDeviceToHost));
		sum = fnv1a(sum, b.h_out, c.size);
		ms[it] = now_ms() - t0;
	}
	report(sum, ms, c.warmup, c.iters);
	CHECK(cudaFree(b.d_in));
	CHECK(cudaFree(b.d_out));
	free(b.h_in);
	free(b.h_out);
	free(ms);
	return 0;
}
