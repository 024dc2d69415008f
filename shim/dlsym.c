/*
 * Programs that dlopen the runtime (PyTorch-style) call it through pointers from dlsym,
 * which bypass a preloaded library's symbols. The shim interposes dlsym too: asked for a
 * runtime function it hooks, it hands out its hook, and takes the real functions from the
 * handle the program opened (a library opened RTLD_LOCAL is invisible to RTLD_NEXT).
 *
 * One limit: dlsym(RTLD_NEXT, ...) from the program itself now resolves relative to the
 * shim, which sits next to the executable in the search order anyway.
 */
#include <dlfcn.h>
#include <string.h>

#include "shim.h"

static void *(*next_dlsym)(void *, const char *);
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void find(void)
{
	next_dlsym = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
	if (!next_dlsym)
		next_dlsym = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
}

void *shim_real_dlsym(void *handle, const char *name)
{
	pthread_once(&once, find);
	return next_dlsym ? next_dlsym(handle, name) : NULL;
}

static const struct {
	const char *name;
	void *hook;
} hooks[] = {
	{"cudaMalloc", (void *)cudaMalloc},
	{"cudaMallocHost", (void *)cudaMallocHost},
	{"cudaHostAlloc", (void *)cudaHostAlloc},
	{"cudaFree", (void *)cudaFree},
	{"cudaFreeHost", (void *)cudaFreeHost},
	{"cudaMemcpy", (void *)cudaMemcpy},
	{"cudaMemcpyAsync", (void *)cudaMemcpyAsync},
	{"cudaLaunchKernel", (void *)cudaLaunchKernel},
	{"cudaDeviceSynchronize", (void *)cudaDeviceSynchronize},
	{"cudaStreamSynchronize", (void *)cudaStreamSynchronize},
};

SHIM_API void *dlsym(void *handle, const char *name)
{
	void *sym = shim_real_dlsym(handle, name);
	if (!sym || strncmp(name, "cuda", 4) || handle == RTLD_DEFAULT || handle == RTLD_NEXT)
		return sym;
	for (size_t i = 0; i < sizeof hooks / sizeof hooks[0]; i++)
		if (!strcmp(name, hooks[i].name)) {
			shim_adopt_runtime(handle);
			return hooks[i].hook;
		}
	return sym;
}
