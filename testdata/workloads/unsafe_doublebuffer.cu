/*
 * Unsafe, in a two-stream pipeline: as doublebuffer, but the host prepares set b's next frame
 * as soon as this frame's copy in is done (an event recorded after it), while the kernel on
 * that set's stream may not have run: legal as written (the device has its own copy by then),
 * but merged, the kernel reads the next frame (S1 in stream time). Refuse the inputs.
 */
#include "workload.h"

MAP_KERNEL(square, in[i] * in[i] + 1.0f)

int main(int argc, char **argv)
{
	struct options o = parse_options(argc, argv, {256 << 10, 8, 0, 1, "hostalloc", "mapped", false});
	size_t n = o.size / sizeof(float);
	cudaStream_t st[2];
	cudaEvent_t copied[2];
	float *h_in[2], *d_in[2], *h_out[2], *d_out[2];
	for (int s = 0; s < 2; s++) {
		CHECK(cudaStreamCreateWithFlags(&st[s], cudaStreamNonBlocking));
		CHECK(cudaEventCreateWithFlags(&copied[s], cudaEventDisableTiming));
#ifdef ECHO_NAIVE
		struct merged m = merged_alloc(o.strategy, o.size);
		h_in[s] = (float *)m.host, d_in[s] = (float *)m.dev;
#else
		h_in[s] = (float *)host_alloc(o.host, o.size);
		CHECK(cudaMalloc((void **)&d_in[s], o.size));
#endif
		h_out[s] = (float *)host_alloc(o.host, o.size);
		CHECK(cudaMalloc((void **)&d_out[s], o.size));
		fill_batch(h_in[s], n, s);
	}
	uint64_t sum = FNV_OFFSET;
	int frames = o.warmup + o.iters;
	struct laps l = laps_start(&o);
	for (int it = 0; it < frames; it++) {
		int b = it % 2;
		CHECK(cudaStreamSynchronize(st[b]));
		if (it >= 2)
			sum = fnv1a(sum, h_out[b], o.size);
#ifndef ECHO_NAIVE
		CHECK(cudaMemcpyAsync(d_in[b], h_in[b], o.size, cudaMemcpyHostToDevice, st[b]));
#endif
		CHECK(cudaEventRecord(copied[b], st[b]));
		void *args[] = {&d_in[b], &d_out[b], &n};
		launch((const void *)square, n, args, st[b]);
		CHECK(cudaMemcpyAsync(h_out[b], d_out[b], o.size, cudaMemcpyDeviceToHost, st[b]));
		CHECK(cudaEventSynchronize(copied[b]));
		fill_batch(h_in[b], n, it + 2); /* the copy is done; the kernel may not have run */
		lap(&l);
	}
	for (int s = 0; s < 2; s++) {
		CHECK(cudaStreamSynchronize(st[s]));
		sum = fnv1a(sum, h_out[s], o.size);
	}
	report(sum, &l);
	for (int s = 0; s < 2; s++) {
		CHECK(cudaEventDestroy(copied[s]));
		CHECK(cudaStreamDestroy(st[s]));
	}
	return 0;
}
