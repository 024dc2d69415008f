/*
 * emu_selftest: a table-driven semantic test of Echo's CUDA runtime emulator.
 *
 *   emu_selftest --list    one line per case: NAME<TAB>ENV (space-separated KEY=VALUE knobs)
 *   emu_selftest NAME      runs one case: "ok NAME" and exit 0, or "FAIL NAME: ..." and exit 1
 *
 * The emulator reads its knobs once per process, so every case runs in a process of its own
 * with the environment its table entry names (corpus/emulator_test.go does that).
 *
 * Each case pins down one promise of cuda_emulator.h and is built so that an emulator which
 * broke the promise would fail it: orderings are checked through data that would be stale
 * without them, with CUDA_EMU_KERNEL_DELAY_US widening the window.
 *
 * Timing. Showing that a call did NOT wait means observing work still pending, and a loaded
 * machine may deschedule this thread for longer than the kernel delay. Such observations are
 * therefore timed from the launch: finished work seen sooner than the delay after the launch
 * is certainly an emulator bug (the kernel sleeps at least that long); seen later it proves
 * nothing, and the case is retried. Durations are only ever bounded from below.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda.h"
#include "cuda_runtime.h"
#include "src/private.h" /* emu_drv_copy_stats: whether a copy went through the staging buffer */

#define N 1024
#define BYTES (N * sizeof(int))
#define OLD (-1) /* contents a buffer has before the work under test writes it */
#define MAX_ATTEMPTS 5
#define DELAY(us) "CUDA_EMU_KERNEL_DELAY_US=" #us

/* ---- results and assertions ---- */

enum result { PASS, FAIL, RETRY };

/* The first failure wins: with several threads, later ones are usually its consequences. */
static char message[1024];
static pthread_mutex_t message_lock = PTHREAD_MUTEX_INITIALIZER;

__attribute__((format(printf, 3, 4))) static enum result report(enum result r, int line,
								  const char *fmt, ...)
{
	pthread_mutex_lock(&message_lock);
	if (!message[0]) {
		int n = snprintf(message, sizeof message, "line %d: ", line);
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(message + n, sizeof message - (size_t)n, fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&message_lock);
	return r;
}

/* Cases return on the first failed check; the process exits right after, so what they
 * allocated is not freed on that path. */
#define EXPECT(cond, ...)                                          \
	do {                                                       \
		if (!(cond))                                       \
			return report(FAIL, __LINE__, __VA_ARGS__); \
	} while (0)
#define EXPECT_ERR(call, want)                                                              \
	do {                                                                                \
		cudaError_t got_ = (call);                                                  \
		if (got_ != (want))                                                         \
			return report(FAIL, __LINE__, "%s returned %s, want %s", #call,     \
				      cudaGetErrorName(got_), cudaGetErrorName(want));      \
	} while (0)
#define CHECK(call) EXPECT_ERR(call, cudaSuccess)
#define TRY(expr)                             \
	do {                                  \
		enum result r_ = (expr);      \
		if (r_ != PASS)               \
			return r_;            \
	} while (0)

/* buf[i] == base + i for every i, the pattern the kernels below write. */
static enum result expect_ramp(int line, const char *what, const int *buf, int n, int base)
{
	for (int i = 0; i < n; i++)
		if (buf[i] != base + i)
			return report(FAIL, line, "%s: element %d is %d, want %d", what, i, buf[i],
				      base + i);
	return PASS;
}
#define EXPECT_RAMP(what, buf, n, base) TRY(expect_ramp(__LINE__, what, buf, n, base))

static void set_all(int *buf, int n, int value)
{
	for (int i = 0; i < n; i++)
		buf[i] = value;
}

static bool all_equal(const int *buf, int n, int value)
{
	for (int i = 0; i < n; i++)
		if (buf[i] != value)
			return false;
	return true;
}

/* Copies memory another thread may be writing; volatile so each element is really read. */
static void snapshot(int *out, const volatile int *src, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = src[i];
}

/* ---- timing ---- */

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* The runner has checked the environment against the case table, so this is the delay the
 * emulator applies. */
static double delay_ms(void)
{
	const char *v = getenv("CUDA_EMU_KERNEL_DELAY_US");
	return v ? strtod(v, NULL) / 1e3 : 0;
}

/* Judges "work found already done `elapsed` ms after launching a delayed kernel ahead of it"
 * (see the comment at the top). */
static enum result done_too_early(int line, double elapsed, const char *what)
{
	if (elapsed < delay_ms())
		return report(FAIL, line, "%s only %.1f ms after the launch, yet the kernel sleeps %.0f ms",
			      what, elapsed, delay_ms());
	return report(RETRY, line, "%s, but %.1f ms had passed (>= the %.0f ms delay): inconclusive",
		      what, elapsed, delay_ms());
}
#define DONE_TOO_EARLY(elapsed, what) return done_too_early(__LINE__, elapsed, what)

/* ---- kernels: host functions in the emulator's convention ---- */

static const dim3 ONE = {1, 1, 1};
static const dim3 GRID = {4, 1, 1}, BLOCK = {32, 1, 1};

/* fill(int *buf, int n, int base): buf[i] = base + i, as a grid-stride loop over the launch's
 * grid and block, so that dimensions lost on the way leave elements unwritten. */
static void k_fill(dim3 grid, dim3 block, void **args)
{
	int *buf = *(int **)args[0];
	int n = *(int *)args[1], base = *(int *)args[2];
	unsigned threads = grid.x * block.x;
	for (unsigned t = 0; t < threads; t++)
		for (unsigned i = t; i < (unsigned)n; i += threads)
			buf[i] = base + (int)i;
}

/* add(int *buf, int n, int add) */
static void k_add(dim3 grid, dim3 block, void **args)
{
	(void)grid;
	(void)block;
	int *buf = *(int **)args[0];
	int n = *(int *)args[1], add = *(int *)args[2];
	for (int i = 0; i < n; i++)
		buf[i] += add;
}

/* spin(int *buf, int us): busy for us microseconds of wall time, then buf[0] = us. */
static void k_spin(dim3 grid, dim3 block, void **args)
{
	(void)grid;
	(void)block;
	int *buf = *(int **)args[0];
	int us = *(int *)args[1];
	double end = now_ms() + us / 1e3;
	while (now_ms() < end)
		;
	buf[0] = us;
}

/* Never registered: launching it must fail. */
static void k_unregistered(dim3 grid, dim3 block, void **args)
{
	(void)grid;
	(void)block;
	(void)args;
}

static cudaError_t register_kernels(void)
{
	static const size_t ptr_int_int[] = {sizeof(int *), sizeof(int), sizeof(int)};
	static const size_t ptr_int[] = {sizeof(int *), sizeof(int)};
	cudaError_t err;
	if ((err = emuRegisterKernel((const void *)k_fill, "fill", 3, ptr_int_int)) ||
	    (err = emuRegisterKernel((const void *)k_add, "add", 3, ptr_int_int)) ||
	    (err = emuRegisterKernel((const void *)k_spin, "spin", 2, ptr_int)))
		return err;
	return cudaSuccess;
}

static cudaError_t fill(int *buf, int n, int base, cudaStream_t s)
{
	void *args[] = {&buf, &n, &base};
	return cudaLaunchKernel((const void *)k_fill, GRID, BLOCK, args, 0, s);
}

static cudaError_t add(int *buf, int n, int v, cudaStream_t s)
{
	void *args[] = {&buf, &n, &v};
	return cudaLaunchKernel((const void *)k_add, ONE, ONE, args, 0, s);
}

/* A device buffer of N ints holding OLD, with the legacy stream idle again. */
static enum result old_buffer(int **d)
{
	int host[N];
	set_all(host, N, OLD);
	CHECK(cudaMalloc((void **)d, BYTES));
	CHECK(cudaMemcpy(*d, host, BYTES, cudaMemcpyHostToDevice));
	CHECK(cudaDeviceSynchronize());
	return PASS;
}

/* ---- cases: ordering ---- */

/* cudaMemcpy is issued on the legacy stream behind the kernel, so it must copy its output. */
static enum result case_sync_copy_orders_kernel(void)
{
	int *d, host[N];
	TRY(old_buffer(&d));
	CHECK(fill(d, N, 100, 0));
	CHECK(cudaMemcpy(host, d, BYTES, cudaMemcpyDeviceToHost));
	EXPECT_RAMP("cudaMemcpy right after the kernel", host, N, 100);
	CHECK(cudaFree(d));
	return PASS;
}

/* The bug class the emulator exists to expose: an async copy into pinned memory returns at
 * once, so reading the buffer before synchronising sees what was there before. */
static enum result case_missing_sync_is_stale(void)
{
	int *d, *pin, seen[N];
	cudaStream_t s;
	TRY(old_buffer(&d));
	CHECK(cudaMallocHost((void **)&pin, BYTES));
	CHECK(cudaStreamCreate(&s));
	set_all(pin, N, OLD - 1); /* differs from d, so even a copy run before the kernel shows */
	double t0 = now_ms();
	CHECK(fill(d, N, 200, s));
	CHECK(cudaMemcpyAsync(pin, d, BYTES, cudaMemcpyDeviceToHost, s));
	snapshot(seen, pin, N);
	double elapsed = now_ms() - t0;
	if (!all_equal(seen, N, OLD - 1))
		DONE_TOO_EARLY(elapsed, "the pinned buffer had changed before cudaStreamSynchronize");
	CHECK(cudaStreamSynchronize(s));
	EXPECT_RAMP("pinned buffer after cudaStreamSynchronize", pin, N, 200);
	CHECK(cudaStreamDestroy(s));
	CHECK(cudaFreeHost(pin));
	CHECK(cudaFree(d));
	return PASS;
}

/* Pageable memory is staged, so cudaMemcpyAsync into it returns only once the copy is done. */
static enum result case_pageable_async_blocks(void)
{
	int *d, *host = malloc(BYTES);
	cudaStream_t s;
	EXPECT(host, "malloc failed");
	TRY(old_buffer(&d));
	CHECK(cudaStreamCreate(&s));
	set_all(host, N, OLD - 1);
	double t0 = now_ms();
	CHECK(fill(d, N, 300, s));
	CHECK(cudaMemcpyAsync(host, d, BYTES, cudaMemcpyDeviceToHost, s));
	double took = now_ms() - t0;
	EXPECT_RAMP("pageable buffer right after cudaMemcpyAsync", host, N, 300);
	EXPECT(took >= delay_ms() - 0.5, "cudaMemcpyAsync returned %.1f ms after the launch, before "
	       "the %.0f ms kernel ahead of it could have finished", took, delay_ms());
	CHECK(cudaStreamDestroy(s));
	CHECK(cudaFree(d));
	free(host);
	return PASS;
}

/* Non-blocking streams share no implicit order, so only the event wait makes s2 read what
 * s1's kernel wrote. */
static enum result case_event_orders_streams(void)
{
	int *a, *pin;
	cudaStream_t s1, s2;
	cudaEvent_t e;
	TRY(old_buffer(&a));
	CHECK(cudaMallocHost((void **)&pin, BYTES));
	set_all(pin, N, OLD - 1);
	CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
	CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
	CHECK(cudaEventCreate(&e));
	CHECK(fill(a, N, 400, s1));
	CHECK(cudaEventRecord(e, s1));
	CHECK(cudaStreamWaitEvent(s2, e, 0));
	/* A copy, not a kernel: a kernel on s2 would sleep the delay too and could then read
	 * `a` after s1's kernel by luck rather than by the event. */
	CHECK(cudaMemcpyAsync(pin, a, BYTES, cudaMemcpyDeviceToHost, s2));
	CHECK(cudaStreamSynchronize(s2)); /* s2 only: s1 is left to the event */
	EXPECT_RAMP("s2's copy of what s1 wrote", pin, N, 400);
	CHECK(cudaStreamSynchronize(s1));
	CHECK(cudaEventDestroy(e));
	CHECK(cudaStreamDestroy(s1));
	CHECK(cudaStreamDestroy(s2));
	CHECK(cudaFreeHost(pin));
	CHECK(cudaFree(a));
	return PASS;
}

/* Work on the legacy stream does not wait for a cudaStreamNonBlocking stream. */
static enum result case_nonblocking_does_not_order_with_legacy(void)
{
	int *a, *b, host[N];
	cudaStream_t s;
	TRY(old_buffer(&a));
	TRY(old_buffer(&b));
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	double t0 = now_ms();
	CHECK(fill(a, N, 500, s));
	CHECK(cudaMemsetAsync(b, 0, BYTES, 0));
	CHECK(cudaStreamSynchronize(0));
	CHECK(cudaStreamQuery(0));
	cudaError_t q = cudaStreamQuery(s);
	double elapsed = now_ms() - t0;
	if (q == cudaSuccess)
		DONE_TOO_EARLY(elapsed, "the non-blocking stream was idle once the legacy stream was");
	EXPECT(q == cudaErrorNotReady, "cudaStreamQuery(s) returned %s, want cudaErrorNotReady",
	       cudaGetErrorName(q));
	CHECK(cudaMemcpy(host, b, BYTES, cudaMemcpyDeviceToHost));
	EXPECT(all_equal(host, N, 0), "the legacy-stream memset did not take effect");
	CHECK(cudaStreamSynchronize(s));
	CHECK(cudaMemcpy(host, a, BYTES, cudaMemcpyDeviceToHost));
	EXPECT_RAMP("the non-blocking stream's kernel output", host, N, 500);
	CHECK(cudaStreamDestroy(s));
	return PASS;
}

/* A blocking created stream's earlier work is ordered before later legacy-stream work. */
static enum result case_legacy_orders_blocking(void)
{
	int *d, host[N];
	cudaStream_t s;
	TRY(old_buffer(&d));
	CHECK(cudaStreamCreate(&s));
	CHECK(fill(d, N, 600, s));
	CHECK(cudaMemcpy(host, d, BYTES, cudaMemcpyDeviceToHost));
	EXPECT_RAMP("legacy-stream cudaMemcpy after the blocking stream's kernel", host, N, 600);
	CHECK(cudaStreamDestroy(s));
	CHECK(cudaFree(d));
	return PASS;
}

/* cudaMemcpy device to device does not synchronise the host, but is still stream-ordered. */
static enum result case_d2d_memcpy_does_not_block(void)
{
	int *a, *b, host[N];
	TRY(old_buffer(&a));
	TRY(old_buffer(&b));
	double t0 = now_ms();
	CHECK(fill(a, N, 700, 0));
	CHECK(cudaMemcpy(b, a, BYTES, cudaMemcpyDeviceToDevice));
	cudaError_t q = cudaStreamQuery(0);
	double elapsed = now_ms() - t0;
	if (q == cudaSuccess)
		DONE_TOO_EARLY(elapsed, "cudaMemcpy device to device returned with the stream idle");
	EXPECT(q == cudaErrorNotReady, "cudaStreamQuery(0) returned %s, want cudaErrorNotReady",
	       cudaGetErrorName(q));
	CHECK(cudaMemcpy(host, b, BYTES, cudaMemcpyDeviceToHost));
	EXPECT_RAMP("device-to-device copy of the kernel's output", host, N, 700);
	CHECK(cudaFree(a));
	CHECK(cudaFree(b));
	return PASS;
}

/* cudaMemcpyDefault takes the direction, and with it the blocking rule, from where the
 * pointers live; explicit kinds are checked against it. */
static enum result case_memcpy_default_direction(void)
{
	int *x, *a, *b, src[N], host[N], v;
	TRY(old_buffer(&x));
	TRY(old_buffer(&a));
	TRY(old_buffer(&b));
	for (int i = 0; i < N; i++)
		src[i] = 800 + i;

	/* Pageable host to device: synchronous, so the delayed kernel queued first is done. */
	CHECK(fill(x, N, 1, 0));
	CHECK(cudaMemcpy(a, src, BYTES, cudaMemcpyDefault));
	cudaError_t q = cudaStreamQuery(0);
	EXPECT(q == cudaSuccess, "cudaStreamQuery(0) after a host-to-device cudaMemcpyDefault "
	       "returned %s, want cudaSuccess (the copy must wait)", cudaGetErrorName(q));

	/* Device to device: returns at once. */
	double t0 = now_ms();
	CHECK(fill(x, N, 900, 0));
	CHECK(cudaMemcpy(b, x, BYTES, cudaMemcpyDefault));
	q = cudaStreamQuery(0);
	double elapsed = now_ms() - t0;
	if (q == cudaSuccess)
		DONE_TOO_EARLY(elapsed, "cudaMemcpyDefault device to device returned with the stream idle");
	EXPECT(q == cudaErrorNotReady, "cudaStreamQuery(0) returned %s, want cudaErrorNotReady",
	       cudaGetErrorName(q));

	/* Device to host: the data of both copies above. */
	CHECK(cudaMemcpy(host, b, BYTES, cudaMemcpyDefault));
	EXPECT_RAMP("cudaMemcpyDefault device to device", host, N, 900);
	CHECK(cudaMemcpy(host, a, BYTES, cudaMemcpyDefault));
	EXPECT_RAMP("cudaMemcpyDefault host to device", host, N, 800);

	EXPECT_ERR(cudaMemcpy(host, a, BYTES, (enum cudaMemcpyKind)7),
		   cudaErrorInvalidMemcpyDirection);
	/* Without pageable memory access the device cannot reach plain malloc memory. */
	int *plain = malloc(BYTES);
	EXPECT(plain, "malloc failed");
	EXPECT_ERR(cudaMemcpy(plain, src, BYTES, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
	EXPECT_ERR(cudaMemset(plain, 0, BYTES), cudaErrorInvalidValue);
	CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrPageableMemoryAccess, 0));
	EXPECT(v == 0, "cudaDevAttrPageableMemoryAccess is %d by default, want 0", v);
	free(plain);
	CHECK(cudaFree(x));
	CHECK(cudaFree(a));
	CHECK(cudaFree(b));
	return PASS;
}

/* CUDA_EMU_PAGEABLE_ACCESS=1 models HMM/ATS: the device side may be plain malloc memory. */
static enum result case_pageable_access_allows_malloc(void)
{
	int src[N], v;
	int *plain = malloc(BYTES);
	EXPECT(plain, "malloc failed");
	for (int i = 0; i < N; i++)
		src[i] = 850 + i;
	set_all(plain, N, OLD);
	CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrPageableMemoryAccess, 0));
	EXPECT(v == 1, "cudaDevAttrPageableMemoryAccess is %d, want 1", v);
	CHECK(cudaMemcpy(plain, src, BYTES, cudaMemcpyHostToDevice));
	EXPECT_RAMP("malloc memory after cudaMemcpyHostToDevice", plain, N, 850);
	CHECK(cudaMemset(plain, 0, BYTES));
	CHECK(cudaDeviceSynchronize());
	EXPECT(all_equal(plain, N, 0), "cudaMemset on malloc memory did not take effect");
	free(plain);
	return PASS;
}

/* ---- cases: memory ---- */

/* Copies are checked against the allocation's size, not the page-rounded mapping behind it. */
static enum result case_out_of_bounds_copy(void)
{
	enum { SIZE = 1000 };
	char *d, host[2 * SIZE] = {0};
	CHECK(cudaMalloc((void **)&d, SIZE));
	CHECK(cudaMemcpy(d + 500, host, 500, cudaMemcpyHostToDevice)); /* ends exactly at the end */
	EXPECT_ERR(cudaMemcpy(d + 500, host, 501, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
	EXPECT_ERR(cudaMemcpy(host, d, SIZE + 1, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
	EXPECT_ERR(cudaMemcpy(host, d + 8, SIZE, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
	EXPECT_ERR(cudaMemcpyAsync(host, d + 1, SIZE, cudaMemcpyDefault, 0), cudaErrorInvalidValue);
	EXPECT_ERR(cudaMemset(d + 1, 0, SIZE), cudaErrorInvalidValue);
	CHECK(cudaFree(d));
	return PASS;
}

/* CUDA_EMU_MEM_LIMIT=1M: failures are reported once through cudaGetLastError and are not
 * sticky, and freeing gives the budget back. */
static enum result case_alloc_failure(void)
{
	void *p = NULL, *a = NULL, *b = NULL, *h = NULL;
	size_t free_b, total;
	EXPECT_ERR(cudaGetLastError(), cudaSuccess);
	EXPECT_ERR(cudaMalloc(&p, 2 << 20), cudaErrorMemoryAllocation);
	EXPECT_ERR(cudaGetLastError(), cudaErrorMemoryAllocation);
	EXPECT_ERR(cudaGetLastError(), cudaSuccess);
	CHECK(cudaMalloc(&a, 512 << 10));
	EXPECT_ERR(cudaMalloc(&b, 768 << 10), cudaErrorMemoryAllocation);
	CHECK(cudaFree(a));
	CHECK(cudaMalloc(&b, 768 << 10));
	/* The limit covers pinned host memory too. */
	EXPECT_ERR(cudaMallocHost(&h, 512 << 10), cudaErrorMemoryAllocation);
	CHECK(cudaMemGetInfo(&free_b, &total));
	EXPECT(total == 1 << 20, "cudaMemGetInfo total %zu, want %d", total, 1 << 20);
	EXPECT(free_b == 256 << 10, "cudaMemGetInfo free %zu with 768 KiB live, want %d", free_b,
	       256 << 10);
	CHECK(cudaFree(b));
	return PASS;
}

/* CUDA_EMU_DEVICE_COUNT=0: the runtime reports no device and refuses work. */
static enum result case_no_device(void)
{
	int count = -1;
	void *p = NULL;
	cudaStream_t s;
	EXPECT_ERR(cudaGetDeviceCount(&count), cudaErrorNoDevice);
	EXPECT(count == 0, "cudaGetDeviceCount set %d, want 0", count);
	EXPECT_ERR(cudaMalloc(&p, 16), cudaErrorNoDevice);
	EXPECT_ERR(cudaStreamCreate(&s), cudaErrorNoDevice);
	EXPECT_ERR(fill(NULL, 0, 0, 0), cudaErrorNoDevice);
	EXPECT_ERR(cudaGetLastError(), cudaErrorNoDevice);
	return PASS;
}

/* The runtime copies argument values at launch; the kernel runs only after the delay. */
static enum result case_kernel_args_copied_at_launch(void)
{
	int *d, host[N];
	TRY(old_buffer(&d));
	int n = N, base = 1200;
	void *args[] = {&d, &n, &base};
	CHECK(cudaLaunchKernel((const void *)k_fill, GRID, BLOCK, args, 0, 0));
	base = -5000;
	n = 1;
	CHECK(cudaMemcpy(host, d, BYTES, cudaMemcpyDeviceToHost));
	EXPECT_RAMP("kernel output (base and n were changed after the launch)", host, N, 1200);
	CHECK(cudaFree(d));
	return PASS;
}

/* Launch validation: unknown functions and impossible configurations never run. */
static enum result case_unregistered_kernel(void)
{
	int *d, host[N];
	TRY(old_buffer(&d));
	int n = N, base = 1300;
	void *args[] = {&d, &n, &base};
	EXPECT_ERR(cudaLaunchKernel((const void *)k_unregistered, ONE, ONE, args, 0, 0),
		   cudaErrorInvalidDeviceFunction);
	dim3 too_big = {2048, 1, 1}, empty = {0, 1, 1}, most = {1024, 1, 1};
	EXPECT_ERR(cudaLaunchKernel((const void *)k_fill, ONE, too_big, args, 0, 0),
		   cudaErrorInvalidConfiguration);
	EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidConfiguration);
	EXPECT_ERR(cudaLaunchKernel((const void *)k_fill, empty, ONE, args, 0, 0),
		   cudaErrorInvalidConfiguration);
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaMemcpy(host, d, BYTES, cudaMemcpyDeviceToHost));
	EXPECT(all_equal(host, N, OLD), "a rejected launch wrote the buffer");
	CHECK(cudaLaunchKernel((const void *)k_fill, ONE, most, args, 0, 0)); /* the limit itself */
	CHECK(cudaMemcpy(host, d, BYTES, cudaMemcpyDeviceToHost));
	EXPECT_RAMP("a launch with 1024 threads per block", host, N, 1300);
	CHECK(cudaFree(d));
	return PASS;
}

/* Freed memory is poisoned before reuse, so a use after free cannot read the old values. */
static enum result case_use_after_free_reads_poison(void)
{
	unsigned char *d, host[BYTES];
	CHECK(cudaMalloc((void **)&d, BYTES));
	CHECK(cudaMemset(d, 0x11, BYTES));
	CHECK(cudaFree(d));
	CHECK(cudaMalloc((void **)&d, BYTES));
	CHECK(cudaMemcpy(host, d, BYTES, cudaMemcpyDeviceToHost));
	for (size_t i = 0; i < BYTES; i++)
		EXPECT(host[i] == 0xA5, "byte %zu of a reused allocation is 0x%02x, want 0xa5 (poison)",
		       i, host[i]);
	CHECK(cudaFree(d));
	return PASS;
}

/* cudaFree waits for the whole device, non-blocking streams included. */
static enum result case_free_waits_for_device(void)
{
	int *x, *y, *z, host[N];
	cudaStream_t nb;
	TRY(old_buffer(&x));
	TRY(old_buffer(&z));
	CHECK(cudaMalloc((void **)&y, BYTES));
	CHECK(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking));
	/* nb gets two kernels, so it is still busy when the legacy stream is done: waiting for
	 * the legacy stream alone would show. */
	double t0 = now_ms();
	CHECK(fill(z, N, 0, nb));
	CHECK(fill(z, N, 1600, nb));
	CHECK(fill(x, N, 1500, 0));
	CHECK(cudaFree(y));
	double took = now_ms() - t0;
	EXPECT_ERR(cudaStreamQuery(0), cudaSuccess);
	EXPECT_ERR(cudaStreamQuery(nb), cudaSuccess);
	EXPECT(took >= 2 * delay_ms() - 0.5, "cudaFree returned %.1f ms after the launches, before "
	       "two %.0f ms kernels in a row could have finished", took, delay_ms());
	/* The legacy-stream copy does not wait for nb, so z's data shows cudaFree waited. */
	CHECK(cudaMemcpy(host, z, BYTES, cudaMemcpyDeviceToHost));
	EXPECT_RAMP("the non-blocking stream's output after cudaFree", host, N, 1600);
	CHECK(cudaMemcpy(host, x, BYTES, cudaMemcpyDeviceToHost));
	EXPECT_RAMP("the legacy stream's output after cudaFree", host, N, 1500);
	CHECK(cudaStreamDestroy(nb));
	return PASS;
}

/* Events time the stream; untimed events refuse; an unrecorded event counts as complete. */
static enum result case_event_elapsed_time(void)
{
	int *d;
	cudaStream_t s;
	cudaEvent_t start, stop, untimed, never;
	float ms = 0;
	TRY(old_buffer(&d));
	CHECK(cudaStreamCreate(&s));
	CHECK(cudaEventCreate(&start));
	CHECK(cudaEventCreate(&stop));
	CHECK(cudaEventCreate(&never));
	CHECK(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming));
	EXPECT_ERR(cudaEventQuery(never), cudaSuccess);
	CHECK(cudaEventRecord(start, s));
	CHECK(fill(d, N, 1700, s));
	CHECK(cudaEventRecord(stop, s));
	CHECK(cudaEventRecord(untimed, s));
	CHECK(cudaEventSynchronize(stop));
	CHECK(cudaEventElapsedTime(&ms, start, stop));
	EXPECT(ms >= delay_ms() - 1, "elapsed %.3f ms around a kernel that sleeps %.0f ms", ms,
	       delay_ms());
	CHECK(cudaEventSynchronize(untimed));
	CHECK(cudaEventQuery(untimed));
	EXPECT_ERR(cudaEventElapsedTime(&ms, start, untimed), cudaErrorInvalidResourceHandle);
	CHECK(cudaEventDestroy(start));
	CHECK(cudaEventDestroy(stop));
	CHECK(cudaEventDestroy(never));
	CHECK(cudaEventDestroy(untimed));
	CHECK(cudaStreamDestroy(s));
	CHECK(cudaFree(d));
	return PASS;
}

/* expect_spin runs k_spin for us µs on managed memory and checks that it ran and that its
 * launch and the wait for it took at least least_ms, as knob says it must. */
static enum result expect_spin(int line, int us, double least_ms, const char *knob)
{
	int *m;
	CHECK(cudaMallocManaged((void **)&m, BYTES, cudaMemAttachGlobal));
	m[0] = 0;
	void *args[] = {&m, &us};
	double t0 = now_ms();
	CHECK(cudaLaunchKernel((const void *)k_spin, ONE, ONE, args, 0, 0));
	CHECK(cudaDeviceSynchronize());
	double took = now_ms() - t0;
	EXPECT(m[0] == us, "the kernel did not run (m[0] = %d)", m[0]);
	CHECK(cudaFree(m));
	if (took < least_ms)
		return report(FAIL, line, "a %.0f ms kernel on managed memory took %.1f ms with %s, want >= %.0f",
			      us / 1e3, took, knob, least_ms);
	return PASS;
}

/* CUDA_EMU_MANAGED_SLOWDOWN=4: a 10 ms kernel touching managed memory takes about 40 ms. */
static enum result case_managed_slowdown(void)
{
	return expect_spin(__LINE__, 10000, 35, "CUDA_EMU_MANAGED_SLOWDOWN=4");
}

/* CUDA_EMU_KERNEL_MIN_US=30000: a kernel whose loop takes 1 ms still takes 30, the sleep after
 * its loop and not before it (its output is there when the wait ends). */
static enum result case_kernel_min(void)
{
	return expect_spin(__LINE__, 1000, 29, "CUDA_EMU_KERNEL_MIN_US=30000");
}

static enum result expect_attr(int line, const void *p, enum cudaMemoryType type,
			       const void *host_ptr)
{
	struct cudaPointerAttributes a;
	cudaError_t err = cudaPointerGetAttributes(&a, p);
	if (err != cudaSuccess)
		return report(FAIL, line, "cudaPointerGetAttributes returned %s", cudaGetErrorName(err));
	if (a.type != type)
		return report(FAIL, line, "type %d, want %d", a.type, type);
	if (a.hostPointer != host_ptr)
		return report(FAIL, line, "hostPointer %p, want %p", a.hostPointer, host_ptr);
	return PASS;
}
#define EXPECT_ATTR(p, type, host_ptr) TRY(expect_attr(__LINE__, p, type, host_ptr))

static enum result case_pointer_attributes(void)
{
	void *dev, *man, *pin, *dp = NULL;
	char *plain = malloc(8192);
	EXPECT(plain, "malloc failed");
	CHECK(cudaMalloc(&dev, 4096));
	CHECK(cudaMallocManaged(&man, 4096, cudaMemAttachGlobal));
	CHECK(cudaMallocHost(&pin, 4096));
	EXPECT_ATTR(dev, cudaMemoryTypeDevice, NULL);
	EXPECT_ATTR((char *)dev + 100, cudaMemoryTypeDevice, NULL); /* interior pointers too */
	EXPECT_ATTR(man, cudaMemoryTypeManaged, man);
	EXPECT_ATTR(pin, cudaMemoryTypeHost, pin);
	EXPECT_ATTR(plain, cudaMemoryTypeUnregistered, NULL);

	CHECK(cudaHostRegister(plain, 8192, cudaHostRegisterDefault));
	EXPECT_ATTR(plain, cudaMemoryTypeHost, plain);
	CHECK(cudaHostGetDevicePointer(&dp, plain, 0));
	EXPECT(dp == plain, "cudaHostGetDevicePointer gave %p for %p; one address under UVA", dp,
	       (void *)plain);
	EXPECT_ERR(cudaHostRegister(plain, 8192, cudaHostRegisterDefault),
		   cudaErrorHostMemoryAlreadyRegistered);
	EXPECT_ERR(cudaHostRegister(plain + 4096, 16, cudaHostRegisterDefault),
		   cudaErrorHostMemoryAlreadyRegistered);
	CHECK(cudaHostUnregister(plain));
	EXPECT_ERR(cudaHostUnregister(plain), cudaErrorHostMemoryNotRegistered);
	EXPECT_ATTR(plain, cudaMemoryTypeUnregistered, NULL);
	EXPECT_ERR(cudaHostGetDevicePointer(&dp, plain, 0), cudaErrorInvalidValue);

	CHECK(cudaFree(dev));
	CHECK(cudaFree(man));
	CHECK(cudaFreeHost(pin));
	free(plain);
	return PASS;
}

/* Rows land at the destination pitch and the bytes between rows are left alone. */
static enum result case_memcpy2d(void)
{
	enum { W = 10, H = 5, SP = 16, DP = 24, BP = 13 };
	unsigned char src[SP * (H + 1)], img[DP * H], back[BP * H], *d;
	for (int i = 0; i < (int)sizeof src; i++)
		src[i] = (unsigned char)(i + 1);
	CHECK(cudaMalloc((void **)&d, DP * H));
	CHECK(cudaMemset(d, 0xEE, DP * H));
	CHECK(cudaMemcpy2D(d, DP, src, SP, W, H, cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(img, d, DP * H, cudaMemcpyDeviceToHost));
	for (int r = 0; r < H; r++)
		for (int c = 0; c < DP; c++) {
			int want = c < W ? src[r * SP + c] : 0xEE;
			EXPECT(img[r * DP + c] == want, "device row %d byte %d is 0x%02x, want 0x%02x",
			       r, c, img[r * DP + c], want);
		}
	memset(back, 0x5A, sizeof back);
	CHECK(cudaMemcpy2D(back, BP, d, DP, W, H, cudaMemcpyDeviceToHost));
	for (int r = 0; r < H; r++)
		for (int c = 0; c < BP; c++) {
			int want = c < W ? src[r * SP + c] : 0x5A;
			EXPECT(back[r * BP + c] == want, "host row %d byte %d is 0x%02x, want 0x%02x", r,
			       c, back[r * BP + c], want);
		}
	EXPECT_ERR(cudaMemcpy2D(d, 8, src, SP, W, H, cudaMemcpyHostToDevice),
		   cudaErrorInvalidPitchValue);
	EXPECT_ERR(cudaMemcpy2D(d, DP, src, 8, W, H, cudaMemcpyHostToDevice),
		   cudaErrorInvalidPitchValue);
	/* One row more than the allocation holds. */
	EXPECT_ERR(cudaMemcpy2D(d, DP, src, SP, W, H + 1, cudaMemcpyHostToDevice),
		   cudaErrorInvalidValue);
	CHECK(cudaFree(d));
	return PASS;
}

/* ---- cases: device ---- */

static enum result case_device_knobs(void)
{
	struct cudaDeviceProp p;
	int count = 0, major = 0, minor = 0, integrated = -1, driver = 0, runtime = 0;
	CHECK(cudaGetDeviceCount(&count));
	EXPECT(count == 1, "cudaGetDeviceCount set %d, want 1", count);
	CHECK(cudaGetDeviceProperties(&p, 0));
	EXPECT(strcmp(p.name, "Orin-test") == 0, "name \"%s\", want \"Orin-test\"", p.name);
	EXPECT(p.major == 7 && p.minor == 2, "compute capability %d.%d, want 7.2", p.major,
	       p.minor);
	EXPECT(p.integrated == 0, "integrated %d, want 0", p.integrated);
	CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
	CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0));
	CHECK(cudaDeviceGetAttribute(&integrated, cudaDevAttrIntegrated, 0));
	EXPECT(major == 7 && minor == 2 && integrated == 0,
	       "attributes say %d.%d integrated %d, want 7.2 integrated 0", major, minor, integrated);
	CHECK(cudaDriverGetVersion(&driver));
	EXPECT(driver == 12040, "cudaDriverGetVersion %d, want 12040", driver);
	CHECK(cudaRuntimeGetVersion(&runtime));
	EXPECT(runtime == 12080, "cudaRuntimeGetVersion %d, want 12080", runtime);
	EXPECT_ERR(cudaGetDeviceProperties(&p, 1), cudaErrorInvalidDevice);
	return PASS;
}

/* ---- cases: threads and stream lifetime ---- */

#define THREADS 4
static pthread_barrier_t start_line;

/* Each thread's per-thread default stream orders its own copy, kernel and copy back. */
static enum result per_thread_body(int tid)
{
	int *d, *pin, src[N];
	for (int i = 0; i < N; i++)
		src[i] = tid * 10000 + i;
	CHECK(cudaMalloc((void **)&d, BYTES));
	CHECK(cudaMallocHost((void **)&pin, BYTES));
	set_all(pin, N, OLD);
	pthread_barrier_wait(&start_line); /* all threads' work in flight at once */
	CHECK(cudaMemcpyAsync(d, src, BYTES, cudaMemcpyHostToDevice, cudaStreamPerThread));
	CHECK(add(d, N, 7, cudaStreamPerThread));
	CHECK(cudaMemcpyAsync(pin, d, BYTES, cudaMemcpyDeviceToHost, cudaStreamPerThread));
	CHECK(cudaStreamSynchronize(cudaStreamPerThread));
	EXPECT_RAMP("this thread's data", pin, N, tid * 10000 + 7);
	CHECK(cudaFreeHost(pin));
	CHECK(cudaFree(d));
	return PASS;
}

static void *per_thread_main(void *arg)
{
	return (void *)(intptr_t)per_thread_body((int)(intptr_t)arg);
}

static enum result case_per_thread_stream_and_threads(void)
{
	pthread_t t[THREADS];
	enum result worst = PASS;
	EXPECT(pthread_barrier_init(&start_line, NULL, THREADS) == 0, "pthread_barrier_init failed");
	for (int i = 0; i < THREADS; i++)
		EXPECT(pthread_create(&t[i], NULL, per_thread_main, (void *)(intptr_t)i) == 0,
		       "pthread_create failed");
	for (int i = 0; i < THREADS; i++) {
		void *r;
		pthread_join(t[i], &r);
		if ((enum result)(intptr_t)r != PASS)
			worst = FAIL;
	}
	pthread_barrier_destroy(&start_line);
	return worst;
}

/* Destroying a stream lets its queued work finish; the handle is dead afterwards (the
 * emulator promises cudaErrorInvalidResourceHandle where real CUDA leaves it undefined). */
static enum result case_stream_destroy_drains(void)
{
	int *d, host[N];
	cudaStream_t s;
	TRY(old_buffer(&d));
	/* Non-blocking, so only the device-wide sync below can be what waits for the kernel. */
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	double t0 = now_ms();
	CHECK(fill(d, N, 2200, s));
	CHECK(cudaStreamDestroy(s));
	double took = now_ms() - t0;
	/* Like the real runtime, destroy returns at once; the queued kernel still runs, and a
	 * device-wide sync still waits for it. A destroy that waits always lands here. */
	if (took >= delay_ms())
		return report(RETRY, __LINE__,
			      "cudaStreamDestroy returned %.1f ms after the launch, not before the "
			      "%.0f ms kernel ended: it may have waited",
			      took, delay_ms());
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaMemcpy(host, d, BYTES, cudaMemcpyDeviceToHost));
	EXPECT_RAMP("kernel output after cudaStreamDestroy and cudaDeviceSynchronize", host, N, 2200);
	EXPECT_ERR(cudaStreamQuery(s), cudaErrorInvalidResourceHandle);
	EXPECT_ERR(cudaStreamSynchronize(s), cudaErrorInvalidResourceHandle);
	EXPECT_ERR(fill(d, N, 0, s), cudaErrorInvalidResourceHandle);
	EXPECT_ERR(cudaMemcpyAsync(host, d, BYTES, cudaMemcpyDeviceToHost, s),
		   cudaErrorInvalidResourceHandle);
	EXPECT_ERR(cudaStreamDestroy(s), cudaErrorInvalidResourceHandle);
	CHECK(cudaFree(d));
	return PASS;
}

/* cudaMemsetAsync never blocks the host, even on pinned memory, where plain cudaMemset does. */
static enum result case_memset_async_pinned_does_not_block(void)
{
	int *d, *pinned;
	TRY(old_buffer(&d));
	CHECK(cudaMallocHost((void **)&pinned, BYTES));
	double t0 = now_ms();
	CHECK(fill(d, N, 2300, 0));
	CHECK(cudaMemsetAsync(pinned, 0, BYTES, 0));
	double took = now_ms() - t0;
	if (took >= delay_ms())
		return report(RETRY, __LINE__,
			      "cudaMemsetAsync on pinned memory returned %.1f ms after the launch, "
			      "not before the %.0f ms kernel ended: it may have waited",
			      took, delay_ms());
	cudaError_t q = cudaStreamQuery(0);
	EXPECT(q == cudaErrorNotReady, "cudaStreamQuery(0) returned %s right after the memset, "
	       "want cudaErrorNotReady", cudaGetErrorName(q));
	CHECK(cudaMemset(pinned, 1, BYTES)); /* the synchronous form waits for the stream */
	q = cudaStreamQuery(0);
	EXPECT(q == cudaSuccess, "cudaStreamQuery(0) returned %s after cudaMemset on pinned "
	       "memory, want cudaSuccess", cudaGetErrorName(q));
	EXPECT(pinned[0] == 0x01010101 && pinned[N - 1] == 0x01010101,
	       "pinned memory holds %#x..%#x after cudaMemset(1)", pinned[0], pinned[N - 1]);
	CHECK(cudaFreeHost(pinned));
	CHECK(cudaFree(d));
	return PASS;
}

/* ---- cases: pageable copies ---- */

#define GUARD 0xEE /* bytes just past a copy must keep it */

/* A byte pattern with no period that divides the staging chunk, so a chunk landing at the
 * wrong offset shows. */
static unsigned char pattern(size_t i, unsigned seed)
{
	return (unsigned char)(((uint32_t)i * 2654435761u + seed * 40503u) >> 24);
}

static void fill_pattern(unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = pattern(i, seed);
}

/* p[0, n) holds the pattern and p[n] is still GUARD. */
static enum result expect_pattern(int line, const char *what, size_t n, const unsigned char *p,
				  unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != pattern(i, seed))
			return report(FAIL, line, "%s of %zu bytes: byte %zu is 0x%02x, want 0x%02x",
				      what, n, i, p[i], pattern(i, seed));
	if (p[n] != GUARD)
		return report(FAIL, line, "%s of %zu bytes wrote past its end (0x%02x)", what, n, p[n]);
	return PASS;
}
#define EXPECT_PATTERN(what, n, p, seed) TRY(expect_pattern(__LINE__, what, n, p, seed))

static cudaError_t copy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind,
			bool async, cudaStream_t s)
{
	return async ? cudaMemcpyAsync(dst, src, n, kind, s) : cudaMemcpy(dst, src, n, kind);
}

/* Staged (pageable) and direct (pinned) copies give the same bytes, in both directions,
 * synchronous and async, for sizes around and between multiples of the staging chunk. */
static enum result case_pageable_copies_match_pinned(void)
{
	struct emu_drv_copy_stats st;
	emu_drv_copy_stats(&st);
	size_t chunk = st.chunk_bytes, max = 2 * chunk + 4099;
	const size_t sizes[] = {1, 4097, chunk - 1, chunk, chunk + 1, max};
	unsigned char *pageable = malloc(max + 1), *pinned, *from_pageable, *from_pinned;
	cudaStream_t s;
	EXPECT(pageable, "malloc failed");
	CHECK(cudaMallocHost((void **)&pinned, max + 1));
	CHECK(cudaMalloc((void **)&from_pageable, max + 1));
	CHECK(cudaMalloc((void **)&from_pinned, max + 1));
	CHECK(cudaStreamCreate(&s));
	unsigned seed = 1;
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
		for (int async = 0; async < 2; async++, seed += 2) {
			size_t n = sizes[i];
			fill_pattern(pageable, n, seed);
			fill_pattern(pinned, n, seed);
			CHECK(cudaMemset(from_pageable, GUARD, max + 1));
			CHECK(cudaMemset(from_pinned, GUARD, max + 1));
			CHECK(copy(from_pageable, pageable, n, cudaMemcpyHostToDevice, async, s));
			CHECK(copy(from_pinned, pinned, n, cudaMemcpyHostToDevice, async, s));
			CHECK(cudaDeviceSynchronize());
			EXPECT_PATTERN(async ? "async H2D from pageable" : "H2D from pageable", n,
				       from_pageable, seed);
			EXPECT_PATTERN(async ? "async H2D from pinned" : "H2D from pinned", n,
				       from_pinned, seed);

			fill_pattern(from_pageable, n, seed + 1); /* host code may write device memory here */
			memset(pageable, GUARD, max + 1);
			memset(pinned, GUARD, max + 1);
			CHECK(copy(pageable, from_pageable, n, cudaMemcpyDeviceToHost, async, s));
			CHECK(copy(pinned, from_pageable, n, cudaMemcpyDeviceToHost, async, s));
			CHECK(cudaDeviceSynchronize());
			EXPECT_PATTERN(async ? "async D2H to pageable" : "D2H to pageable", n, pageable,
				       seed + 1);
			EXPECT_PATTERN(async ? "async D2H to pinned" : "D2H to pinned", n, pinned,
				       seed + 1);
		}
	CHECK(cudaStreamDestroy(s));
	CHECK(cudaFree(from_pinned));
	CHECK(cudaFree(from_pageable));
	CHECK(cudaFreeHost(pinned));
	free(pageable);
	return PASS;
}

/* Exactly the copies with a pageable host side go through the staging buffer, one chunk at a
 * time, whether the runtime or the driver API issued them; a pinned, registered or managed
 * host side, device to device and host to host are copied directly. Checked through the
 * emulator's counter, not the clock. */
static enum result expect_staged(int line, const char *what, struct emu_drv_copy_stats before,
				 bool staged, size_t n)
{
	struct emu_drv_copy_stats after;
	emu_drv_copy_stats(&after);
	unsigned long long copies = after.staged_copies - before.staged_copies,
			   chunks = after.staged_chunks - before.staged_chunks,
			   bytes = after.staged_bytes - before.staged_bytes,
			   want_chunks = staged ? (n + after.chunk_bytes - 1) / after.chunk_bytes : 0;
	if (copies != (staged ? 1u : 0u) || chunks != want_chunks || bytes != (staged ? n : 0))
		return report(FAIL, line, "%s: %llu staged copies, %llu chunks, %llu bytes; want %d, "
			      "%llu, %zu", what, copies, chunks, bytes, staged, want_chunks,
			      staged ? n : 0);
	return PASS;
}

static enum result case_pageable_copies_are_staged(void)
{
	struct emu_drv_copy_stats st;
	emu_drv_copy_stats(&st);
	size_t n = 2 * st.chunk_bytes + 3; /* three chunks, the last one of 3 bytes */
	unsigned char *pageable = malloc(n), *other = malloc(n), *registered = malloc(n);
	unsigned char *pinned, *dev, *dev2, *managed;
	cudaStream_t s;
	EXPECT(pageable && other && registered, "malloc failed");
	memset(pageable, 1, n);
	CHECK(cudaMallocHost((void **)&pinned, n));
	CHECK(cudaMalloc((void **)&dev, n));
	CHECK(cudaMalloc((void **)&dev2, n));
	CHECK(cudaMallocManaged((void **)&managed, n, cudaMemAttachGlobal));
	CHECK(cudaHostRegister(registered, n, cudaHostRegisterDefault));
	CHECK(cudaStreamCreate(&s));
	const struct {
		const char *what;
		void *dst;
		const void *src;
		enum cudaMemcpyKind kind;
		bool async, staged;
	} copies[] = {
		{"H2D from pageable", dev, pageable, cudaMemcpyHostToDevice, false, true},
		{"D2H to pageable", pageable, dev, cudaMemcpyDeviceToHost, false, true},
		{"async H2D from pageable", dev, pageable, cudaMemcpyHostToDevice, true, true},
		{"async D2H to pageable", pageable, dev, cudaMemcpyDeviceToHost, true, true},
		{"cudaMemcpyDefault from pageable", dev, pageable, cudaMemcpyDefault, false, true},
		{"H2D from pinned", dev, pinned, cudaMemcpyHostToDevice, false, false},
		{"async D2H to pinned", pinned, dev, cudaMemcpyDeviceToHost, true, false},
		{"H2D from registered", dev, registered, cudaMemcpyHostToDevice, false, false},
		{"D2H to registered", registered, dev, cudaMemcpyDeviceToHost, false, false},
		{"H2D from managed", dev, managed, cudaMemcpyHostToDevice, false, false},
		{"D2H to managed", managed, dev, cudaMemcpyDeviceToHost, true, false},
		{"device to device", dev2, dev, cudaMemcpyDeviceToDevice, false, false},
		{"host to host, pageable", other, pageable, cudaMemcpyHostToHost, false, false},
	};
	for (size_t i = 0; i < sizeof copies / sizeof copies[0]; i++) {
		emu_drv_copy_stats(&st);
		CHECK(copy(copies[i].dst, copies[i].src, n, copies[i].kind, copies[i].async, s));
		CHECK(cudaDeviceSynchronize());
		TRY(expect_staged(__LINE__, copies[i].what, st, copies[i].staged, n));
	}

	/* The driver API (CuPy's path) reaches the same copy: async from pageable is staged. */
	CUcontext ctx;
	CUdeviceptr d = (CUdeviceptr)(uintptr_t)dev;
	EXPECT(cuInit(0) == CUDA_SUCCESS && cuDevicePrimaryCtxRetain(&ctx, 0) == CUDA_SUCCESS &&
	       cuCtxSetCurrent(ctx) == CUDA_SUCCESS, "the driver did not initialise");
	emu_drv_copy_stats(&st);
	EXPECT(cuMemcpyHtoDAsync_v2(d, pageable, n, (CUstream)s) == CUDA_SUCCESS, "cuMemcpyHtoDAsync failed");
	EXPECT(cuStreamSynchronize((CUstream)s) == CUDA_SUCCESS, "cuStreamSynchronize failed");
	TRY(expect_staged(__LINE__, "cuMemcpyHtoDAsync from pageable", st, true, n));
	emu_drv_copy_stats(&st);
	EXPECT(cuMemcpyDtoHAsync_v2(pageable, d, n, (CUstream)s) == CUDA_SUCCESS, "cuMemcpyDtoHAsync failed");
	EXPECT(cuStreamSynchronize((CUstream)s) == CUDA_SUCCESS, "cuStreamSynchronize failed");
	TRY(expect_staged(__LINE__, "cuMemcpyDtoHAsync to pageable", st, true, n));
	emu_drv_copy_stats(&st);
	EXPECT(cuMemcpyHtoD_v2(d, pinned, n) == CUDA_SUCCESS, "cuMemcpyHtoD failed");
	TRY(expect_staged(__LINE__, "cuMemcpyHtoD from pinned", st, false, n));

	CHECK(cudaStreamDestroy(s));
	CHECK(cudaHostUnregister(registered));
	CHECK(cudaFree(managed));
	CHECK(cudaFree(dev2));
	CHECK(cudaFree(dev));
	CHECK(cudaFreeHost(pinned));
	free(registered);
	free(other);
	free(pageable);
	return PASS;
}

/* ---- the table and the runner ---- */

static const struct test_case {
	const char *name, *env;
	enum result (*fn)(void);
} cases[] = {
	{"sync_copy_orders_kernel", DELAY(30000), case_sync_copy_orders_kernel},
	{"missing_sync_is_stale", DELAY(50000), case_missing_sync_is_stale},
	{"pageable_async_blocks", DELAY(30000), case_pageable_async_blocks},
	{"event_orders_streams", DELAY(30000), case_event_orders_streams},
	{"nonblocking_does_not_order_with_legacy", DELAY(50000),
	 case_nonblocking_does_not_order_with_legacy},
	{"legacy_orders_blocking", DELAY(30000), case_legacy_orders_blocking},
	{"d2d_memcpy_does_not_block", DELAY(50000), case_d2d_memcpy_does_not_block},
	{"memcpy_default_direction", DELAY(50000), case_memcpy_default_direction},
	{"pageable_access_allows_malloc", "CUDA_EMU_PAGEABLE_ACCESS=1",
	 case_pageable_access_allows_malloc},
	{"out_of_bounds_copy", "", case_out_of_bounds_copy},
	{"alloc_failure", "CUDA_EMU_MEM_LIMIT=1M", case_alloc_failure},
	{"no_device", "CUDA_EMU_DEVICE_COUNT=0", case_no_device},
	{"kernel_args_copied_at_launch", DELAY(30000), case_kernel_args_copied_at_launch},
	{"unregistered_kernel", "", case_unregistered_kernel},
	{"use_after_free_reads_poison", "", case_use_after_free_reads_poison},
	{"free_waits_for_device", DELAY(30000), case_free_waits_for_device},
	{"event_elapsed_time", DELAY(20000), case_event_elapsed_time},
	{"managed_slowdown", "CUDA_EMU_MANAGED_SLOWDOWN=4", case_managed_slowdown},
	{"kernel_min", "CUDA_EMU_KERNEL_MIN_US=30000", case_kernel_min},
	{"pointer_attributes", "", case_pointer_attributes},
	{"memcpy2d", "", case_memcpy2d},
	{"device_knobs",
	 "CUDA_EMU_DEVICE_NAME=Orin-test CUDA_EMU_CC=7.2 CUDA_EMU_INTEGRATED=0 "
	 "CUDA_EMU_DRIVER_VERSION=12040",
	 case_device_knobs},
	{"per_thread_stream_and_threads", DELAY(20000), case_per_thread_stream_and_threads},
	{"stream_destroy_drains", DELAY(30000), case_stream_destroy_drains},
	{"memset_async_pinned_does_not_block", DELAY(50000), case_memset_async_pinned_does_not_block},
	{"pageable_copies_match_pinned", "", case_pageable_copies_match_pinned},
	{"pageable_copies_are_staged", "", case_pageable_copies_are_staged},
};

/* A case's assertions assume its knobs, so running it without them must say so rather than
 * blame the emulator. */
static bool env_matches(const char *env, char *why, size_t n)
{
	char buf[512];
	snprintf(buf, sizeof buf, "%s", env);
	char *save = NULL;
	for (char *kv = strtok_r(buf, " ", &save); kv; kv = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(kv, '=');
		*eq = '\0';
		const char *have = getenv(kv);
		if (!have || strcmp(have, eq + 1) != 0) {
			snprintf(why, n, "needs %s=%s in the environment (have %s; see --list)", kv,
				 eq + 1, have ? have : "unset");
			return false;
		}
	}
	return true;
}

int main(int argc, char **argv)
{
	size_t ncases = sizeof cases / sizeof cases[0];
	if (argc != 2) {
		fprintf(stderr, "usage: emu_selftest --list | emu_selftest NAME\n");
		return 2;
	}
	if (strcmp(argv[1], "--list") == 0) {
		for (size_t i = 0; i < ncases; i++)
			printf("%s\t%s\n", cases[i].name, cases[i].env);
		return 0;
	}
	const struct test_case *c = NULL;
	for (size_t i = 0; i < ncases && !c; i++)
		if (strcmp(argv[1], cases[i].name) == 0)
			c = &cases[i];
	if (!c) {
		fprintf(stderr, "emu_selftest: no case named %s (see --list)\n", argv[1]);
		return 2;
	}
	char why[256];
	if (!env_matches(c->env, why, sizeof why)) {
		printf("FAIL %s: %s\n", c->name, why);
		return 1;
	}
	cudaError_t err = register_kernels();
	if (err != cudaSuccess) {
		printf("FAIL %s: emuRegisterKernel returned %s\n", c->name, cudaGetErrorName(err));
		return 1;
	}
	enum result r = RETRY;
	for (int attempt = 1; attempt <= MAX_ATTEMPTS && r == RETRY; attempt++) {
		/* Let the previous attempt's work drain so it cannot blur the next one. */
		if (attempt > 1 && (err = cudaDeviceSynchronize()) != cudaSuccess) {
			printf("FAIL %s: cudaDeviceSynchronize between attempts returned %s\n", c->name,
			       cudaGetErrorName(err));
			return 1;
		}
		message[0] = '\0';
		r = c->fn();
	}
	if (r == PASS) {
		printf("ok %s\n", c->name);
		return 0;
	}
	printf("FAIL %s: %s%s\n", c->name, r == RETRY ? "inconclusive after every attempt: " : "",
	       message);
	return 1;
}
