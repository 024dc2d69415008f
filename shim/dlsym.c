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
		next_dlsym = dlvsym(RTLD_NEXT, "dlsym", SHIM_BASE_GLIBC);
}

void *shim_real_dlsym(void *handle, const char *name)
{
	pthread_once(&once, find);
	return SHIM_CALL(next_dlsym, NULL, (handle, name));
}

/* The runtime's hooks of api.def and their per-thread twins. */
static const struct {
	const char *name;
	void *hook;
} hooks[] = {
#define SHIM_HOOK_hook(symbol, hook) {symbol, (void *)hook},
#define SHIM_HOOK_real(symbol, hook)
#define SHIM_HOOK_twin(symbol, hook)
#define SHIM_TWIN_none(symbol, name)
#define SHIM_TWIN_ptds(symbol, name) {symbol "_ptds", (void *)name##_ptds},
#define SHIM_TWIN_ptsz(symbol, name) {symbol "_ptsz", (void *)name##_ptsz},
#define CUDA_RUNTIME(role, name, version, twin, ret, params) SHIM_HOOK_##role(#name, name) SHIM_TWIN_##twin(#name, name)
#define CUDA_DRIVER(role, name, version, ret, params)
#include "api.def"
#undef CUDA_RUNTIME
#undef CUDA_DRIVER
#undef SHIM_TWIN_none
#undef SHIM_TWIN_ptds
#undef SHIM_TWIN_ptsz
};

/* The driver's, for programs that take them from libcuda themselves (hooks_driver.c),
 * cuGetProcAddress among them. */
static const struct {
	const char *name;
	void *hook;
} driver_hooks[] = {
#define SHIM_HOOK_proc SHIM_HOOK_hook
#define CUDA_RUNTIME(role, name, version, twin, ret, params)
#define CUDA_DRIVER(role, name, version, ret, params) SHIM_HOOK_##role(#name #version, name##version)
#include "api.def"
#undef CUDA_RUNTIME
#undef CUDA_DRIVER
#undef SHIM_HOOK_hook
#undef SHIM_HOOK_real
#undef SHIM_HOOK_twin
#undef SHIM_HOOK_proc
};

SHIM_API void *dlsym(void *handle, const char *name)
{
	void *sym = shim_real_dlsym(handle, name);
	if (!sym || strncmp(name, "cu", 2) || handle == RTLD_DEFAULT || handle == RTLD_NEXT)
		return sym;
	if (strncmp(name, "cuda", 4) != 0) {
		for (size_t i = 0; i < sizeof driver_hooks / sizeof driver_hooks[0]; i++)
			if (!strcmp(name, driver_hooks[i].name)) {
				shim_adopt_driver(handle);
				return driver_hooks[i].hook;
			}
		return sym;
	}
	for (size_t i = 0; i < sizeof hooks / sizeof hooks[0]; i++)
		if (!strcmp(name, hooks[i].name)) {
			shim_adopt_runtime(handle);
			return hooks[i].hook;
		}
	return sym;
}
