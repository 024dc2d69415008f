/*
 * What the Rodinia-style programs share: CHECK, a monotonic clock, the checksum (FNV-1a over
 * bytes) and the two output lines every Echo benchmark prints, `checksum=` and `iter_ms=`
 * (median of the iterations). `--pinned` makes a program's host buffers page-locked
 * (cudaMallocHost), the hand optimization a user on a discrete GPU would write.
 */
#ifndef RODINIA_COMMON_H
#define RODINIA_COMMON_H
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <algorithm>
#include <vector>

#include "../check.h"

static bool pinned_host;

static void *host_alloc(size_t bytes)
{
	void *p = nullptr;
	if (pinned_host)
		CHECK(cudaMallocHost(&p, bytes));
	else if (!(p = malloc(bytes)))
		exit(1);
	return p;
}

static void host_free(void *p)
{
	if (pinned_host)
		CHECK(cudaFreeHost(p));
	else
		free(p);
}

static double now_ms()
{
	timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = (const unsigned char *)p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}

static void report(uint64_t sum, std::vector<double> &ms)
{
	std::sort(ms.begin(), ms.end());
	printf("checksum=%016llx\n", (unsigned long long)sum);
	printf("iter_ms=%.4f\n", ms.empty() ? 0.0 : ms[ms.size() / 2]);
}

/* flags: --pinned anywhere; the rest are positional numbers, read by the program. */
static std::vector<long> numbers(int argc, char **argv)
{
	std::vector<long> n;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--pinned"))
			pinned_host = true;
		else
			n.push_back(atol(argv[i]));
	}
	return n;
}
#endif
