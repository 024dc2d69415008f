/*
 * Unsafe case S2, completion wait: the synchronous D2H copy is the program's only wait for
 * the kernel. Merged without keeping that wait, the host reads the output before the kernel
 * has written it (on the emulator, CUDA_EMU_KERNEL_DELAY_US makes this certain). A correct
 * merge keeps the wait.
 */
#include "workload.h"

KERNEL4(smooth, const float *, in, float *, out, size_t, n, int, work)
{
	FOR_ALL(i, n)
	{
		float v = in[i];
		for (int k = 0; k < work; k++)
			v = 0.5f * v + 1.0f;
		out[i] = v;
	}
}

int main(int argc, char **argv)
{
	struct options o = parse_options(argc, argv, {256 << 10, 8, 0, 64, "new", "mapped", false});
	size_t n = o.size / sizeof(float);
	float *h_in = (float *)host_alloc(o.host, o.size), *d_in;
	CHECK(cudaMalloc((void **)&d_in, o.size));
#ifdef ECHO_NAIVE
	NAIVE_MERGE(m, o, h_out, d_out);
#else
	float *h_out = (float *)host_alloc(o.host, o.size), *d_out;
	CHECK(cudaMalloc((void **)&d_out, o.size));
#endif
	uint64_t sum = FNV_OFFSET;
	struct laps l = laps_start(&o);
	for (int it = 0; it < o.warmup + o.iters; it++) {
		for (size_t i = 0; i < n; i++)
			h_in[i] = (float)(it * 10 + (int)(i % 10));
		CHECK(cudaMemcpy(d_in, h_in, o.size, cudaMemcpyHostToDevice));
		void *args[] = {&d_in, &d_out, &n, &o.work};
		launch((const void *)smooth, n, args, 0);
#ifndef ECHO_NAIVE
		CHECK(cudaMemcpy(h_out, d_out, o.size, cudaMemcpyDeviceToHost));
#endif
		sum = fnv1a(sum, h_out, o.size);
		lap(&l);
	}
	report(sum, &l);
#ifdef ECHO_NAIVE
	merged_free(o.strategy, m); /* frees wait for the device, so the run still ends cleanly */
#else
	CHECK(cudaFree(d_out));
	host_free(o.host, h_out);
#endif
	CHECK(cudaFree(d_in));
	host_free(o.host, h_in);
	return 0;
}
