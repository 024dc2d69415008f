/*
 * A kernel declared to read its input through a pointer to const consumes it through a C
 * cast (it zeroes each element it has read), and the host then reads its own copy of the
 * input. As written the host reads what it wrote; merged it would read the kernel's zeros.
 * The input pair is refused at the host's read, with the kernel's write and its line; the
 * output pair is merged, its copy's wait kept.
 */
#include "corpus.h"

KERNEL3(consume, const float *, in, float *, out, size_t, n)
{
	FOR_ALL(i, n)
	{
		out[i] = in[i] * 0.5f + 1.0f;
		((float *)in)[i] = 0.0f;
	}
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
			h_in[i] = (float)((i + (size_t)it) % 97);
		CHECK(cudaMemcpy(d_in, h_in, c.size, cudaMemcpyHostToDevice));
		void *args[] = {&d_in, &d_out, &n};
		launch((const void *)consume, n, args);
		CHECK(cudaMemcpy(h_out, d_out, c.size, cudaMemcpyDeviceToHost));
		sum = fnv1a(sum, h_out, c.size);
		sum = fnv1a(sum, h_in, c.size);
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
