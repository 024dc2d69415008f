/*
 * Unsafe, across streams: a producer stream copies the input to the device and records an
 * event; the consumer stream waits for that event and runs the kernel that reads the device
 * copy. As soon as the event says the copy is done, the host refills the input for the next
 * iteration: legal as written (the device has its own copy by then), but merged, the
 * consumer's kernel, which may not have run yet, reads the refilled data (S1 in stream time).
 * Refuse.
 */
#include "workload.h"

MAP_KERNEL(square, in[i] * in[i] + 1.0f)

int main(int argc, char **argv)
{
	struct options o = parse_options(argc, argv, {256 << 10, 8, 0, 1, "hostalloc", "mapped", false});
	size_t n = o.size / sizeof(float);
	cudaStream_t producer, consumer;
	cudaEvent_t copied;
	CHECK(cudaStreamCreateWithFlags(&producer, cudaStreamNonBlocking));
	CHECK(cudaStreamCreateWithFlags(&consumer, cudaStreamNonBlocking));
	CHECK(cudaEventCreateWithFlags(&copied, cudaEventDisableTiming));
	float *h_out = (float *)host_alloc(o.host, o.size), *d_out;
	CHECK(cudaMalloc((void **)&d_out, o.size));
#ifdef ECHO_NAIVE
	NAIVE_MERGE(m, o, h_in, d_in);
#else
	float *h_in = (float *)host_alloc(o.host, o.size), *d_in;
	CHECK(cudaMalloc((void **)&d_in, o.size));
#endif
	fill_batch(h_in, n, 0);
	uint64_t sum = FNV_OFFSET;
	struct laps l = laps_start(&o);
	for (int it = 0; it < o.warmup + o.iters; it++) {
#ifndef ECHO_NAIVE
		CHECK(cudaMemcpyAsync(d_in, h_in, o.size, cudaMemcpyHostToDevice, producer));
#endif
		CHECK(cudaEventRecord(copied, producer));
		CHECK(cudaStreamWaitEvent(consumer, copied, 0));
		void *args[] = {&d_in, &d_out, &n};
		launch((const void *)square, n, args, consumer);
		CHECK(cudaEventSynchronize(copied));
		fill_batch(h_in, n, it + 1); /* the copy is done; the consumer may not have run */
		CHECK(cudaMemcpyAsync(h_out, d_out, o.size, cudaMemcpyDeviceToHost, consumer));
		CHECK(cudaStreamSynchronize(consumer));
		sum = fnv1a(sum, h_out, o.size);
		lap(&l);
	}
	report(sum, &l);
#ifdef ECHO_NAIVE
	merged_free(o.strategy, m);
#else
	CHECK(cudaFree(d_in));
	host_free(o.host, h_in);
#endif
	CHECK(cudaFree(d_out));
	host_free(o.host, h_out);
	CHECK(cudaEventDestroy(copied));
	CHECK(cudaStreamDestroy(producer));
	CHECK(cudaStreamDestroy(consumer));
	return 0;
}
