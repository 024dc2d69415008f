/*
 * chunked: the cuda-samples simpleStreams pattern. One input and one output buffer, each
 * copied in four chunks, one per non-blocking stream, with the kernel on each chunk on that
 * chunk's stream, so one chunk's copy overlaps another's kernel; the host waits for the
 * device once per iteration. The chunks of each direction cover their buffer: two pairs,
 * each linked by its chunk copies.
 */
#define WORKLOAD_MANUAL
#include "workload.h"

SCALE_KERNEL(0.999f, 0.25f)

#define CHUNKS 4

int main(int argc, char **argv)
{
	struct options o = parse_options(argc, argv, {4 << 20, 20, 3, 1, "hostalloc", "mapped", false});
	size_t chunk = o.size / CHUNKS, n = chunk / sizeof(float), total = o.size / sizeof(float);
	cudaStream_t st[CHUNKS];
	for (int k = 0; k < CHUNKS; k++)
		CHECK(cudaStreamCreateWithFlags(&st[k], cudaStreamNonBlocking));
	float *h_in, *h_out, *d_in, *d_out;
	struct merged in = {}, out = {};
	if (o.manual) {
		in = merged_alloc(o.strategy, o.size);
		out = merged_alloc(o.strategy, o.size);
		h_in = (float *)in.host, d_in = (float *)in.dev;
		h_out = (float *)out.host, d_out = (float *)out.dev;
	} else {
		h_in = (float *)host_alloc(o.host, o.size);
		h_out = (float *)host_alloc(o.host, o.size);
		CHECK(cudaMalloc((void **)&d_in, o.size));
		CHECK(cudaMalloc((void **)&d_out, o.size));
	}
	for (size_t i = 0; i < total; i++)
		h_in[i] = (float)(i % 100) * 0.01f;

	uint64_t sum = FNV_OFFSET;
	struct laps l = laps_start(&o);
	for (int it = 0; it < o.warmup + o.iters; it++) {
		for (size_t i = 0; i < total; i += STRIDE)
			h_in[i] = (float)it;
		for (int k = 0; k < CHUNKS; k++) {
			float *din = d_in + k * n, *dout = d_out + k * n;
			if (!o.manual)
				CHECK(cudaMemcpyAsync(din, h_in + k * n, chunk, cudaMemcpyHostToDevice, st[k]));
			void *args[] = {&din, &dout, &n, &o.work};
			launch((const void *)scale, n, args, st[k]);
			if (!o.manual)
				CHECK(cudaMemcpyAsync(h_out + k * n, dout, chunk, cudaMemcpyDeviceToHost, st[k]));
		}
		CHECK(cudaDeviceSynchronize());
		sum = fnv1a_pages(sum, h_out, total);
		lap(&l);
	}
	report(fnv1a(sum, h_out, o.size), &l);

	if (o.manual) {
		merged_free(o.strategy, in);
		merged_free(o.strategy, out);
	} else {
		host_free(o.host, h_in);
		host_free(o.host, h_out);
		CHECK(cudaFree(d_in));
		CHECK(cudaFree(d_out));
	}
	for (int k = 0; k < CHUNKS; k++)
		CHECK(cudaStreamDestroy(st[k]));
	return 0;
}
