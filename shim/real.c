/* The real functions, resolved once, past the shim (RTLD_NEXT). The malloc family needs no
 * resolving: glibc exports its own entry points as __libc_malloc and friends. */
#include <dlfcn.h>

#include "shim.h"

struct real real;
static pthread_once_t once = PTHREAD_ONCE_INIT;

#define LOOKUP(handle, field, name)                                                      \
	do {                                                                              \
		if (!real.field)                                                          \
			real.field = (__typeof__(real.field))shim_real_dlsym(handle, name); \
	} while (0)

static void resolve_from(void *handle)
{
#define RESOLVE(field, name) LOOKUP(handle, field, name)
	RESOLVE(cudaMalloc, "cudaMalloc");
	RESOLVE(cudaMallocHost, "cudaMallocHost");
	RESOLVE(cudaHostAlloc, "cudaHostAlloc");
	RESOLVE(cudaMallocManaged, "cudaMallocManaged");
	RESOLVE(cudaFree, "cudaFree");
	RESOLVE(cudaFreeHost, "cudaFreeHost");
	RESOLVE(cudaMemcpy, "cudaMemcpy");
	RESOLVE(cudaMemcpyAsync, "cudaMemcpyAsync");
	RESOLVE(cudaDeviceSynchronize, "cudaDeviceSynchronize");
	RESOLVE(cudaStreamSynchronize, "cudaStreamSynchronize");
	RESOLVE(cudaLaunchKernel, "cudaLaunchKernel");
	RESOLVE(cudaGetDevice, "cudaGetDevice");
	RESOLVE(cudaGetDeviceProperties, "cudaGetDeviceProperties_v2"); /* CUDA 12 */
	RESOLVE(cudaGetDeviceProperties, "cudaGetDeviceProperties");    /* CUDA 13 dropped the suffix */
	RESOLVE(cudaDeviceGetAttribute, "cudaDeviceGetAttribute");
	RESOLVE(cudaDriverGetVersion, "cudaDriverGetVersion");
	RESOLVE(cudaRuntimeGetVersion, "cudaRuntimeGetVersion");
	RESOLVE(new_array, "_Znam");
	RESOLVE(delete_array, "_ZdaPv");
	RESOLVE(delete_array_sized, "_ZdaPvm");
#undef RESOLVE
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
