/*
 * What every workload shares: the command line, checked CUDA calls, host and merged buffer
 * allocation (and the naive builds' merge), the host's fills and page touches, timing and the
 * checksum. Each workload is one .cu file built for the emulator with g++ (-x c++) and for
 * real GPUs with nvcc. A workload that defines WORKLOAD_MANUAL before including this header
 * also carries its hand-merged reference, run with --manual (the default when built with
 * ECHO_MANUAL, as the <name>-manual programs are): one binary for both, so the two share their
 * code layout, which on the emulator, whose kernels are host code, moves timings by a few per
 * cent. The unsafe cases are built a second time with ECHO_NAIVE (merged without care). The
 * allocations, copies and frees a workload is about stay in its own main, where the source
 * path reads and rewrites them.
 *
 * Output on stdout is exactly two lines, `checksum=<16 hex digits>` and `iter_ms=<median>`;
 * the configuration goes to stderr, so stdout compares equal across variants of one build.
 */
#ifndef ECHO_WORKLOAD_H
#define ECHO_WORKLOAD_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernel.h"

#ifdef WORKLOAD_MANUAL
#define WORKLOAD_HAS_MANUAL true
#else
#define WORKLOAD_HAS_MANUAL false
#endif

/* A workload's own flags for the usage line; it takes them out of argv before parse_options. */
#ifndef WORKLOAD_FLAGS
#define WORKLOAD_FLAGS ""
#endif

#if defined(ECHO_NAIVE)
#define VARIANT "naive"
#else
#define VARIANT "baseline"
#endif

#define CHECK(call)                                                                        \
	do {                                                                               \
		cudaError_t err_ = (call);                                                 \
		if (err_ != cudaSuccess) {                                                 \
			fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, \
				#call, cudaGetErrorString(err_), cudaGetErrorName(err_));  \
			exit(1);                                                           \
		}                                                                          \
	} while (0)

/* Checked driver API calls, for the workloads that include <cuda.h> first. */
#ifdef CUDA_VERSION
#define CU_CHECK(call)                                                                     \
	do {                                                                               \
		CUresult r_ = (call);                                                      \
		if (r_ != CUDA_SUCCESS) {                                                  \
			const char *name_ = NULL;                                          \
			cuGetErrorName(r_, &name_);                                        \
			fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__,      \
				#call, name_ ? name_ : "unknown CUresult");                \
			exit(1);                                                           \
		}                                                                          \
	} while (0)
#endif

struct options {
	size_t size;	      /* bytes of the main buffer */
	int iters;	      /* timed iterations */
	int warmup;	      /* untimed iterations first */
	int work;	      /* kernel work factor */
	const char *host;     /* host allocator: malloc, new, pinned, hostalloc */
	const char *strategy; /* merged buffer: managed, mapped, system */
	bool manual;	      /* run the hand-merged reference (WORKLOAD_MANUAL) */
};

static inline void usage(const char *prog, const struct options *d)
{
	fprintf(stderr,
		"usage: %s [--size BYTES[K|M|G]] [--iters N] [--warmup N] [--work N]\n"
		"          [--host malloc|new|pinned|hostalloc] [--strategy managed|mapped|system]%s%s\n"
		"defaults: --size %zu --iters %d --warmup %d --work %d --host %s --strategy %s%s\n"
		"--strategy applies to the hand-merged reference and the naive builds only.\n",
		prog, WORKLOAD_HAS_MANUAL ? " [--manual]" : "", WORKLOAD_FLAGS, d->size, d->iters, d->warmup, d->work,
		d->host, d->strategy, d->manual ? " --manual" : "");
}

static inline size_t parse_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	switch (*end) {
	case 'K': case 'k': v <<= 10; end++; break;
	case 'M': case 'm': v <<= 20; end++; break;
	case 'G': case 'g': v <<= 30; end++; break;
	}
	return *end || end == s ? 0 : (size_t)v;
}

static inline int parse_int(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);
	return *end || end == s || v < 0 || v > 1000000000 ? -1 : (int)v;
}

/* Takes a flag of the workload's own (WORKLOAD_FLAGS) out of argv before parse_options sees
 * the rest; whether it was there. */
static inline bool take_flag(int *argc, char **argv, const char *flag)
{
	bool found = false;
	int j = 1;
	for (int i = 1; i < *argc; i++) {
		if (!strcmp(argv[i], flag))
			found = true;
		else
			argv[j++] = argv[i];
	}
	argv[j] = NULL;
	*argc = j;
	return found;
}

static inline struct options parse_options(int argc, char **argv, struct options o)
{
#ifdef ECHO_MANUAL
	o.manual = WORKLOAD_HAS_MANUAL;
#endif
	const struct options defaults = o;
	for (int i = 1; i < argc; i++) {
		const char *flag = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(flag, "-h") || !strcmp(flag, "--help")) {
			usage(argv[0], &defaults);
			exit(0);
		}
		if (WORKLOAD_HAS_MANUAL && !strcmp(flag, "--manual")) {
			o.manual = true;
			continue;
		}
		bool ok = val != NULL;
		if (ok && !strcmp(flag, "--size"))
			ok = (o.size = parse_size(val)) > 0;
		else if (ok && !strcmp(flag, "--iters"))
			ok = (o.iters = parse_int(val)) > 0;
		else if (ok && !strcmp(flag, "--warmup"))
			ok = (o.warmup = parse_int(val)) >= 0;
		else if (ok && !strcmp(flag, "--work"))
			ok = (o.work = parse_int(val)) > 0;
		else if (ok && !strcmp(flag, "--host"))
			ok = !strcmp(o.host = val, "malloc") || !strcmp(val, "new") ||
			     !strcmp(val, "pinned") || !strcmp(val, "hostalloc");
		else if (ok && !strcmp(flag, "--strategy"))
			ok = !strcmp(o.strategy = val, "managed") || !strcmp(val, "mapped") ||
			     !strcmp(val, "system");
		else
			ok = false;
		if (!ok) {
			fprintf(stderr, "%s: bad or missing value for %s\n", argv[0], flag);
			usage(argv[0], &defaults);
			exit(2);
		}
		i++;
	}
	fprintf(stderr, "%s: variant=%s size=%zu iters=%d warmup=%d work=%d host=%s strategy=%s\n",
		argv[0], o.manual ? "manual" : VARIANT, o.size, o.iters, o.warmup, o.work, o.host, o.strategy);
	return o;
}

/* Host buffers as programs get them: malloc, new[], cudaMallocHost, cudaHostAlloc. */
static inline void *host_alloc(const char *kind, size_t n)
{
	void *p = NULL;
	if (!strcmp(kind, "malloc"))
		p = malloc(n);
	else if (!strcmp(kind, "new"))
		p = new unsigned char[n];
	else if (!strcmp(kind, "pinned"))
		CHECK(cudaMallocHost(&p, n));
	else
		CHECK(cudaHostAlloc(&p, n, cudaHostAllocDefault));
	if (!p) {
		fprintf(stderr, "out of host memory for %zu bytes\n", n);
		exit(1);
	}
	return p;
}

static inline void host_free(const char *kind, void *p)
{
	if (!strcmp(kind, "malloc"))
		free(p);
	else if (!strcmp(kind, "new"))
		delete[] (unsigned char *)p;
	else
		CHECK(cudaFreeHost(p));
}

/* One buffer for both sides, the way a hand-merged program allocates it. */
struct merged {
	void *host, *dev;
};

static inline struct merged merged_alloc(const char *strategy, size_t n)
{
	struct merged m = {NULL, NULL};
	if (!strcmp(strategy, "managed")) {
		CHECK(cudaMallocManaged(&m.host, n, cudaMemAttachGlobal));
		m.dev = m.host;
	} else if (!strcmp(strategy, "mapped")) {
		CHECK(cudaHostAlloc(&m.host, n, cudaHostAllocMapped));
		CHECK(cudaHostGetDevicePointer(&m.dev, m.host, 0));
	} else {
		int device = 0, pageable = 0;
		CHECK(cudaGetDevice(&device));
		CHECK(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, device));
		if (!pageable) {
			fprintf(stderr, "--strategy system needs a device with pageable memory access\n");
			exit(2);
		}
		m.host = m.dev = malloc(n);
	}
	return m;
}

/* The naive builds' merge of one pair, merged without care: one merged buffer m of o's size
 * that the host name and the device name both point into. */
#define NAIVE_MERGE(m, o, host_name, dev_name)                   \
	struct merged m = merged_alloc((o).strategy, (o).size); \
	float *host_name = (float *)m.host, *dev_name = (float *)m.dev

static inline void merged_free(const char *strategy, struct merged m)
{
	if (!strcmp(strategy, "managed"))
		CHECK(cudaFree(m.host));
	else if (!strcmp(strategy, "mapped"))
		CHECK(cudaFreeHost(m.host));
	else
		free(m.host);
}

static inline void launch(const void *kernel, size_t n, void **args, cudaStream_t stream)
{
	size_t blocks = (n + 255) / 256;
	dim3 grid((unsigned)(blocks < 4096 ? (blocks ? blocks : 1) : 4096)), block(256);
	CHECK(cudaLaunchKernel(kernel, grid, block, args, 0, stream));
}

static inline double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static inline double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof v[0], cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static inline uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
	const unsigned char *p = (const unsigned char *)data;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

#define FNV_OFFSET 0xcbf29ce484222325ULL

#define STRIDE 1024 /* the host touches one float in every 4 KiB page */

/* The first contents of an input: a ramp that repeats every thousand floats. */
static inline void fill_ramp(float *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (float)(i % 1000) * 0.001f;
}

/* Batch number batch of an input: small whole numbers, different for every batch. */
static inline void fill_batch(float *p, size_t n, int batch)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (float)((i + (size_t)batch * 31) % 97);
}

/* The host's update of its input in iteration it: one float in every page. */
static inline void touch_pages(float *p, size_t n, int it)
{
	for (size_t i = 0; i < n; i += STRIDE)
		p[i] = (float)it + (float)(i % 7);
}

/* The host's look at an output: one float in every page, folded into the checksum h. */
static inline uint64_t fnv1a_pages(uint64_t h, const float *p, size_t n)
{
	for (size_t i = 0; i < n; i += STRIDE)
		h = fnv1a(h, &p[i], sizeof(float));
	return h;
}

/* Per-iteration timing: call lap() at the end of each iteration. */
struct laps {
	double *ms;
	int n, warmup, seen;
	double last;
};

static inline struct laps laps_start(const struct options *o)
{
	struct laps l = {(double *)calloc((size_t)o->iters, sizeof(double)), 0, o->warmup, 0,
			 now_ms()};
	return l;
}

static inline void lap(struct laps *l)
{
	double t = now_ms();
	if (l->seen++ >= l->warmup)
		l->ms[l->n++] = t - l->last;
	l->last = t;
}

static inline void report(uint64_t checksum, struct laps *l)
{
	printf("checksum=%016llx\n", (unsigned long long)checksum);
	printf("iter_ms=%.4f\n", median(l->ms, l->n)); /* 0.1 µs: short iterations differ by less than 1 µs */
	free(l->ms);
}

#endif
