/*
 * mt_stream: the stream loop on several threads at once, each with its own host and device
 * buffers allocated through shared helpers, so the same call sites allocate for every
 * thread. Which thread's call comes first at a site changes from run to run: a site and an
 * ordinal do not name one buffer, and Echo must refuse to merge such pairs.
 * Usage: mt_stream [--size BYTES] [--iters N] [--warmup N] [--work N]  (4 threads)
 */
#include <pthread.h>

#include "workload.h"

SCALE_KERNEL(1.000001f, 0.5f)

#define THREADS 4

struct job {
	const struct options *o;
	int id;
	uint64_t sum;
};

static float *device_buffer(size_t bytes)
{
	float *d;
	CHECK(cudaMalloc((void **)&d, bytes));
	return d;
}

static void *run(void *arg)
{
	struct job *j = (struct job *)arg;
	const struct options *o = j->o;
	size_t n = o->size / sizeof(float);
	float *h_in = (float *)host_alloc("malloc", o->size), *h_out = (float *)host_alloc("malloc", o->size);
	float *d_in = device_buffer(o->size), *d_out = device_buffer(o->size);
	int work = o->work;
	j->sum = FNV_OFFSET;
	for (int it = 0; it < o->warmup + o->iters; it++) {
		for (size_t i = 0; i < n; i++)
			h_in[i] = (float)((i + (size_t)j->id * 7 + (size_t)it) % 1000) * 0.001f;
		CHECK(cudaMemcpy(d_in, h_in, o->size, cudaMemcpyHostToDevice));
		void *args[] = {&d_in, &d_out, &n, &work};
		launch((const void *)scale, n, args, cudaStreamPerThread);
		CHECK(cudaMemcpy(h_out, d_out, o->size, cudaMemcpyDeviceToHost));
		j->sum = fnv1a(j->sum, h_out, o->size);
	}
	CHECK(cudaFree(d_in));
	CHECK(cudaFree(d_out));
	host_free("malloc", h_in);
	host_free("malloc", h_out);
	return NULL;
}

int main(int argc, char **argv)
{
	struct options o = parse_options(argc, argv, {256 << 10, 8, 1, 1, "malloc", "mapped", false});
	pthread_t threads[THREADS];
	struct job jobs[THREADS];
	struct laps l = laps_start(&o);
	for (int t = 0; t < THREADS; t++) {
		jobs[t].o = &o;
		jobs[t].id = t;
		pthread_create(&threads[t], NULL, run, &jobs[t]);
	}
	uint64_t sum = FNV_OFFSET;
	for (int t = 0; t < THREADS; t++) {
		pthread_join(threads[t], NULL);
		sum = fnv1a(sum, &jobs[t].sum, sizeof jobs[t].sum);
	}
	for (int i = 0; i < o.warmup + o.iters; i++)
		lap(&l); /* one figure for the whole run: the threads' iterations overlap */
	report(sum, &l);
	return 0;
}
