/* The one emulated device: its properties and attributes, shaped by the knobs. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

#undef cudaGetDeviceProperties

static __thread int current_device;

static cudaError_t check_device(int device)
{
	cudaError_t err = emu_ok();
	if (err)
		return err;
	return device >= 0 && device < emu_knobs()->device_count ? cudaSuccess
								   : emu_fail(cudaErrorInvalidDevice);
}

EMU_API cudaError_t cudaGetDeviceCount(int *count)
{
	if (!count)
		return emu_fail(cudaErrorInvalidValue);
	*count = emu_knobs()->device_count;
	return emu_ok();
}

EMU_API cudaError_t cudaGetDevice(int *device)
{
	cudaError_t err = emu_ok();
	if (err)
		return err;
	if (!device)
		return emu_fail(cudaErrorInvalidValue);
	*device = current_device;
	return cudaSuccess;
}

EMU_API cudaError_t cudaSetDevice(int device)
{
	cudaError_t err = check_device(device);
	if (!err)
		current_device = device;
	return err;
}

static void fill(struct cudaDeviceProp *p)
{
	const struct emu_knobs *k = emu_knobs();
	size_t free_bytes = 0, total = 0;
	emu_mem_info(&free_bytes, &total);
	memset(p, 0, sizeof *p);
	snprintf(p->name, sizeof p->name, "%s", k->device_name);
	memcpy(p->uuid.bytes, "echo-emulator-00", 16);
	p->totalGlobalMem = total;
	p->sharedMemPerBlock = 48 << 10;
	p->regsPerBlock = 65536;
	p->warpSize = 32;
	p->memPitch = (size_t)1 << 31;
	p->maxThreadsPerBlock = 1024;
	p->maxThreadsDim[0] = 1024;
	p->maxThreadsDim[1] = 1024;
	p->maxThreadsDim[2] = 64;
	p->maxGridSize[0] = 0x7fffffff;
	p->maxGridSize[1] = 65535;
	p->maxGridSize[2] = 65535;
	p->clockRate = 1300000;
	p->totalConstMem = 64 << 10;
	p->major = k->cc_major;
	p->minor = k->cc_minor;
	p->textureAlignment = 512;
	p->texturePitchAlignment = 32;
	p->deviceOverlap = 1;
	p->multiProcessorCount = 16;
	p->integrated = k->integrated;
	p->canMapHostMemory = 1;
	p->concurrentKernels = k->concurrent_kernels;
	p->asyncEngineCount = 1;
	p->unifiedAddressing = 1;
	p->l2CacheSize = 4 << 20;
	p->maxThreadsPerMultiProcessor = 2048;
	p->sharedMemPerMultiprocessor = 164 << 10;
	p->regsPerMultiprocessor = 65536;
	p->managedMemory = 1;
	p->pageableMemoryAccess = k->pageable_access;
	p->concurrentManagedAccess = k->concurrent_managed;
	p->hostNativeAtomicSupported = k->host_atomics;
	p->canUseHostPointerForRegisteredMem = 1;
	p->pageableMemoryAccessUsesHostPageTables = k->pageable_access;
	p->directManagedMemAccessFromHost = k->integrated;
	p->maxBlocksPerMultiProcessor = 16;
	p->hostRegisterSupported = 1;
}

static cudaError_t get_properties(struct cudaDeviceProp *prop, int device)
{
	cudaError_t err = check_device(device);
	if (err)
		return err;
	if (!prop)
		return emu_fail(cudaErrorInvalidValue);
	fill(prop);
	return cudaSuccess;
}

EMU_API cudaError_t cudaGetDeviceProperties_v2(struct cudaDeviceProp *prop, int device)
{
	return get_properties(prop, device);
}

/* The pre-12 name, still exported by libcudart.so.12 for old binaries. */
EMU_API cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
	return get_properties(prop, device);
}

EMU_API cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
	cudaError_t err = check_device(device);
	if (err)
		return err;
	if (!value)
		return emu_fail(cudaErrorInvalidValue);
	struct cudaDeviceProp p;
	fill(&p);
	switch (attr) {
	case cudaDevAttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
	case cudaDevAttrMaxBlockDimX: *value = p.maxThreadsDim[0]; break;
	case cudaDevAttrMaxGridDimX: *value = p.maxGridSize[0]; break;
	case cudaDevAttrWarpSize: *value = p.warpSize; break;
	case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; break;
	case cudaDevAttrIntegrated: *value = p.integrated; break;
	case cudaDevAttrCanMapHostMemory: *value = p.canMapHostMemory; break;
	case cudaDevAttrConcurrentKernels: *value = p.concurrentKernels; break;
	case cudaDevAttrUnifiedAddressing: *value = p.unifiedAddressing; break;
	case cudaDevAttrComputeCapabilityMajor: *value = p.major; break;
	case cudaDevAttrComputeCapabilityMinor: *value = p.minor; break;
	case cudaDevAttrManagedMemory: *value = p.managedMemory; break;
	case cudaDevAttrHostNativeAtomicSupported: *value = p.hostNativeAtomicSupported; break;
	case cudaDevAttrPageableMemoryAccess: *value = p.pageableMemoryAccess; break;
	case cudaDevAttrConcurrentManagedAccess: *value = p.concurrentManagedAccess; break;
	case cudaDevAttrCanUseHostPointerForRegisteredMem:
		*value = p.canUseHostPointerForRegisteredMem;
		break;
	case cudaDevAttrPageableMemoryAccessUsesHostPageTables:
		*value = p.pageableMemoryAccessUsesHostPageTables;
		break;
	case cudaDevAttrDirectManagedMemAccessFromHost:
		*value = p.directManagedMemAccessFromHost;
		break;
	default:
		return emu_fail(cudaErrorInvalidValue);
	}
	return cudaSuccess;
}

EMU_API cudaError_t cudaRuntimeGetVersion(int *runtimeVersion)
{
	if (!runtimeVersion)
		return emu_fail(cudaErrorInvalidValue);
	*runtimeVersion = CUDART_VERSION;
	return cudaSuccess;
}

EMU_API cudaError_t cudaDriverGetVersion(int *driverVersion)
{
	if (!driverVersion)
		return emu_fail(cudaErrorInvalidValue);
	*driverVersion = emu_knobs()->device_count ? emu_knobs()->driver_version : 0;
	return cudaSuccess;
}
