/*
 * The context check: a plan applies only to the program, GPU, driver and runtime it was
 * made and calibrated on. The executable is checked when the shim starts; the device, on
 * the first merge, through the runtime (by then the program is about to use it anyway), or
 * the driver where the program has no shared runtime.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "shim.h"

static atomic_int checked; /* 0 not yet, 1 fine, -1 mismatch */

struct device_info shim_device;

/* What is read of the device beyond its name, compute capability and versions, through the
 * runtime or the driver, whichever the program uses. */
static const struct {
	int *value;
	enum cudaDeviceAttr runtime;
	int driver;
} attributes[] = {
	{&shim_device.pageable, cudaDevAttrPageableMemoryAccess, CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS},
	{&shim_device.concurrent_managed, cudaDevAttrConcurrentManagedAccess,
	 CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS},
	{&shim_device.integrated, cudaDevAttrIntegrated, CU_DEVICE_ATTRIBUTE_INTEGRATED},
	{&shim_device.concurrent_kernels, cudaDevAttrConcurrentKernels, CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS},
	{&shim_device.host_page_tables, cudaDevAttrPageableMemoryAccessUsesHostPageTables,
	 CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES},
};
#define N_ATTRIBUTES (sizeof attributes / sizeof attributes[0])

/* The end of either query, the name, versions and attributes read: the compute capability
 * written as a plan records it, and the device known to the context check and the report. */
static void known(int major, int minor)
{
	snprintf(shim_device.cc, sizeof shim_device.cc, "%d.%d", major, minor);
	shim_device.known = true;
	shim_energy_device();
}

/* The same through the driver, for a program with no shared runtime (CuPy links it
 * statically): the runtime version is then 0, unknown. */
static void query_driver(void)
{
	CUresult (*get_device)(CUdevice *) = shim_real_driver_dlsym("cuCtxGetDevice");
	CUresult (*get_name)(char *, int, CUdevice) = shim_real_driver_dlsym("cuDeviceGetName");
	CUresult (*attribute)(int *, int, CUdevice) = shim_real_driver_dlsym("cuDeviceGetAttribute");
	CUresult (*driver_version)(int *) = shim_real_driver_dlsym("cuDriverGetVersion");
	CUdevice device;
	int major = 0, minor = 0;
	if (DRIVER_CALL(get_device, (&device)) != CUDA_SUCCESS ||
	    DRIVER_CALL(get_name, (shim_device.name, sizeof shim_device.name, device)) != CUDA_SUCCESS ||
	    DRIVER_CALL(attribute, (&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device)) != CUDA_SUCCESS ||
	    DRIVER_CALL(attribute, (&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device)) != CUDA_SUCCESS ||
	    DRIVER_CALL(driver_version, (&shim_device.driver)) != CUDA_SUCCESS) {
		shim_device.name[0] = 0;
		return;
	}
	for (size_t i = 0; i < N_ATTRIBUTES; i++)
		DRIVER_CALL(attribute, (attributes[i].value, attributes[i].driver, device));
	known(major, minor);
}

/* What the device is, for the context check and the run report. */
static void query(void)
{
	if (!shim_runtime_loaded()) {
		query_driver();
		return;
	}
	int device = 0, major = 0, minor = 0;
	/* cudaDeviceProp's layout changes between CUDA versions: only the name, its first field,
	 * is read from it, into room enough for any version; the rest comes from attributes. */
	static union {
		struct cudaDeviceProp prop;
		char room[16 << 10];
	} props;
	if (!real.cudaGetDevice || !real.cudaGetDeviceProperties || !real.cudaDriverGetVersion ||
	    !real.cudaRuntimeGetVersion || !real.cudaDeviceGetAttribute || REAL(cudaGetDevice, (&device)) != cudaSuccess ||
	    REAL(cudaGetDeviceProperties, (&props.prop, device)) != cudaSuccess ||
	    REAL(cudaDeviceGetAttribute, (&major, cudaDevAttrComputeCapabilityMajor, device)) != cudaSuccess ||
	    REAL(cudaDeviceGetAttribute, (&minor, cudaDevAttrComputeCapabilityMinor, device)) != cudaSuccess ||
	    REAL(cudaDriverGetVersion, (&shim_device.driver)) != cudaSuccess ||
	    REAL(cudaRuntimeGetVersion, (&shim_device.runtime)) != cudaSuccess)
		return;
	snprintf(shim_device.name, sizeof shim_device.name, "%s", props.prop.name);
	for (size_t i = 0; i < N_ATTRIBUTES; i++)
		REAL(cudaDeviceGetAttribute, (attributes[i].value, attributes[i].runtime, device));
	known(major, minor);
}

/* Queried once, from a hook: the runtime is loaded by then and the guard is held. */
bool shim_query_device(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, query);
	return shim_device.known;
}

/* Why a plan's recorded context (gpu, cc, driver, runtime; each empty or 0 where it records
 * none) does not fit this device, into why; false when it fits. The device must be known. */
bool shim_context_differs(const char *gpu, const char *cc, int driver, int runtime, char *why, size_t len)
{
	const struct device_info *d = &shim_device;
	if (gpu[0] && strcmp(gpu, d->name))
		snprintf(why, len, "the plan is for GPU \"%s\", this is \"%s\"", gpu, d->name);
	else if (cc[0] && strcmp(cc, d->cc))
		snprintf(why, len, "the plan is for compute capability %s, this device has %s", cc, d->cc);
	else if (driver && driver != d->driver)
		snprintf(why, len, "the plan is for driver %d, this is %d", driver, d->driver);
	else if (runtime && runtime != d->runtime)
		snprintf(why, len, "the plan is for runtime %d, this is %d", runtime, d->runtime);
	else
		return false;
	return true;
}

static bool device_matches(void)
{
	if (!shim_query_device()) {
		shim_passthrough("the device could not be queried through the CUDA runtime or driver");
		return false;
	}
	const struct device_info *d = &shim_device;
	char why[600];
	if (shim_context_differs(shim_plan.gpu, shim_plan.cc, shim_plan.driver, shim_plan.runtime, why, sizeof why)) {
		shim_passthrough("%s", why);
		return false;
	}
	if (shim_plan.strategy == STRATEGY_SYSTEM && !d->pageable) {
		shim_passthrough("the system strategy needs a device with pageable memory access");
		return false;
	}
	/* Without concurrent managed access (Jetson before Thor) the CPU must not touch managed
	 * memory while any kernel runs: the access faults, and the program dies. */
	if (shim_plan.strategy == STRATEGY_MANAGED && !d->concurrent_managed) {
		shim_passthrough("the managed strategy needs a device with concurrent managed access "
				 "(without it the host may not touch managed memory while a kernel runs)");
		return false;
	}
	return true;
}

/* Whether merging may go ahead; checked once. Called without shim_lock: it calls CUDA. */
bool shim_context_ok(void)
{
	int c = atomic_load(&checked);
	if (c == 0) {
		/* A plan directory's plan is chosen here, by this device, where a single plan is
		 * checked against it. */
		c = shim_active() && (!shim_choosing() || shim_choose()) && device_matches() ? 1 : -1;
		atomic_store(&checked, c);
	}
	return c == 1 && shim_active();
}
