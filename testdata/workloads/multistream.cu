/*
 * multistream: two halves processed on two non-blocking streams with cudaMemcpyAsync from
 * pinned memory, joined by an event: stream 1 folds stream 0's result into its own. Each
 * pair is copied on one stream; validation follows the event in stream time.
 */
#define WORKLOAD_MANUAL
#include "workload.h"

SCALE_KERNEL(0.999f, 0.25f)

KERNEL3(fold, const float *, other, float *, out, size_t, n)
{
	FOR_ALL(i, n)
	out[i] += 0.5f * other[i];
}

int main(int argc, char **argv)
{
	struct options o = parse_options(argc, argv, {2 << 20, 20, 3, 1, "hostalloc", "mapped", false});
	size_t half = o.size / 2, n = half / sizeof(float);
	cudaStream_t st[2];
	cudaEvent_t done[2];
	float *h_in[2], *h_out[2], *d_in[2], *d_out[2];
	struct merged in[2] = {}, out[2] = {};
	for (int s = 0; s < 2; s++) {
		CHECK(cudaStreamCreateWithFlags(&st[s], cudaStreamNonBlocking));
		CHECK(cudaEventCreateWithFlags(&done[s], cudaEventDisableTiming));
		if (o.manual) {
			in[s] = merged_alloc(o.strategy, half);
			out[s] = merged_alloc(o.strategy, half);
			h_in[s] = (float *)in[s].host, d_in[s] = (float *)in[s].dev;
			h_out[s] = (float *)out[s].host, d_out[s] = (float *)out[s].dev;
		} else {
			CHECK(cudaHostAlloc((void **)&h_in[s], half, cudaHostAllocDefault));
			CHECK(cudaHostAlloc((void **)&h_out[s], half, cudaHostAllocDefault));
			CHECK(cudaMalloc((void **)&d_in[s], half));
			CHECK(cudaMalloc((void **)&d_out[s], half));
		}
		for (size_t i = 0; i < n; i++)
			h_in[s][i] = (float)((i + (size_t)s * 3) % 100) * 0.01f;
	}

	uint64_t sum = FNV_OFFSET;
	struct laps l = laps_start(&o);
	for (int it = 0; it < o.warmup + o.iters; it++) {
		for (int s = 0; s < 2; s++) {
			for (size_t i = 0; i < n; i += STRIDE)
				h_in[s][i] = (float)(it + s);
			if (!o.manual)
				CHECK(cudaMemcpyAsync(d_in[s], h_in[s], half, cudaMemcpyHostToDevice, st[s]));
			void *args[] = {&d_in[s], &d_out[s], &n, &o.work};
			launch((const void *)scale, n, args, st[s]);
			CHECK(cudaEventRecord(done[s], st[s]));
		}
		CHECK(cudaStreamWaitEvent(st[1], done[0], 0));
		void *args[] = {&d_out[0], &d_out[1], &n};
		launch((const void *)fold, n, args, st[1]);
		if (!o.manual) {
			CHECK(cudaMemcpyAsync(h_out[0], d_out[0], half, cudaMemcpyDeviceToHost, st[0]));
			CHECK(cudaMemcpyAsync(h_out[1], d_out[1], half, cudaMemcpyDeviceToHost, st[1]));
		}
		CHECK(cudaStreamSynchronize(st[0]));
		CHECK(cudaStreamSynchronize(st[1]));
		for (int s = 0; s < 2; s++)
			sum = fnv1a_pages(sum, h_out[s], n);
		lap(&l);
	}
	report(fnv1a(fnv1a(sum, h_out[0], half), h_out[1], half), &l);

	for (int s = 0; s < 2; s++) {
		if (o.manual) {
			merged_free(o.strategy, in[s]);
			merged_free(o.strategy, out[s]);
		} else {
			CHECK(cudaFreeHost(h_in[s]));
			CHECK(cudaFreeHost(h_out[s]));
			CHECK(cudaFree(d_in[s]));
			CHECK(cudaFree(d_out[s]));
		}
		CHECK(cudaEventDestroy(done[s]));
		CHECK(cudaStreamDestroy(st[s]));
	}
	return 0;
}
