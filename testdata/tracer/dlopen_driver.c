/*
 * The driver API as Python's ctypes and cuda-python reach it: libcuda opened with dlopen, its
 * functions taken with dlsym and called through pointers, which no preloaded symbol
 * interposes. Each iteration a fresh malloc'd host buffer is copied to the device with
 * cuMemcpyHtoDAsync on a created stream and at once overwritten, and the data comes back
 * with cuMemcpyDtoHAsync into another fresh buffer that is read at once, as pageable memory
 * allows. The shim must see these copies (its dlsym hands out its hooks) to resolve the
 * buffers, and must wait for them once it pins the buffers (pageable_async.c is the same
 * through the runtime). With "proc" it takes every function but cuGetProcAddress_v2 from
 * the driver's cuGetProcAddress, asked for through cuGetProcAddress_v2 itself, as a
 * statically linked runtime does (CuPy's).
 * Usage: dlopen_driver [ITERATIONS] [BYTES] [proc]
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda.h"
#include "check.h"

typedef CUresult (*get_proc_fn)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);

/* Set in proc mode: the lookup the driver's cuGetProcAddress gave. */
static get_proc_fn get_proc;

/* A driver function by its symbol (cuMemAlloc_v2): from dlsym, or in proc mode from
 * cuGetProcAddress by its plain name (cuMemAlloc). */
static void *need(void *lib, const char *name)
{
	void *f = NULL;
	if (get_proc) {
		char plain[64];
		snprintf(plain, sizeof plain, "%s", name);
		char *v2 = strstr(plain, "_v2");
		if (v2)
			*v2 = 0;
		if (get_proc(plain, &f, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, NULL) != CUDA_SUCCESS)
			f = NULL;
	} else {
		f = dlsym(lib, name);
	}
	if (!f) {
		fprintf(stderr, "libcuda has no %s\n", name);
		exit(1);
	}
	return f;
}

/* A static runtime's start: cuGetProcAddress_v2 from dlsym, then the driver's own lookup. */
static void use_get_proc(void *lib)
{
	get_proc_fn first = (get_proc_fn)dlsym(lib, "cuGetProcAddress_v2");
	void *f = NULL;
	if (!first || first("cuGetProcAddress", &f, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, NULL) != CUDA_SUCCESS || !f) {
		fprintf(stderr, "libcuda has no cuGetProcAddress\n");
		exit(1);
	}
	get_proc = (get_proc_fn)f;
}

int main(int argc, char **argv)
{
	int iters = iterations_arg(argc, argv, 10);
	size_t bytes = bytes_arg(argc, argv);
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "dlopen libcuda.so.1: %s\n", dlerror());
		return 1;
	}
	if (argc > 3 && !strcmp(argv[3], "proc"))
		use_get_proc(lib);
	CUresult (*init)(unsigned) = need(lib, "cuInit");
	CUresult (*device_get)(CUdevice *, int) = need(lib, "cuDeviceGet");
	CUresult (*retain)(CUcontext *, CUdevice) = need(lib, "cuDevicePrimaryCtxRetain");
	CUresult (*set_current)(CUcontext) = need(lib, "cuCtxSetCurrent");
	CUresult (*stream_create)(CUstream *, unsigned) = need(lib, "cuStreamCreate");
	CUresult (*stream_sync)(CUstream) = need(lib, "cuStreamSynchronize");
	CUresult (*mem_alloc)(CUdeviceptr *, size_t) = need(lib, "cuMemAlloc_v2");
	CUresult (*mem_free)(CUdeviceptr) = need(lib, "cuMemFree_v2");
	CUresult (*htod)(CUdeviceptr, const void *, size_t, CUstream) = need(lib, "cuMemcpyHtoDAsync_v2");
	CUresult (*dtoh)(void *, CUdeviceptr, size_t, CUstream) = need(lib, "cuMemcpyDtoHAsync_v2");

	CUdevice dev;
	CUcontext ctx;
	CUstream stream;
	CUdeviceptr d;
	CHECK(init(0));
	CHECK(device_get(&dev, 0));
	CHECK(retain(&ctx, dev));
	CHECK(set_current(ctx));
	CHECK(stream_create(&stream, 0));
	CHECK(mem_alloc(&d, bytes));
	size_t n = bytes / sizeof(uint32_t);
	uint64_t sum = CHECKSUM_START;
	for (int it = 0; it < iters; it++) {
		uint32_t *in = malloc(bytes), *out = malloc(bytes);
		if (!in || !out)
			return 1;
		fill_input(in, n, it);
		CHECK(htod(d, in, bytes, stream));
		memset(in, 0xff, bytes); /* pageable: the copy has read it already */
		CHECK(dtoh(out, d, bytes, stream));
		sum = fold(sum, out, n, 97); /* pageable: the copy has written it already */
		free(in);
		free(out);
	}
	CHECK(stream_sync(stream));
	print_checksum(sum);
	CHECK(mem_free(d));
	return 0;
}
