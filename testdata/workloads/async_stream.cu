/*
 * async_stream: stream's loop with cudaMemcpyAsync on a created stream and pageable host
 * buffers, relying on what pageable memory promises: no synchronization in the loop. The
 * D2H call returns once the copy is done (to pageable memory an asynchronous copy is), so
 * the host reads the output at once, and rewrites the input next iteration, after the
 * kernel that read it (the D2H waited for it). A merge elides both copies but must keep the
 * D2H's wait, on its stream. The hand-merged reference (--manual) waits for the stream
 * where the D2H copy was.
 */
#define WORKLOAD_MANUAL
#include "workload.h"

MAP_KERNEL(twice, in[i] * 2.0f + 0.25f)

int main(int argc, char **argv)
{
	struct options o = parse_options(argc, argv, {4 << 20, 20, 3, 1, "malloc", "mapped", false});
	size_t n = o.size / sizeof(float);
	cudaStream_t st;
	CHECK(cudaStreamCreate(&st));
	struct merged in = {}, out = {};
	float *h_in, *h_out, *d_in, *d_out;
	if (o.manual) {
		in = merged_alloc(o.strategy, o.size), out = merged_alloc(o.strategy, o.size);
		h_in = (float *)in.host, h_out = (float *)out.host;
		d_in = (float *)in.dev, d_out = (float *)out.dev;
	} else {
		h_in = (float *)host_alloc(o.host, o.size), h_out = (float *)host_alloc(o.host, o.size);
		CHECK(cudaMalloc((void **)&d_in, o.size));
		CHECK(cudaMalloc((void **)&d_out, o.size));
	}
	fill_ramp(h_in, n);

	uint64_t sum = FNV_OFFSET;
	struct laps l = laps_start(&o);
	for (int it = 0; it < o.warmup + o.iters; it++) {
		touch_pages(h_in, n, it);
		if (!o.manual)
			CHECK(cudaMemcpyAsync(d_in, h_in, o.size, cudaMemcpyHostToDevice, st));
		void *args[] = {&d_in, &d_out, &n};
		launch((const void *)twice, n, args, st);
		if (o.manual)
			CHECK(cudaStreamSynchronize(st));
		else
			CHECK(cudaMemcpyAsync(h_out, d_out, o.size, cudaMemcpyDeviceToHost, st));
		sum = fnv1a_pages(sum, h_out, n); /* pageable: the copy is done */
		lap(&l);
	}
	CHECK(cudaStreamSynchronize(st));
	report(fnv1a(sum, h_out, o.size), &l);

	if (o.manual) {
		merged_free(o.strategy, in);
		merged_free(o.strategy, out);
	} else {
		CHECK(cudaFree(d_in));
		CHECK(cudaFree(d_out));
		host_free(o.host, h_in);
		host_free(o.host, h_out);
	}
	CHECK(cudaStreamDestroy(st));
	return 0;
}
