/* The real functions, resolved once, past the shim (RTLD_NEXT). The malloc family needs no
 * resolving: glibc exports its own entry points as __libc_malloc and friends. */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

#include "shim.h"

struct real real;
static pthread_once_t once = PTHREAD_ONCE_INIT;

#define LOOKUP(handle, field, name)                                                      \
	do {                                                                              \
		if (!real.field)                                                          \
			real.field = (__typeof__(real.field))shim_real_dlsym(handle, name); \
	} while (0)

/* Each runtime function of api.def under its versioned symbol first, if it has one, then
 * under its plain name. */
static void resolve_from(void *handle)
{
#define SHIM_RESOLVE_hook(field, versioned, plain)           \
	do {                                                 \
		LOOKUP(handle, field, versioned);            \
		if (sizeof versioned != sizeof plain)        \
			LOOKUP(handle, field, plain);        \
	} while (0);
#define SHIM_RESOLVE_real SHIM_RESOLVE_hook
#define SHIM_RESOLVE_twin(field, versioned, plain)
/* The names are spelled here, before a header's macro (cudaGetDeviceProperties is
 * cudaGetDeviceProperties_v2 in CUDA 12's) could rename them. */
#define CUDA_RUNTIME(role, name, version, twin, ret, params) SHIM_RESOLVE_##role(name, #name #version, #name)
#define CUDA_DRIVER(role, name, version, ret, params)
#include "api.def"
#undef CUDA_RUNTIME
#undef CUDA_DRIVER
#undef SHIM_RESOLVE_hook
#undef SHIM_RESOLVE_real
#undef SHIM_RESOLVE_twin
	LOOKUP(handle, new_array, "_Znam");
	LOOKUP(handle, delete_array, "_ZdaPv");
	LOOKUP(handle, delete_array_sized, "_ZdaPvm");
}

static void resolve(void)
{
	resolve_from(RTLD_NEXT);
}

/* Called from the first hook that needs a runtime function: by then the program has loaded
 * the runtime. */
void shim_resolve(void)
{
	pthread_once(&once, resolve);
}

/* The program opened the runtime itself (dlopen): take what is still missing from it. */
void shim_adopt_runtime(void *handle)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	shim_resolve();
	pthread_mutex_lock(&lock);
	resolve_from(handle);
	pthread_mutex_unlock(&lock);
}

struct named {
	const char *prefix;
	char path[512];
};

static int name_of(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct named *n = data;
	const char *slash = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
	const char *base = slash ? slash + 1 : info->dlpi_name;
	if (!base || strncmp(base, n->prefix, strlen(n->prefix)) != 0)
		return 0;
	snprintf(n->path, sizeof n->path, "%s", info->dlpi_name);
	return 1;
}

/* A handle on a loaded library whose file name starts with prefix, or NULL: one opened
 * RTLD_LOCAL (an interpreter's extension's dependency) is invisible to RTLD_NEXT. dlopen
 * runs outside dl_iterate_phdr, which holds a loader lock. */
static void *loaded(const char *prefix)
{
	struct named n = {prefix, ""};
	dl_iterate_phdr(name_of, &n);
	return n.path[0] ? dlopen(n.path, RTLD_NOLOAD | RTLD_LAZY) : NULL;
}

/* Whether the runtime's allocator is at hand; a runtime opened since the first lookup (an
 * interpreter importing its GPU module) is found now. */
bool shim_runtime_loaded(void)
{
	shim_resolve();
	if (__atomic_load_n(&real.cudaHostAlloc, __ATOMIC_ACQUIRE))
		return true;
	void *h = loaded("libcudart.so");
	if (h)
		shim_adopt_runtime(h);
	return __atomic_load_n(&real.cudaHostAlloc, __ATOMIC_ACQUIRE) != NULL;
}

struct real_driver real_driver;
static pthread_once_t driver_once = PTHREAD_ONCE_INIT;

/* Each driver function of api.def that has a slot, under its versioned symbol only. */
static void driver_from(void *handle)
{
#define SHIM_RESOLVE_hook(field, symbol)                                                               \
	do {                                                                                            \
		if (!real_driver.field)                                                                 \
			real_driver.field = (__typeof__(real_driver.field))shim_real_dlsym(handle, symbol); \
	} while (0);
#define SHIM_RESOLVE_real SHIM_RESOLVE_hook
#define SHIM_RESOLVE_proc(field, symbol)
#define CUDA_RUNTIME(role, name, version, twin, ret, params)
#define CUDA_DRIVER(role, name, version, ret, params) SHIM_RESOLVE_##role(name##version, #name #version)
#include "api.def"
#undef CUDA_RUNTIME
#undef CUDA_DRIVER
#undef SHIM_RESOLVE_hook
#undef SHIM_RESOLVE_real
#undef SHIM_RESOLVE_proc
}

static void resolve_driver(void)
{
	driver_from(RTLD_NEXT);
	if (!real_driver.cuStreamSynchronize || !real_driver.cuMemcpyHtoDAsync_v2) {
		void *h = loaded("libcuda.so");
		if (h)
			driver_from(h);
	}
}

/* A runtime function past the shim, from the loaded runtime (one opened RTLD_LOCAL too). */
void *shim_runtime_symbol(const char *name)
{
	void *h = loaded("libcudart.so");
	return h ? shim_real_dlsym(h, name) : NULL;
}

/* A driver function past the shim: the next definition, or the loaded driver's. */
void *shim_real_driver_dlsym(const char *name)
{
	void *f = shim_real_dlsym(RTLD_NEXT, name);
	if (!f) {
		void *h = loaded("libcuda.so");
		f = h ? shim_real_dlsym(h, name) : NULL;
	}
	return f;
}

/* The program took a driver function from handle with dlsym: the hooks forward to handle's. */
void shim_adopt_driver(void *handle)
{
	shim_resolve_driver();
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	pthread_mutex_lock(&lock);
	driver_from(handle);
	pthread_mutex_unlock(&lock);
}

/* Called by the driver hooks: by then the program has loaded the driver. */
void shim_resolve_driver(void)
{
	pthread_once(&driver_once, resolve_driver);
}
