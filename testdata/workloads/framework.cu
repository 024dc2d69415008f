/*
 * framework: a loop that moves tensors the way PyTorch and CuPy do, in which Echo finds no
 * pair yet (issue 12). Three habits set it apart from stream:
 *  - device tensors are blocks, not allocations: a caching allocator in miniature takes two
 *    segments of a few tensors each from cudaMalloc and carves them into blocks; each
 *    iteration's input, activation and output are blocks handed out again at the same
 *    offsets, and a freed block goes back to the cache, never to cudaFree;
 *  - host tensors live for one iteration: posix_memalign (64-byte alignment, the exact byte
 *    size), as PyTorch's CPU allocator gives the buffers of torch.from_numpy and y.cpu(),
 *    freed at the end of the iteration;
 *  - every copy is cudaMemcpyAsync on a stream the program created, followed by
 *    cudaStreamSynchronize on it (PyTorch's non_blocking=False), and the kernels run there.
 * --pool takes host tensors from a small pool instead (posix_memalign once, then reused), as
 * a pooled host allocator does. --driver runs the same loop through the driver API, as CuPy
 * does: cuMemAlloc_v2 segments, cuStreamCreate, cuMemcpyHtoDAsync_v2 / cuMemcpyDtoHAsync_v2,
 * cuStreamSynchronize; kernels still launch through the runtime. --manual is what a user who
 * pins by hand writes: host tensors from cudaHostAlloc, allocated once and reused, with the
 * same copies and syncs. Every variant computes the same bytes. The program links -lcuda.
 */
#include <cuda.h>

#define WORKLOAD_MANUAL
#define WORKLOAD_FLAGS " [--pool] [--driver]"
#include "workload.h"

#define NW 4096		     /* weights: 16 KiB of floats, a block that lives for the whole run */
#define BLOCK_ROUND 512	     /* PyTorch's caching allocator rounds every block to 512 bytes */
#define SEGMENTS 2
#define SEGMENT_TENSORS 3    /* a segment holds three tensors' worth of blocks */
#define MAX_BLOCKS 8
#define HOST_SLOTS 4

KERNEL5(affine, const float *, x, const float *, w, float *, h, size_t, n, int, work)
{
	FOR_ALL(i, n)
	{
		float v = x[i];
		for (int k = 0; k < work; k++)
			v = v * w[(i + (size_t)k) % NW] + 0.125f;
		h[i] = v;
	}
}

KERNEL3(relu, const float *, h, float *, y, size_t, n)
{
	FOR_ALL(i, n)
	y[i] = h[i] > 0.5f ? h[i] - 0.5f : 0.0f;
}

/*
 * The device side: a freed block stays cached, and a request gets the first cached block of
 * its rounded size back, else a new one carved from the first segment with room. A loop that
 * asks for the same sizes in the same order therefore gets the same offsets every iteration,
 * as with PyTorch's CUDACachingAllocator or CuPy's memory pool. Blocks are recorded in the
 * order they were carved, which is address order inside each segment.
 */
struct block {
	int seg;
	size_t offset, size;
	bool busy;
};

struct device_cache {
	bool driver;
	char *seg[SEGMENTS];
	size_t seg_size, used[SEGMENTS];
	struct block blocks[MAX_BLOCKS];
	int nblocks;
};

static void cache_init(struct device_cache *c, bool driver, size_t seg_size)
{
	c->driver = driver, c->seg_size = seg_size;
	for (int s = 0; s < SEGMENTS; s++) {
		if (driver) {
			CUdeviceptr p;
			CU_CHECK(cuMemAlloc(&p, seg_size));
			c->seg[s] = (char *)(uintptr_t)p;
		} else {
			CHECK(cudaMalloc((void **)&c->seg[s], seg_size));
		}
	}
}

static void cache_release(struct device_cache *c)
{
	for (int s = 0; s < SEGMENTS; s++) {
		if (c->driver)
			CU_CHECK(cuMemFree((CUdeviceptr)(uintptr_t)c->seg[s]));
		else
			CHECK(cudaFree(c->seg[s]));
	}
}

static float *block_alloc(struct device_cache *c, size_t n)
{
	size_t size = (n + BLOCK_ROUND - 1) / BLOCK_ROUND * BLOCK_ROUND;
	struct block *b = NULL;
	for (int i = 0; i < c->nblocks && !b; i++)
		if (!c->blocks[i].busy && c->blocks[i].size == size)
			b = &c->blocks[i];
	for (int s = 0; s < SEGMENTS && !b && c->nblocks < MAX_BLOCKS; s++)
		if (c->seg_size - c->used[s] >= size) {
			b = &c->blocks[c->nblocks++];
			*b = {s, c->used[s], size, false};
			c->used[s] += size;
		}
	if (!b) {
		fprintf(stderr, "device cache: no block of %zu bytes left in %d segments of %zu\n", size,
			SEGMENTS, c->seg_size);
		exit(1);
	}
	b->busy = true;
	return (float *)(c->seg[b->seg] + b->offset);
}

static void block_free(struct device_cache *c, const float *p)
{
	for (int i = 0; i < c->nblocks; i++) {
		struct block *b = &c->blocks[i];
		if (b->busy && c->seg[b->seg] + b->offset == (const char *)p) {
			b->busy = false;
			return;
		}
	}
	fprintf(stderr, "device cache: %p is not a live block\n", (const void *)p);
	exit(1);
}

/*
 * The host side. fresh: posix_memalign and free every iteration (PyTorch's CPU allocator);
 * pool: a few posix_memalign buffers kept and handed out again by size (--pool); pinned: the
 * same pool filled from cudaHostAlloc (--manual).
 */
enum host_mode { HOST_FRESH, HOST_POOL, HOST_PINNED };

struct host_pool {
	enum host_mode mode;
	struct {
		void *p;
		size_t size;
		bool busy;
	} slot[HOST_SLOTS];
	int n;
};

static float *host_take(struct host_pool *h, size_t n)
{
	for (int i = 0; i < h->n; i++)
		if (!h->slot[i].busy && h->slot[i].size == n) {
			h->slot[i].busy = true;
			return (float *)h->slot[i].p;
		}
	void *p = NULL;
	if (h->mode == HOST_PINNED)
		CHECK(cudaHostAlloc(&p, n, cudaHostAllocDefault));
	else if (posix_memalign(&p, 64, n) != 0)
		p = NULL;
	if (!p) {
		fprintf(stderr, "out of host memory for %zu bytes\n", n);
		exit(1);
	}
	if (h->mode != HOST_FRESH) {
		if (h->n == HOST_SLOTS) {
			fprintf(stderr, "host pool: all %d slots taken\n", HOST_SLOTS);
			exit(1);
		}
		h->slot[h->n++] = {p, n, true};
	}
	return (float *)p;
}

static void host_give(struct host_pool *h, float *p)
{
	if (h->mode == HOST_FRESH) {
		free(p);
		return;
	}
	for (int i = 0; i < h->n; i++)
		if (h->slot[i].p == p)
			h->slot[i].busy = false;
}

static void host_drain(struct host_pool *h)
{
	for (int i = 0; i < h->n; i++) {
		if (h->mode == HOST_PINNED)
			CHECK(cudaFreeHost(h->slot[i].p));
		else
			free(h->slot[i].p);
	}
	h->n = 0;
}

/* A blocking copy as a framework makes one: async on its stream, then a wait for that stream.
 * The runtime's cudaStream_t and the driver's CUstream are the same type. */
static void copy_sync(bool driver, cudaStream_t st, void *dst, const void *src, size_t n, cudaMemcpyKind kind)
{
	if (driver && kind == cudaMemcpyHostToDevice)
		CU_CHECK(cuMemcpyHtoDAsync((CUdeviceptr)(uintptr_t)dst, src, n, st));
	else if (driver)
		CU_CHECK(cuMemcpyDtoHAsync(dst, (CUdeviceptr)(uintptr_t)src, n, st));
	else
		CHECK(cudaMemcpyAsync(dst, src, n, kind, st));
	if (driver)
		CU_CHECK(cuStreamSynchronize(st));
	else
		CHECK(cudaStreamSynchronize(st));
}

int main(int argc, char **argv)
{
	bool pool = take_flag(&argc, argv, "--pool"), driver = take_flag(&argc, argv, "--driver");
	struct options o = parse_options(argc, argv, {4 << 20, 20, 3, 1, "malloc", "mapped", false});
	struct host_pool host = {};
	host.mode = o.manual ? HOST_PINNED : pool ? HOST_POOL : HOST_FRESH;
	fprintf(stderr, "%s: host tensors from %s, %s API\n", argv[0],
		o.manual ? "cudaHostAlloc, once" : pool ? "a posix_memalign pool" : "posix_memalign every iteration",
		driver ? "driver" : "runtime");
	size_t n = o.size / sizeof(float), tensor = o.size > NW * sizeof(float) ? o.size : NW * sizeof(float);

	CUdevice dev = 0;
	cudaStream_t st;
	if (driver) {
		CUcontext ctx;
		CU_CHECK(cuInit(0));
		CU_CHECK(cuDeviceGet(&dev, 0));
		CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
		CU_CHECK(cuCtxSetCurrent(ctx));
		CU_CHECK(cuStreamCreate(&st, CU_STREAM_DEFAULT)); /* cupy.cuda.Stream() */
	} else {
		CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking)); /* torch.cuda.Stream() */
	}
	struct device_cache cache = {};
	cache_init(&cache, driver, SEGMENT_TENSORS * ((tensor + BLOCK_ROUND - 1) / BLOCK_ROUND * BLOCK_ROUND));

	/* The model's weights, moved to the device once (model.cuda()). */
	static float w[NW];
	for (size_t i = 0; i < NW; i++)
		w[i] = 0.5f + (float)(i % 41) * 0.01f;
	float *d_w = block_alloc(&cache, sizeof w);
	copy_sync(driver, st, d_w, w, sizeof w, cudaMemcpyHostToDevice);

	uint64_t sum = FNV_OFFSET;
	struct laps l = laps_start(&o);
	for (int it = 0; it < o.warmup + o.iters; it++) {
		/* x = torch.from_numpy(batch).cuda() */
		float *h_x = host_take(&host, o.size);
		for (size_t i = 0; i < n; i++)
			h_x[i] = (float)((i * 7 + (size_t)it * 13) % 256) / 255.0f;
		float *d_x = block_alloc(&cache, o.size);
		copy_sync(driver, st, d_x, h_x, o.size, cudaMemcpyHostToDevice);
		/* y = relu(affine(x)); the activation goes back to the cache once relu is queued */
		float *d_h = block_alloc(&cache, o.size), *d_y = block_alloc(&cache, o.size);
		void *a1[] = {&d_x, &d_w, &d_h, &n, &o.work};
		launch((const void *)affine, n, a1, st);
		void *a2[] = {&d_h, &d_y, &n};
		launch((const void *)relu, n, a2, st);
		block_free(&cache, d_h);
		/* y.cpu(), then the host reads it */
		float *h_y = host_take(&host, o.size);
		copy_sync(driver, st, h_y, d_y, o.size, cudaMemcpyDeviceToHost);
		sum = fnv1a_pages(sum, h_y, n);
		if (it == o.warmup + o.iters - 1)
			sum = fnv1a(sum, h_y, o.size);
		block_free(&cache, d_x);
		block_free(&cache, d_y);
		host_give(&host, h_x);
		host_give(&host, h_y);
		lap(&l);
	}
	report(sum, &l);

	block_free(&cache, d_w);
	cache_release(&cache);
	host_drain(&host);
	if (driver) {
		CU_CHECK(cuStreamDestroy(st));
		CU_CHECK(cuDevicePrimaryCtxRelease(dev));
	} else {
		CHECK(cudaStreamDestroy(st));
	}
	return 0;
}
