/*
 * doublebuffer: a two-stream pipeline over two sets of buffers, as streaming code overlaps
 * transfers with compute: iteration i waits for set i%2's previous use on its own stream,
 * folds that use's results, refills the input and queues copy in, kernel and copy out on
 * that set's non-blocking stream, so the copy of frame i+1 runs while the kernel on frame i
 * does. No launch on one stream can touch the other set's buffers; the host only waits for
 * the stream whose set it touches. The four pairs are safe to merge.
 */
#define WORKLOAD_MANUAL
#include "workload.h"

SCALE_KERNEL(0.999f, 0.25f)

int main(int argc, char **argv)
{
	struct options o = parse_options(argc, argv, {1 << 20, 20, 3, 1, "hostalloc", "mapped", false});
	size_t n = o.size / sizeof(float);
	cudaStream_t st[2];
	float *h_in[2], *h_out[2], *d_in[2], *d_out[2];
	struct merged in[2] = {}, out[2] = {};
	for (int s = 0; s < 2; s++) {
		CHECK(cudaStreamCreateWithFlags(&st[s], cudaStreamNonBlocking));
		if (o.manual) {
			in[s] = merged_alloc(o.strategy, o.size);
			out[s] = merged_alloc(o.strategy, o.size);
			h_in[s] = (float *)in[s].host, d_in[s] = (float *)in[s].dev;
			h_out[s] = (float *)out[s].host, d_out[s] = (float *)out[s].dev;
		} else {
			h_in[s] = (float *)host_alloc(o.host, o.size);
			h_out[s] = (float *)host_alloc(o.host, o.size);
			CHECK(cudaMalloc((void **)&d_in[s], o.size));
			CHECK(cudaMalloc((void **)&d_out[s], o.size));
		}
		for (size_t i = 0; i < n; i++)
			h_in[s][i] = (float)((i + (size_t)s * 7) % 100) * 0.01f;
	}

	uint64_t sum = FNV_OFFSET;
	int frames = o.warmup + o.iters;
	struct laps l = laps_start(&o);
	for (int it = 0; it < frames; it++) {
		int b = it % 2;
		CHECK(cudaStreamSynchronize(st[b])); /* set b's previous frame is done */
		if (it >= 2)
			sum = fnv1a_pages(sum, h_out[b], n);
		for (size_t i = 0; i < n; i += STRIDE)
			h_in[b][i] = (float)it;
		if (!o.manual)
			CHECK(cudaMemcpyAsync(d_in[b], h_in[b], o.size, cudaMemcpyHostToDevice, st[b]));
		void *args[] = {&d_in[b], &d_out[b], &n, &o.work};
		launch((const void *)scale, n, args, st[b]);
		if (!o.manual)
			CHECK(cudaMemcpyAsync(h_out[b], d_out[b], o.size, cudaMemcpyDeviceToHost, st[b]));
		lap(&l);
	}
	for (int s = 0; s < 2; s++)
		CHECK(cudaStreamSynchronize(st[s]));
	report(fnv1a(fnv1a(sum, h_out[0], o.size), h_out[1], o.size), &l);

	for (int s = 0; s < 2; s++) {
		if (o.manual) {
			merged_free(o.strategy, in[s]);
			merged_free(o.strategy, out[s]);
		} else {
			host_free(o.host, h_in[s]);
			host_free(o.host, h_out[s]);
			CHECK(cudaFree(d_in[s]));
			CHECK(cudaFree(d_out[s]));
		}
		CHECK(cudaStreamDestroy(st[s]));
	}
	return 0;
}
