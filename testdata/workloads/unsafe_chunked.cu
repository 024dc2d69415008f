/*
 * Unsafe, in chunks: as chunked, but the host refills each chunk of the input for the next
 * iteration as soon as that chunk's copy is done (an event recorded after it), while the
 * kernel on it may not have run: legal as written (the device has its own copy of the chunk
 * by then), but merged, the kernel reads the next iteration's data (S1 in stream time).
 * Refuse the input.
 */
#include "workload.h"

MAP_KERNEL(square, in[i] * in[i] + 1.0f)

#define CHUNKS 4

int main(int argc, char **argv)
{
	struct options o = parse_options(argc, argv, {256 << 10, 8, 0, 1, "hostalloc", "mapped", false});
	size_t chunk = o.size / CHUNKS, n = chunk / sizeof(float);
	cudaStream_t st[CHUNKS];
	cudaEvent_t copied[CHUNKS];
	for (int k = 0; k < CHUNKS; k++) {
		CHECK(cudaStreamCreateWithFlags(&st[k], cudaStreamNonBlocking));
		CHECK(cudaEventCreateWithFlags(&copied[k], cudaEventDisableTiming));
	}
#ifdef ECHO_NAIVE
	NAIVE_MERGE(m, o, h_in, d_in);
#else
	float *h_in = (float *)host_alloc(o.host, o.size), *d_in;
	CHECK(cudaMalloc((void **)&d_in, o.size));
#endif
	float *h_out = (float *)host_alloc(o.host, o.size), *d_out;
	CHECK(cudaMalloc((void **)&d_out, o.size));
	for (int k = 0; k < CHUNKS; k++)
		fill_batch(h_in + k * n, n, 0);
	uint64_t sum = FNV_OFFSET;
	struct laps l = laps_start(&o);
	for (int it = 0; it < o.warmup + o.iters; it++) {
		for (int k = 0; k < CHUNKS; k++) {
			float *din = d_in + k * n, *dout = d_out + k * n;
#ifndef ECHO_NAIVE
			CHECK(cudaMemcpyAsync(din, h_in + k * n, chunk, cudaMemcpyHostToDevice, st[k]));
#endif
			CHECK(cudaEventRecord(copied[k], st[k]));
			void *args[] = {&din, &dout, &n};
			launch((const void *)square, n, args, st[k]);
			CHECK(cudaMemcpyAsync(h_out + k * n, dout, chunk, cudaMemcpyDeviceToHost, st[k]));
		}
		for (int k = 0; k < CHUNKS; k++) {
			CHECK(cudaEventSynchronize(copied[k]));
			fill_batch(h_in + k * n, n, it + 1); /* the chunk's copy is done; its kernel may not have run */
		}
		CHECK(cudaDeviceSynchronize());
		sum = fnv1a(sum, h_out, o.size);
		lap(&l);
	}
	report(sum, &l);
	for (int k = 0; k < CHUNKS; k++) {
		CHECK(cudaEventDestroy(copied[k]));
		CHECK(cudaStreamDestroy(st[k]));
	}
	return 0;
}
