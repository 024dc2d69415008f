/*
 * Loads the CUDA runtime with dlopen after start, the way PyTorch and other Python stacks
 * do, and calls it through dlsym'd pointers: the tracer must pick the library up while the
 * program runs and see every call into it, and the shim must still reach the calls.
 * Each iteration the host fills a buffer, copies it in, copies it on on the device, and
 * copies the result back. Prints checksum= and iter_ms= like the workloads.
 * Usage: dlopen_runtime [ITERATIONS] [BYTES]
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*malloc_fn)(void **, size_t);
typedef int (*memcpy_fn)(void *, const void *, size_t, int);
typedef int (*free_fn)(void *);

enum { H2D = 1, D2H = 2, D2D = 3 };

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 4;
	size_t bytes = argc > 2 ? strtoul(argv[2], NULL, 10) : 1 << 20;
	void *rt = dlopen("libcudart.so.12", RTLD_NOW | RTLD_LOCAL);
	if (!rt) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 1;
	}
	malloc_fn cuda_malloc = (malloc_fn)dlsym(rt, "cudaMalloc");
	memcpy_fn cuda_memcpy = (memcpy_fn)dlsym(rt, "cudaMemcpy");
	free_fn cuda_free = (free_fn)dlsym(rt, "cudaFree");
	if (!cuda_malloc || !cuda_memcpy || !cuda_free) {
		fprintf(stderr, "dlsym: %s\n", dlerror());
		return 1;
	}
	unsigned char *in = malloc(bytes), *out = malloc(bytes);
	void *a, *b;
	if (!in || !out || cuda_malloc(&a, bytes) != 0 || cuda_malloc(&b, bytes) != 0)
		return 1;
	uint64_t sum = 0xcbf29ce484222325ULL;
	for (int it = 0; it < iters; it++) {
		for (size_t i = 0; i < bytes; i += 4096)
			in[i] = (unsigned char)(it + i / 4096);
		if (cuda_memcpy(a, in, bytes, H2D) || cuda_memcpy(b, a, bytes, D2D) || cuda_memcpy(out, b, bytes, D2H))
			return 1;
		for (size_t i = 0; i < bytes; i += 4096)
			sum = (sum ^ out[i]) * 0x100000001b3ULL;
	}
	printf("checksum=%016llx\niter_ms=0\n", (unsigned long long)sum);
	cuda_free(a);
	cuda_free(b);
	free(in);
	free(out);
	dlclose(rt);
	return 0;
}
