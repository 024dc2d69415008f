/*
 * memplace: does the speed of a streaming loop depend on which memory backs the buffer?
 * (issue 41, cause 2: the emulator's merged rounds run at one of two speeds, a whole process
 * at a time.) It maps BUFS buffers of 4 MiB, faults each in, then times PASSES passes of the
 * emulated scale kernel's own loop (read a float, multiply-add, write it to a second buffer)
 * from each buffer into the next, and prints for each buffer its median pass in µs and the
 * frame number its first page sits at (from /proc/self/pagemap, root only; 0 otherwise).
 * If passes split into two speeds inside one process, and the split follows the frame
 * numbers, the cause is the memory under the process, not the process.
 *
 * `memplace watch SECONDS` instead runs the same pass over one pair of buffers for SECONDS and
 * prints the fastest pass of each quarter second: if one process's speed moves between the
 * two over time, on the same pages and CPU, the cause is outside the process.
 *
 *   cc -O2 -o memplace bench/memplace.c && ./memplace [BUFS] [PASSES]; ./memplace watch 15
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define BYTES (4u << 20)

static double now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* frame: the physical frame number of the page at p, or 0 where pagemap does not say. */
static uint64_t frame(int pagemap, const void *p)
{
	uint64_t entry = 0;
	off_t at = (off_t)((uintptr_t)p / (uintptr_t)sysconf(_SC_PAGESIZE)) * 8;
	if (pagemap < 0 || pread(pagemap, &entry, 8, at) != 8)
		return 0;
	return entry & ((1ull << 55) - 1);
}

/* buffer: 4 MiB of fresh anonymous memory, or NULL. */
static float *buffer(void)
{
	void *p = mmap(NULL, BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("memplace: mmap");
		return NULL;
	}
	return p;
}

/* scale_pass: the scale kernel's loop, from in to out, timed in µs. */
static double scale_pass(const float *in, float *out, size_t n)
{
	double t0 = now_us();
	for (size_t k = 0; k < n; k++)
		out[k] = in[k] * 1.000001f + 0.5f;
	return now_us() - t0;
}

/* watch: the fastest pass of each quarter second over seconds, on one line. */
static int watch(double seconds)
{
	size_t n = BYTES / sizeof(float);
	float *in = buffer(), *out = buffer();
	if (!in || !out)
		return 1;
	for (size_t k = 0; k < n; k++)
		in[k] = (float)(k % 7), out[k] = 0;
	double start = now_us(), window = start, best = 1e18, sum = 0;
	while (now_us() - start < seconds * 1e6) {
		double t = scale_pass(in, out, n);
		sum += out[(size_t)t % n];
		best = t < best ? t : best;
		if (now_us() - window >= 250e3) {
			printf("%.0f ", best);
			fflush(stdout);
			best = 1e18, window = now_us();
		}
	}
	printf("\n");
	fprintf(stderr, "checksum %g\n", sum);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 2 && strcmp(argv[1], "watch") == 0)
		return watch(atof(argv[2]));
	int bufs = argc > 1 ? atoi(argv[1]) : 16, passes = argc > 2 ? atoi(argv[2]) : 21;
	if (bufs < 2 || passes < 1) {
		fprintf(stderr, "usage: memplace [BUFS>=2] [PASSES>=1]\n");
		return 2;
	}
	float **b = calloc(bufs, sizeof *b);
	double *t = calloc(passes, sizeof *t);
	int pagemap = open("/proc/self/pagemap", O_RDONLY);
	size_t n = BYTES / sizeof(float);
	for (int i = 0; i < bufs; i++) {
		if (!(b[i] = buffer()))
			return 1;
		for (size_t k = 0; k < n; k++)
			b[i][k] = (float)(k % 7);
	}
	double sum = 0;
	for (int i = 0; i < bufs; i++) {
		const float *in = b[i];
		float *out = b[(i + 1) % bufs];
		for (int p = 0; p < passes; p++) {
			t[p] = scale_pass(in, out, n);
			sum += out[p];
		}
		qsort(t, passes, sizeof *t, cmp_double);
		printf("buf=%d pass_us=%.0f in=%p out=%p frame=%#llx\n", i, t[passes / 2], (const void *)in, (void *)out,
		       (unsigned long long)frame(pagemap, in));
	}
	fprintf(stderr, "checksum %g\n", sum);
	return 0;
}
