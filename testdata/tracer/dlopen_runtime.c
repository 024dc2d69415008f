/*
 * Loads the CUDA runtime with dlopen after start, the way PyTorch and other Python stacks
 * do, then copies a buffer to the device and back: the tracer must pick the library up
 * while the program runs and see every call into it, the first one included.
 * Usage: dlopen_runtime [COPIES] [BYTES]
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*malloc_fn)(void **, size_t);
typedef int (*memcpy_fn)(void *, const void *, size_t, int);
typedef int (*free_fn)(void *);

int main(int argc, char **argv)
{
	int copies = argc > 1 ? atoi(argv[1]) : 4;
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
	unsigned char *host = malloc(bytes), *back = malloc(bytes);
	void *dev;
	memset(host, 7, bytes);
	if (cuda_malloc(&dev, bytes) != 0)
		return 1;
	for (int i = 0; i < copies; i++) {
		host[i % bytes] = (unsigned char)i;
		if (cuda_memcpy(dev, host, bytes, 1 /* cudaMemcpyHostToDevice */) != 0)
			return 1;
	}
	if (cuda_memcpy(back, dev, bytes, 2 /* cudaMemcpyDeviceToHost */) != 0)
		return 1;
	printf("checksum=%d\n", memcmp(host, back, bytes) == 0);
	cuda_free(dev);
	free(host);
	free(back);
	dlclose(rt);
	return 0;
}
