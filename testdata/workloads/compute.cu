/*
 * compute: kernel-dominated with small copies, where merging has little to gain. Each
 * iteration the host updates one row of A, copies A in, multiplies C = A x B (B was copied
 * once at start) and copies C back. Input pair A, output pair C, both in pinned memory.
 */
#include <math.h>

#define WORKLOAD_MANUAL
#include "workload.h"

KERNEL5(matmul, const float *, a, const float *, b, float *, c, int, n, int, work)
{
	FOR_ALL(idx, (size_t)n * n)
	{
		int row = (int)(idx / n), col = (int)(idx % n);
		float acc = 0.0f;
		for (int w = 0; w < work; w++) {
			float dot = 0.0f;
			for (int k = 0; k < n; k++)
				dot += a[row * n + k] * b[k * n + col];
			acc += dot / (float)(w + 1);
		}
		c[idx] = acc;
	}
}

int main(int argc, char **argv)
{
	struct options o = parse_options(argc, argv, {256 << 10, 20, 2, 1, "pinned", "mapped", false});
	int n = (int)sqrt((double)(o.size / sizeof(float)));
	size_t bytes = (size_t)n * n * sizeof(float);
	struct merged a = {}, b = {}, c = {};
	float *h_a, *h_b, *h_c, *d_a, *d_b, *d_c;
	if (o.manual) {
		a = merged_alloc(o.strategy, bytes), b = merged_alloc(o.strategy, bytes), c = merged_alloc(o.strategy, bytes);
		h_a = (float *)a.host, h_b = (float *)b.host, h_c = (float *)c.host;
		d_a = (float *)a.dev, d_b = (float *)b.dev, d_c = (float *)c.dev;
	} else {
		h_a = (float *)host_alloc(o.host, bytes), h_b = (float *)host_alloc(o.host, bytes);
		h_c = (float *)host_alloc(o.host, bytes);
		CHECK(cudaMalloc((void **)&d_a, bytes));
		CHECK(cudaMalloc((void **)&d_b, bytes));
		CHECK(cudaMalloc((void **)&d_c, bytes));
	}
	for (int i = 0; i < n * n; i++) {
		h_a[i] = (float)(i % 17) * 0.0625f;
		h_b[i] = (float)(i % 13) * 0.125f - 0.5f;
	}
	if (!o.manual)
		CHECK(cudaMemcpy(d_b, h_b, bytes, cudaMemcpyHostToDevice));

	uint64_t sum = FNV_OFFSET;
	struct laps l = laps_start(&o);
	for (int it = 0; it < o.warmup + o.iters; it++) {
		int row = it % n;
		for (int k = 0; k < n; k++)
			h_a[row * n + k] = (float)((it + k) % 5) * 0.25f;
		if (!o.manual)
			CHECK(cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice));
		void *args[] = {&d_a, &d_b, &d_c, &n, &o.work};
		launch((const void *)matmul, (size_t)n * n, args, 0);
		if (o.manual)
			CHECK(cudaDeviceSynchronize());
		else
			CHECK(cudaMemcpy(h_c, d_c, bytes, cudaMemcpyDeviceToHost));
		sum = fnv1a(sum, &h_c[row * n], (size_t)n * sizeof(float));
		lap(&l);
	}
	report(fnv1a(sum, h_c, bytes), &l);

	if (o.manual) {
		merged_free(o.strategy, a);
		merged_free(o.strategy, b);
		merged_free(o.strategy, c);
	} else {
		CHECK(cudaFree(d_a));
		CHECK(cudaFree(d_b));
		CHECK(cudaFree(d_c));
		host_free(o.host, h_a);
		host_free(o.host, h_b);
		host_free(o.host, h_c);
	}
	return 0;
}
