/* CHECK ends the test program when a CUDA call fails: the runtime's cudaSuccess and the
 * driver's CUDA_SUCCESS are both 0. Include after the CUDA header and <stdio.h>, <stdlib.h>. */
#ifndef ECHO_TESTDATA_TRACER_CHECK_H
#define ECHO_TESTDATA_TRACER_CHECK_H

#include <stddef.h>
#include <stdint.h>

#define CHECK(call)                                                                       \
	do {                                                                              \
		if ((int)(call) != 0) {                                                   \
			fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #call); \
			exit(1);                                                          \
		}                                                                         \
	} while (0)

/* The loop programs' command line: [ITERATIONS] [BYTES], BYTES 1 MiB unless given. */
static inline int iterations_arg(int argc, char **argv, int otherwise)
{
	return argc > 1 ? atoi(argv[1]) : otherwise;
}

static inline size_t bytes_arg(int argc, char **argv)
{
	return argc > 2 ? strtoull(argv[2], NULL, 0) : 1 << 20;
}

/* The programs' line on stdout, which the tests compare across runs. */
static inline void print_checksum(uint64_t sum)
{
	printf("checksum=%016llx\n", (unsigned long long)sum);
}

/* The host's side of the programs' loop: the input of iteration it, and every step-th word of
 * an output folded into a checksum that starts at CHECKSUM_START (FNV-1a's constants). */
#define CHECKSUM_START 1469598103934665603ull

static inline void fill_input(uint32_t *h, size_t n, int it)
{
	for (size_t i = 0; i < n; i++)
		h[i] = (uint32_t)(i * 2654435761u + (unsigned)it);
}

static inline uint64_t fold(uint64_t sum, const uint32_t *h, size_t n, size_t step)
{
	for (size_t i = 0; i < n; i += step)
		sum = (sum ^ h[i]) * 1099511628211ull;
	return sum;
}

#endif
