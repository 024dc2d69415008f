/*
 * staging: a loop that hands its host arrays to a framework that stages them, the way a CuPy
 * program hands NumPy arrays to cp.asarray and takes results back with cp.asnumpy (issue 44).
 *
 * Asked to copy a host array to the device, the framework first asks the runtime whether the
 * array is page-locked (cudaPointerGetAttributes, as CuPy's is_memory_pinned does). If it
 * is, it copies from it directly, asynchronously. If not, it copies the array on the CPU
 * (memmove, as NumPy's assignment of a contiguous array does) into a page-locked buffer of
 * its own (cuMemHostAlloc, from a small pool that hands a buffer out again once the copy
 * that used it is done; one pool each way) and copies from that. The CUDA copy then never names the program's
 * array: a trace sees the framework's page-locked buffer, and the CPU copy into it is no
 * CUDA call at all.
 *
 * Device arrays are blocks of one cuMemAlloc_v2 segment (a memory pool); the copies are
 * cuMemcpyHtoDAsync_v2 and cuMemcpyDtoHAsync_v2 on a stream made with cuStreamCreate; the
 * kernel launches through the runtime on that stream. Each iteration the program makes a
 * fresh host array (malloc, as np.full), fills it, converts it, runs the kernel and takes the
 * result back into a fresh host array made by the same helper (asnumpy: a direct
 * cuMemcpyDtoHAsync_v2 and a wait for the stream), then reads it.
 *  --stage-out stages the way back too: the result goes into a page-locked buffer of the
 *              framework's, and memcpy copies it into the program's array.
 *  --manual    is what a user who pins by hand writes (cupyx.empty_pinned): both host arrays
 *              from cuMemHostAlloc, made once and reused; the framework never stages.
 * Every variant computes the same bytes. The last line on stderr says how many arrays the
 * framework staged and how many it copied directly. The program links -lcuda.
 */
#include <cuda.h>

#define WORKLOAD_MANUAL
#define WORKLOAD_FLAGS " [--stage-out]"
#include "workload.h"

#define NW 4096	       /* weights: 16 KiB of floats, a block that lives for the whole run */
#define ROUND 512      /* the memory pool rounds every block to 512 bytes, as CuPy's does */
#define MAX_BLOCKS 4
#define MAX_STAGING 4

KERNEL4(scale, const float *, x, const float *, w, float *, y, size_t, n)
{
	FOR_ALL(i, n)
	y[i] = x[i] * w[i % NW] + 1.0f;
}

/* The framework's device memory: blocks carved from one segment, a freed block handed out
 * again to the next request of its size, so every iteration gets the same offsets. */
struct device_pool {
	char *seg;
	size_t size, used;
	struct {
		size_t offset, size;
		bool busy;
	} block[MAX_BLOCKS];
	int n;
};

static float *device_alloc(struct device_pool *d, size_t bytes)
{
	size_t size = (bytes + ROUND - 1) / ROUND * ROUND;
	for (int i = 0; i < d->n; i++)
		if (!d->block[i].busy && d->block[i].size == size) {
			d->block[i].busy = true;
			return (float *)(d->seg + d->block[i].offset);
		}
	if (d->n == MAX_BLOCKS || d->size - d->used < size) {
		fprintf(stderr, "device pool: no room for %zu bytes\n", size);
		exit(1);
	}
	d->block[d->n++] = {d->used, size, true};
	d->used += size;
	return (float *)(d->seg + d->used - size);
}

static void device_free(struct device_pool *d, const float *p)
{
	for (int i = 0; i < d->n; i++)
		if (d->seg + d->block[i].offset == (const char *)p)
			d->block[i].busy = false;
}

/* The framework's page-locked staging buffers: one is handed out again once the event
 * recorded after the copy that read it has completed. */
struct staging_pool {
	struct {
		void *p;
		size_t size;
		cudaEvent_t done;
		bool recorded;
	} buf[MAX_STAGING];
	int n;
};

static void *staging_take(struct staging_pool *s, size_t size, int *which)
{
	for (int i = 0; i < s->n; i++)
		if (s->buf[i].size == size && (!s->buf[i].recorded || cudaEventQuery(s->buf[i].done) == cudaSuccess)) {
			s->buf[i].recorded = false;
			*which = i;
			return s->buf[i].p;
		}
	if (s->n == MAX_STAGING) {
		fprintf(stderr, "staging pool: all %d buffers in flight\n", MAX_STAGING);
		exit(1);
	}
	int i = s->n++;
	CU_CHECK(cuMemHostAlloc(&s->buf[i].p, size, 0));
	CHECK(cudaEventCreateWithFlags(&s->buf[i].done, cudaEventDisableTiming));
	s->buf[i].size = size;
	s->buf[i].recorded = false;
	*which = i;
	return s->buf[i].p;
}

/* The buffer goes back to the pool once what the stream holds now is done (st), or at once
 * (NULL: the stream was waited for). */
static void staging_give(struct staging_pool *s, int which, cudaStream_t st)
{
	s->buf[which].recorded = st != NULL;
	if (st)
		CHECK(cudaEventRecord(s->buf[which].done, st));
}

struct framework {
	cudaStream_t st;
	struct device_pool dev;
	struct staging_pool up, down; /* staging buffers to the device, from it */
	bool stage_out;
	int staged, direct;
};

/* is_memory_pinned: whether the runtime knows ptr as page-locked host memory. */
static bool pinned(const void *ptr)
{
	cudaPointerAttributes a;
	if (cudaPointerGetAttributes(&a, ptr) != cudaSuccess) {
		(void)cudaGetLastError(); /* older runtimes fail on pageable memory: not pinned */
		return false;
	}
	return a.type == cudaMemoryTypeHost;
}

/* cp.asarray(host): a device array holding host's bytes. */
static float *to_device(struct framework *f, const float *host, size_t bytes)
{
	float *d = device_alloc(&f->dev, bytes);
	const void *src = host;
	int which = -1;
	if (!pinned(host)) {
		void *stage = staging_take(&f->up, bytes, &which);
		memmove(stage, host, bytes);
		src = stage;
		f->staged++;
	} else {
		f->direct++;
	}
	CU_CHECK(cuMemcpyHtoDAsync((CUdeviceptr)(uintptr_t)d, src, bytes, f->st));
	if (which >= 0)
		staging_give(&f->up, which, f->st);
	return d;
}

/* cp.asnumpy(dev, out=host): host's bytes from the device array, once the stream is done. */
static void to_host(struct framework *f, float *host, const float *d, size_t bytes)
{
	void *dst = host;
	int which = -1;
	if (f->stage_out && !pinned(host)) {
		dst = staging_take(&f->down, bytes, &which);
		f->staged++;
	} else {
		f->direct++;
	}
	CU_CHECK(cuMemcpyDtoHAsync(dst, (CUdeviceptr)(uintptr_t)d, bytes, f->st));
	CU_CHECK(cuStreamSynchronize(f->st));
	if (which >= 0) {
		memcpy(host, dst, bytes);
		staging_give(&f->down, which, NULL);
	}
}

/* The program's host arrays: one allocation site for every array, as NumPy's allocator is. */
static __attribute__((noinline)) float *host_array(size_t bytes)
{
	float *p = (float *)malloc(bytes);
	if (!p) {
		fprintf(stderr, "out of host memory for %zu bytes\n", bytes);
		exit(1);
	}
	return p;
}

int main(int argc, char **argv)
{
	struct framework f = {};
	f.stage_out = take_flag(&argc, argv, "--stage-out");
	struct options o = parse_options(argc, argv, {4 << 20, 20, 3, 1, "malloc", "mapped", false});
	size_t n = o.size / sizeof(float);

	CUdevice dev = 0;
	CUcontext ctx;
	CU_CHECK(cuInit(0));
	CU_CHECK(cuDeviceGet(&dev, 0));
	CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CU_CHECK(cuCtxSetCurrent(ctx));
	CU_CHECK(cuStreamCreate(&f.st, CU_STREAM_DEFAULT));
	size_t rounded = (o.size + ROUND - 1) / ROUND * ROUND;
	CUdeviceptr seg;
	f.dev.size = 2 * rounded + NW * sizeof(float);
	CU_CHECK(cuMemAlloc(&seg, f.dev.size));
	f.dev.seg = (char *)(uintptr_t)seg;

	/* w = cp.linspace(...): made on the device once. */
	static float w[NW];
	for (size_t i = 0; i < NW; i++)
		w[i] = 0.5f + (float)(i % 41) * 0.025f;
	float *d_w = device_alloc(&f.dev, sizeof w);
	CU_CHECK(cuMemcpyHtoD((CUdeviceptr)(uintptr_t)d_w, w, sizeof w));

	float *x_pinned = NULL, *y_pinned = NULL;
	if (o.manual) {
		CU_CHECK(cuMemHostAlloc((void **)&x_pinned, o.size, 0));
		CU_CHECK(cuMemHostAlloc((void **)&y_pinned, o.size, 0));
	}
	uint64_t sum = FNV_OFFSET;
	struct laps l = laps_start(&o);
	for (int it = 0; it < o.warmup + o.iters; it++) {
		/* x = np.full(...) */
		float *x = o.manual ? x_pinned : host_array(o.size);
		for (size_t i = 0; i < n; i++)
			x[i] = (float)((i * 7 + (size_t)it * 13) % 256) / 255.0f;
		/* y = cp.asnumpy(cp.asarray(x) * w + 1) */
		float *d_x = to_device(&f, x, o.size);
		float *d_y = device_alloc(&f.dev, o.size);
		void *args[] = {&d_x, &d_w, &d_y, &n};
		launch((const void *)scale, n, args, f.st);
		float *y = o.manual ? y_pinned : host_array(o.size);
		to_host(&f, y, d_y, o.size);
		device_free(&f.dev, d_x);
		device_free(&f.dev, d_y);
		sum = fnv1a_pages(sum, y, n);
		if (it == o.warmup + o.iters - 1)
			sum = fnv1a(sum, y, o.size);
		if (!o.manual) {
			free(x);
			free(y);
		}
		lap(&l);
	}
	report(sum, &l);
	fprintf(stderr, "%s: %d arrays staged, %d copied directly\n", argv[0], f.staged, f.direct);

	CU_CHECK(cuStreamSynchronize(f.st));
	struct staging_pool *pools[] = {&f.up, &f.down};
	for (struct staging_pool *s : pools)
		for (int i = 0; i < s->n; i++) {
			CHECK(cudaEventDestroy(s->buf[i].done));
			CU_CHECK(cuMemFreeHost(s->buf[i].p));
		}
	if (o.manual) {
		CU_CHECK(cuMemFreeHost(x_pinned));
		CU_CHECK(cuMemFreeHost(y_pinned));
	}
	CU_CHECK(cuMemFree(seg));
	CU_CHECK(cuStreamDestroy(f.st));
	CU_CHECK(cuDevicePrimaryCtxRelease(dev));
	return 0;
}
