/*
 * background: the stream loop's synchronous copies on the legacy stream, around a kernel on a
 * created blocking stream, beside a persistent kernel on a non-blocking stream (a watcher,
 * as progress engines and persistent kernels run) that spins until the host releases it
 * after the loop. The D2H copy is the host's only wait for the kernel: the legacy stream's
 * implicit barrier orders the blocking stream's work before it. Nothing orders the watcher.
 *
 * So an elided copy must keep exactly the wait it was: one that kept a synchronize of the
 * legacy stream alone would read the output before the kernel wrote it; one that kept a
 * device synchronize would wait for the watcher, which gives up after --patience seconds
 * and says so in the checksum. The hand-merged reference (--manual) waits for the kernel's
 * stream.
 */
#define WORKLOAD_MANUAL
#define WORKLOAD_FLAGS " [--patience SECONDS]"
#include "workload.h"

#ifdef __CUDACC__
#define NAP() __nanosleep(1000)
#define NAPS_PER_SECOND 1000000ull
#else
#include <unistd.h>
#define NAP() usleep(1000)
#define NAPS_PER_SECOND 1000ull
#endif

SCALE_KERNEL(1.000001f, 0.5f)

/* Waits for *release, napping, at most naps times; *verdict says which came first. */
KERNEL3(watch, const volatile int *, release, unsigned long long, naps, int *, verdict)
{
	FOR_ALL(i, 1)
	{
		unsigned long long k = 0;
		while (!*release && k++ < naps)
			NAP();
		*verdict = *release ? 1 : 2;
	}
}

/* --patience SECONDS, taken out of argv: how long the watcher waits to be released. */
static unsigned long long take_patience(int *argc, char **argv)
{
	unsigned long long seconds = 30;
	for (int i = 1; i + 1 < *argc; i++) {
		if (strcmp(argv[i], "--patience"))
			continue;
		seconds = strtoull(argv[i + 1], NULL, 10);
		memmove(&argv[i], &argv[i + 2], (size_t)(*argc - i - 2) * sizeof argv[0]);
		*argc -= 2;
		break;
	}
	return seconds;
}

int main(int argc, char **argv)
{
	unsigned long long patience = take_patience(&argc, argv);
	struct options o = parse_options(argc, argv, {4 << 20, 20, 3, 1, "malloc", "mapped", false});
	size_t n = o.size / sizeof(float), zero = 0;

	cudaStream_t work, background;
	CHECK(cudaStreamCreate(&work)); /* blocking: ordered with the legacy stream */
	CHECK(cudaStreamCreateWithFlags(&background, cudaStreamNonBlocking));
	int *release, *verdict;
	CHECK(cudaHostAlloc((void **)&release, sizeof *release, cudaHostAllocMapped));
	CHECK(cudaHostAlloc((void **)&verdict, sizeof *verdict, cudaHostAllocMapped));
	*release = 0, *verdict = 0;

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

	/* Load the loop's kernel before the watcher starts: a lazily loaded module (CUDA's
	 * default since 12.2) loads under a context-wide synchronize, which would wait for it. */
	void *load_args[] = {&d_in, &d_out, &zero, &o.work};
	CHECK(cudaLaunchKernel((const void *)scale, dim3(1), dim3(1), load_args, 0, work));
	CHECK(cudaStreamSynchronize(work));

	unsigned long long naps = patience * NAPS_PER_SECOND;
	void *watch_args[] = {&release, &naps, &verdict};
	CHECK(cudaLaunchKernel((const void *)watch, dim3(1), dim3(1), watch_args, 0, background));

	uint64_t sum = FNV_OFFSET;
	struct laps l = laps_start(&o);
	for (int it = 0; it < o.warmup + o.iters; it++) {
		touch_pages(h_in, n, it);
		if (!o.manual)
			CHECK(cudaMemcpy(d_in, h_in, o.size, cudaMemcpyHostToDevice));
		void *args[] = {&d_in, &d_out, &n, &o.work};
		launch((const void *)scale, n, args, work);
		if (o.manual)
			CHECK(cudaStreamSynchronize(work));
		else
			CHECK(cudaMemcpy(h_out, d_out, o.size, cudaMemcpyDeviceToHost));
		sum = fnv1a_pages(sum, h_out, n);
		lap(&l);
	}
	__atomic_store_n(release, 1, __ATOMIC_SEQ_CST);
	CHECK(cudaStreamSynchronize(background));
	if (*verdict != 1)
		fprintf(stderr, "%s: the watcher was not released within %llu s\n", argv[0], patience);
	sum = fnv1a(sum, verdict, sizeof *verdict);
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
	CHECK(cudaFreeHost(release));
	CHECK(cudaFreeHost(verdict));
	CHECK(cudaStreamDestroy(work));
	CHECK(cudaStreamDestroy(background));
	return 0;
}
