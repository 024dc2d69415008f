/*
 * A template kernel launched with <<<...>>> from a template host function, instantiated for
 * float and double (nvcc only: the emulator's g++ build has no <<<...>>>). Each instantiation
 * is analysed as the function it is: the kernel consumes its const input through a cast, so
 * each input pair is refused, and each output pair is merged. A second template that nothing
 * instantiates is named, declined, never proved.
 */
#include "corpus.h"

template <class T> __global__ void consume(const T *in, T *out, size_t n)
{
	FOR_ALL(i, n)
	{
		out[i] = in[i] * (T)2;
		((T *)in)[i] = (T)0;
	}
}

template <class T> static uint64_t run(const struct corpus *c, uint64_t sum, double *ms)
{
	size_t n = c->size / sizeof(T);
	T *h_in = (T *)malloc(c->size), *h_out = (T *)malloc(c->size), *d_in, *d_out;
	CHECK(cudaMalloc((void **)&d_in, c->size));
	CHECK(cudaMalloc((void **)&d_out, c->size));
	for (int it = 0; it < c->warmup + c->iters; it++) {
		double t0 = now_ms();
		for (size_t i = 0; i < n; i++)
			h_in[i] = (T)((i + (size_t)it) % 19);
		CHECK(cudaMemcpy(d_in, h_in, c->size, cudaMemcpyHostToDevice));
		consume<T><<<(unsigned)((n + 255) / 256), 256>>>(d_in, d_out, n);
		CHECK(cudaMemcpy(h_out, d_out, c->size, cudaMemcpyDeviceToHost));
		sum = fnv1a(sum, h_out, c->size);
		sum = fnv1a(sum, h_in, c->size);
		ms[it] += now_ms() - t0;
	}
	CHECK(cudaFree(d_in));
	CHECK(cudaFree(d_out));
	free(h_in);
	free(h_out);
	return sum;
}

template <class T> static void unused(T *h_data, size_t bytes)
{
	T *d_data;
	CHECK(cudaMalloc((void **)&d_data, bytes));
	CHECK(cudaMemcpy(d_data, h_data, bytes, cudaMemcpyHostToDevice));
	CHECK(cudaFree(d_data));
}

int main(int argc, char **argv)
{
	struct corpus c = corpus_options(argc, argv);
	double *ms = (double *)calloc((size_t)(c.warmup + c.iters), sizeof(double));
	uint64_t sum = run<float>(&c, FNV_OFFSET, ms);
	sum = run<double>(&c, sum, ms);
	report(sum, ms, c.warmup, c.iters);
	free(ms);
	return 0;
}
