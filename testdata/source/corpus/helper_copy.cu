/*
 * Buffers passed to helper functions of the same file: the input is copied by a helper that
 * serves every caller (declined, naming the helper: its copy is not followed yet), and the
 * kernel is launched by a helper that waits for it before it returns (followed through its
 * body: the output pair is merged, and its copy's wait is provably a no-op).
 */
#include "corpus.h"

KERNEL3(cube, const float *, in, float *, out, size_t, n)
{
	FOR_ALL(i, n)
	out[i] = in[i] * in[i] * in[i];
}

static void upload(float *dst, const float *src, size_t bytes)
{
	CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
}

static void step(float *in, float *out, size_t n)
{
	void *args[] = {&in, &out, &n};
	launch((const void *)cube, n, args);
	CHECK(cudaDeviceSynchronize());
}

int main(int argc, char **argv)
{
	struct corpus c = corpus_options(argc, argv);
	size_t n = c.size / sizeof(float);
	float *h_in = (float *)malloc(c.size), *h_out = (float *)malloc(c.size), *d_in, *d_out;
	double *ms = (double *)malloc((size_t)(c.warmup + c.iters) * sizeof(double));
	CHECK(cudaMalloc((void **)&d_in, c.size));
	CHECK(cudaMalloc((void **)&d_out, c.size));
	uint64_t sum = FNV_OFFSET;
	for (int it = 0; it < c.warmup + c.iters; it++) {
		double t0 = now_ms();
		for (size_t i = 0; i < n; i++)
			h_in[i] = (float)((i + (size_t)it) % 11);
		upload(d_in, h_in, c.size);
		step(d_in, d_out, n);
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
