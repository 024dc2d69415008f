/*
 * What the source-path verdict corpus shares (testdata/source/corpus, README.md there): the
 * command line (--size BYTES[K|M], --iters N, --warmup N), checked CUDA calls, a launch
 * through cudaLaunchKernel, the checksum and the timing. Each program is one .cu file built for
 * the emulator with g++ (-x c++, kernels are host functions: ../../workloads/kernel.h) and for a
 * GPU with nvcc; the ones that launch with <<<...>>> build with nvcc only. The helpers are
 * written here, beside the programs, so that the analysis reads their bodies as the program's
 * own.
 *
 * Output on stdout is two lines, `checksum=<16 hex digits>` and `iter_ms=<median>`.
 */
#ifndef ECHO_CORPUS_H
#define ECHO_CORPUS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../workloads/kernel.h"

#define CHECK(call)                                                                        \
	do {                                                                               \
		cudaError_t err_ = (call);                                                 \
		if (err_ != cudaSuccess) {                                                 \
			fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,      \
				cudaGetErrorString(err_));                                         \
			exit(1);                                                           \
		}                                                                          \
	} while (0)

/* A device function: __device__ for nvcc, a host function for the emulator. */
#ifdef __CUDACC__
#define DEVICE __device__
#else
#define DEVICE static inline
#endif

/* The emulator runs a kernel's elements one after another: plain updates are atomic there. */
#ifndef __CUDACC__
static inline float atomicAdd(float *p, float v)
{
	float old = *p;
	*p = old + v;
	return old;
}
static inline float atomicExch(float *p, float v)
{
	float old = *p;
	*p = v;
	return old;
}
#endif

/* A store in inline assembly: PTX for nvcc, x86-64 or arm64 (tests/arm64.sh) for the emulator. */
#ifdef __CUDACC__
#define STORE_ASM(p, v) asm volatile("st.f32 [%0], %1;" : : "l"(p), "f"(v) : "memory")
#elif defined(__aarch64__)
#define STORE_ASM(p, v) asm volatile("str %s1, %0" : "=m"(*(p)) : "w"(v))
#else
#define STORE_ASM(p, v) asm volatile("movss %1, %0" : "=m"(*(p)) : "x"(v))
#endif

struct corpus {
	size_t size; /* bytes of each buffer */
	int iters, warmup;
};

static inline struct corpus corpus_options(int argc, char **argv)
{
	struct corpus c = {256 << 10, 3, 1};
	for (int i = 1; i + 1 < argc; i += 2) {
		char *end;
		unsigned long long v = strtoull(argv[i + 1], &end, 10);
		if (*end == 'K' || *end == 'k')
			v <<= 10;
		else if (*end == 'M' || *end == 'm')
			v <<= 20;
		if (!strcmp(argv[i], "--size"))
			c.size = (size_t)v;
		else if (!strcmp(argv[i], "--iters"))
			c.iters = (int)v;
		else if (!strcmp(argv[i], "--warmup"))
			c.warmup = (int)v;
		else {
			fprintf(stderr, "usage: %s [--size BYTES[K|M]] [--iters N] [--warmup N]\n", argv[0]);
			exit(2);
		}
	}
	if (c.size < 4096 || c.iters < 1 || c.iters > 100000) {
		fprintf(stderr, "%s: --size must be at least 4K and --iters between 1 and 100000\n", argv[0]);
		exit(2);
	}
	return c;
}

static inline void launch(const void *kernel, size_t n, void **args)
{
	size_t blocks = (n + 255) / 256;
	dim3 grid((unsigned)(blocks < 4096 ? (blocks ? blocks : 1) : 4096)), block(256);
	CHECK(cudaLaunchKernel(kernel, grid, block, args, 0, 0));
}

#define FNV_OFFSET 0xcbf29ce484222325ULL

static inline uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
	const unsigned char *p = (const unsigned char *)data;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

static inline double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Prints the checksum and the median of the iterations' times (ms[warmup..]). */
static inline void report(uint64_t sum, double *ms, int warmup, int n)
{
	double *t = ms + warmup;
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && t[j - 1] > t[j]; j--) {
			double x = t[j];
			t[j] = t[j - 1];
			t[j - 1] = x;
		}
	printf("checksum=%016llx\n", (unsigned long long)sum);
	printf("iter_ms=%.4f\n", n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2);
}

#endif
