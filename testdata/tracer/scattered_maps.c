/*
 * Maps a data file (no code) just below and just above its own executable, as the CUDA
 * driver maps /dev/nvidia* and programs map data files all over the address space, then
 * opens the CUDA runtime with dlopen (the tracer reads the process's maps again) and copies
 * through it: every copy's call site must still resolve to this executable. A tracer that
 * took the data file for a module spanning both mappings hid the executable behind it, and
 * its sites became raw addresses. Prints copies=N.
 * Usage: scattered_maps DATAFILE [ITERATIONS]
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

typedef int (*malloc_fn)(void **, size_t);
typedef int (*memcpy_fn)(void *, const void *, size_t, int);

static int first(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	uintptr_t *range = data;
	range[0] = UINTPTR_MAX;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
		range[0] = lo < range[0] ? lo : range[0];
		range[1] = hi > range[1] ? hi : range[1];
	}
	return 1; /* the executable comes first */
}

/* Maps one page of fd at or near want, never over something already mapped. */
static void *map_near(int fd, uintptr_t want)
{
	long page = sysconf(_SC_PAGESIZE);
	for (int i = 0; i < 64; i++, want += 16 * (uintptr_t)page) {
		void *p = mmap((void *)(want & ~((uintptr_t)page - 1)), (size_t)page, PROT_READ, MAP_SHARED | MAP_FIXED_NOREPLACE,
			       fd, 0);
		if (p != MAP_FAILED)
			return p;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	int iters = argc > 2 ? atoi(argv[2]) : 6;
	int fd = open(argv[1], O_RDONLY);
	uintptr_t exe[2] = {0, 0};
	dl_iterate_phdr(first, exe);
	if (fd < 0 || !map_near(fd, exe[0] - (16 << 20)) || !map_near(fd, exe[1] + (16 << 20))) {
		perror("mapping the data file around the executable");
		return 1;
	}
	void *rt = dlopen("libcudart.so.12", RTLD_NOW | RTLD_LOCAL);
	if (!rt)
		return 1;
	malloc_fn cuda_malloc = (malloc_fn)dlsym(rt, "cudaMalloc");
	memcpy_fn cuda_memcpy = (memcpy_fn)dlsym(rt, "cudaMemcpy");
	size_t bytes = 1 << 20;
	char *host = malloc(bytes);
	void *dev = NULL;
	if (!host || !cuda_malloc || !cuda_memcpy || cuda_malloc(&dev, bytes) != 0)
		return 1;
	int copies = 0;
	for (int i = 0; i < iters; i++) {
		host[i] = (char)i;
		copies += cuda_memcpy(dev, host, bytes, 1) == 0;
		copies += cuda_memcpy(host, dev, bytes, 2) == 0;
	}
	printf("copies=%d\n", copies);
	return 0;
}
