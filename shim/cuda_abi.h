/*
 * The part of CUDA's ABI the shim uses, with the values of the CUDA 12 and 13 headers
 * (driver_types.h, cuda_runtime_api.h, cuda.h). The shim links no CUDA library and is built
 * without CUDA's headers, or the emulator's (testdata/emulator/include), which a program
 * under test compiles against: what the preload library assumes of the ABI is here alone.
 * The functions it hooks or calls are declared from api.def (shim.h); those it looks up
 * by name are typed where they are looked up.
 */
#ifndef ECHO_SHIM_CUDA_ABI_H
#define ECHO_SHIM_CUDA_ABI_H

#include <stddef.h>
#include <stdint.h>

/* runtime (driver_types.h): the errors the shim returns or tells apart */
typedef enum cudaError {
	cudaSuccess = 0,
	cudaErrorInitializationError = 3,
	cudaErrorInvalidResourceHandle = 400,
} cudaError_t;

enum cudaMemcpyKind {
	cudaMemcpyHostToHost = 0,
	cudaMemcpyHostToDevice = 1,
	cudaMemcpyDeviceToHost = 2,
	cudaMemcpyDeviceToDevice = 3,
	cudaMemcpyDefault = 4,
};

enum cudaMemoryType {
	cudaMemoryTypeUnregistered = 0,
	cudaMemoryTypeHost = 1,
	cudaMemoryTypeDevice = 2,
	cudaMemoryTypeManaged = 3,
};

enum cudaDeviceAttr {
	cudaDevAttrIntegrated = 18,
	cudaDevAttrConcurrentKernels = 31,
	cudaDevAttrComputeCapabilityMajor = 75,
	cudaDevAttrComputeCapabilityMinor = 76,
	cudaDevAttrPageableMemoryAccess = 88,
	cudaDevAttrConcurrentManagedAccess = 89,
	cudaDevAttrCanUseHostPointerForRegisteredMem = 91,
	cudaDevAttrPageableMemoryAccessUsesHostPageTables = 100,
};

#define cudaHostAllocPortable 0x01
#define cudaHostRegisterPortable 0x01
#define cudaHostRegisterMapped 0x02
#define cudaStreamNonBlocking 0x01
#define cudaEventDisableTiming 0x02

typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)

typedef struct dim3 {
	unsigned int x, y, z;
} dim3;

/* CUDA 11's layout, which CUDA 12 and 13 keep. */
struct cudaPointerAttributes {
	enum cudaMemoryType type;
	int device;
	void *devicePointer;
	void *hostPointer;
};

/* Its layout changes between CUDA versions: the shim reads only the name, the first field,
 * and hands the runtime room enough for any version (context.c). */
struct cudaDeviceProp {
	char name[256];
};

/* The host callbacks' types. */
typedef void (*cudaHostFn_t)(void *);
typedef void (*cudaStreamCallback_t)(cudaStream_t, cudaError_t, void *);

/* driver (cuda.h) */
typedef enum cudaError_enum {
	CUDA_SUCCESS = 0,
	CUDA_ERROR_NOT_INITIALIZED = 3,
	CUDA_ERROR_INVALID_CONTEXT = 201,
} CUresult;

typedef int CUdevice;
typedef unsigned long long CUdeviceptr; /* 64-bit since the _v2 entry points */
typedef struct CUstream_st *CUstream;
typedef struct CUfunc_st *CUfunction;
typedef uint64_t cuuint64_t;

typedef enum CUdriverProcAddressQueryResult_enum {
	CU_GET_PROC_ADDRESS_SUCCESS = 0,
	CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND = 1,
	CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT = 2,
} CUdriverProcAddressQueryResult;

#define CU_MEMHOSTALLOC_PORTABLE 0x01

enum {
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
	CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS = 88,
	CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS = 89,
	CU_DEVICE_ATTRIBUTE_INTEGRATED = 18,
	CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS = 31,
	CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES = 100,
};

#endif
