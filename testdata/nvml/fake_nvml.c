/*
 * A stand-in for libnvidia-ml.so.1, so that the shim's real NVML path (dlopen, init, the
 * device in use, the energy counter) runs where no GPU is: one device whose energy counter
 * grows at 100 W of wall time, as a real GPU's counts millijoules since the driver loaded.
 * Tests put its directory first on LD_LIBRARY_PATH. FAKE_NVML_READ_US makes each energy read
 * take that long, as a real driver's may take milliseconds.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define API __attribute__((visibility("default")))

static int device = 1; /* the handle's target: any address will do */

API int nvmlInit_v2(void) { return 0; }

API int nvmlShutdown(void) { return 0; }

API int nvmlDeviceGetCount_v2(unsigned *n)
{
	*n = 1;
	return 0;
}

API int nvmlDeviceGetHandleByIndex_v2(unsigned index, void **d)
{
	if (index != 0)
		return 2; /* NVML_ERROR_INVALID_ARGUMENT */
	*d = &device;
	return 0;
}

API int nvmlDeviceGetHandleByPciBusId_v2(const char *bus, void **d)
{
	(void)bus;
	*d = &device;
	return 0;
}

API int nvmlDeviceGetIndex(void *d, unsigned *index)
{
	(void)d;
	*index = 0;
	return 0;
}

/* 100 W: 0.1 mJ per microsecond of the monotonic clock. */
API int nvmlDeviceGetTotalEnergyConsumption(void *d, unsigned long long *mj)
{
	(void)d;
	static long read_us = -1;
	if (read_us < 0) {
		const char *s = getenv("FAKE_NVML_READ_US");
		read_us = s ? atol(s) : 0;
	}
	if (read_us > 0)
		usleep((useconds_t)read_us);
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	*mj = (unsigned long long)t.tv_sec * 100000u + (unsigned long long)t.tv_nsec / 10000u;
	return 0;
}
