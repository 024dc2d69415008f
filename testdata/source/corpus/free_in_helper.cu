/*
 * As free_before_kernel.cu, but the host copy is freed inside a helper that also counts what
 * it released (and the count is printed): the rewrite could only move that free by editing
 * the helper, so the input pair is declined, naming the helper. The output pair is merged.
 */
#include "corpus.h"

static int released;

static void release(float *p)
{
	free(p);
	released++;
}

KERNEL4(accumulate, const float *, in, float *, out, size_t, n, int, it)
{
	FOR_ALL(i, n)
	out[i] = in[i] * (float)(it + 1) + 0.5f;
}

int main(int argc, char **argv)
{
	struct corpus c = corpus_options(argc, argv);
	size_t n = c.size / sizeof(float);
	float *h_in = (float *)malloc(c.size), *h_out = (float *)malloc(c.size), *d_in, *d_out;
	double *ms = (double *)malloc((size_t)(c.warmup + c.iters) * sizeof(double));
	CHECK(cudaMalloc((void **)&d_in, c.size));
	CHECK(cudaMalloc((void **)&d_out, c.size));
	for (size_t i = 0; i < n; i++)
		h_in[i] = (float)(i % 89);
	CHECK(cudaMemcpy(d_in, h_in, c.size, cudaMemcpyHostToDevice));
	release(h_in);
	uint64_t sum = FNV_OFFSET;
	for (int it = 0; it < c.warmup + c.iters; it++) {
		double t0 = now_ms();
		void *args[] = {&d_in, &d_out, &n, &it};
		launch((const void *)accumulate, n, args);
		CHECK(cudaMemcpy(h_out, d_out, c.size, cudaMemcpyDeviceToHost));
		sum = fnv1a(sum, h_out, c.size);
		ms[it] = now_ms() - t0;
	}
	sum = fnv1a(sum, &released, sizeof released);
	report(sum, ms, c.warmup, c.iters);
	CHECK(cudaFree(d_in));
	CHECK(cudaFree(d_out));
	free(h_out);
	free(ms);
	return 0;
}
