/*
 * The host's first-touch rates, as planner/copyrate.go measures them: fresh anonymous
 * mappings written a byte per 4 KiB page and unmapped again, the median of 7, as they come
 * and after madvise(MADV_HUGEPAGE) (numpy's way for its large arrays).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* GB/s of faulting in size bytes, huge pages asked for or not. */
static double rate(int huge, size_t size)
{
	double t[7];
	for (int r = 0; r < 7; r++) {
		double start = now();
		char *m = mmap(0, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			exit(1);
		if (huge)
			madvise(m, size, MADV_HUGEPAGE);
		for (size_t i = 0; i < size; i += 4096)
			m[i] = 1;
		munmap(m, size);
		t[r] = now() - start;
	}
	qsort(t, 7, sizeof t[0], by_value);
	return size / t[3] / 1e9;
}

int main(void)
{
	printf("first touch GB/s: 16MiB 4k %.2f, 64MiB 4k %.2f, 64MiB madv_hugepage %.2f\n", rate(0, 16 << 20),
	       rate(0, 64 << 20), rate(1, 64 << 20));
	return 0;
}
