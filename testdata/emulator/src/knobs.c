/* Environment knobs, read once. See cuda_emulator.h for their meaning. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

static struct emu_knobs knobs;
static pthread_once_t knobs_once = PTHREAD_ONCE_INIT;

static void warn_bad(const char *name, const char *value, const char *why)
{
	fprintf(stderr, "cuda-emu: ignoring %s=%s: %s\n", name, value, why);
}

static void read_ulong(const char *name, unsigned long *out)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return;
	char *end;
	errno = 0;
	unsigned long x = strtoul(v, &end, 10);
	if (errno || *end || v[0] == '-') {
		warn_bad(name, v, "want a non-negative integer");
		return;
	}
	*out = x;
}

static void read_int(const char *name, int *out, int min, int max)
{
	unsigned long x = (unsigned long)*out;
	read_ulong(name, &x);
	if (x < (unsigned long)min || x > (unsigned long)max) {
		char want[64];
		snprintf(want, sizeof want, "want %d to %d", min, max);
		warn_bad(name, getenv(name), want);
		return;
	}
	*out = (int)x;
}

static void read_factor(const char *name, double *out)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return;
	char *end;
	double x = strtod(v, &end);
	if (*end || !(x >= 1.0 && x <= 1000.0)) {
		warn_bad(name, v, "want a factor from 1 to 1000");
		return;
	}
	*out = x;
}

static void read_bytes(const char *name, size_t *out)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return;
	char *end;
	errno = 0;
	unsigned long long x = strtoull(v, &end, 10);
	unsigned long long unit = 1;
	if (*end == 'K' || *end == 'k')
		unit = 1ULL << 10;
	else if (*end == 'M' || *end == 'm')
		unit = 1ULL << 20;
	else if (*end == 'G' || *end == 'g')
		unit = 1ULL << 30;
	bool digits = end != v;
	if (unit != 1)
		end++;
	if (errno || *end || v[0] == '-' || !digits || x > SIZE_MAX / unit) {
		warn_bad(name, v, "want bytes, optionally with K, M or G");
		return;
	}
	*out = (size_t)(x * unit);
}

static void read_cc(const char *name, int *major, int *minor)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return;
	int a, b;
	char tail;
	if (sscanf(v, "%d.%d%c", &a, &b, &tail) != 2 || a < 1 || a > 99 || b < 0 || b > 9) {
		warn_bad(name, v, "want MAJOR.MINOR, such as 8.7");
		return;
	}
	*major = a;
	*minor = b;
}

/* The attributes a machine reports, as its CUDA documentation gives them (not read off the
 * hardware here): the profile sets them, and the single knobs read after it override any. */
static const struct profile {
	const char *name, *device;
	int cc_major, cc_minor, integrated, pageable_access, concurrent_managed, host_atomics;
} profiles[] = {
	/* Jetson AGX Orin: one DRAM; no pageable access (no HMM), and no concurrent managed
	 * access: the CPU may not touch managed memory while a kernel runs. */
	{"orin", "Orin (emulated)", 8, 7, 1, 0, 0, 0},
	/* Grace Hopper: HBM beside LPDDR over NVLink-C2C, reported as not integrated; the GPU
	 * reaches pageable memory through the host's page tables (ATS), with native atomics. */
	{"gh200", "GH200 (emulated)", 9, 0, 0, 1, 1, 1},
};

static void read_profile(const char *name)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return;
	for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++) {
		const struct profile *p = &profiles[i];
		if (strcmp(v, p->name))
			continue;
		snprintf(knobs.device_name, sizeof knobs.device_name, "%s", p->device);
		knobs.cc_major = p->cc_major, knobs.cc_minor = p->cc_minor;
		knobs.integrated = p->integrated;
		knobs.pageable_access = p->pageable_access;
		knobs.concurrent_managed = p->concurrent_managed;
		knobs.host_atomics = p->host_atomics;
		return;
	}
	fprintf(stderr, "cuda emulator: ignoring %s=%s: not orin or gh200\n", name, v);
}

static void load(void)
{
	knobs.managed_slowdown = 1.0;
	knobs.host_slowdown = 1.0;
	knobs.device_count = 1;
	/* cudaHostRegister of 64 MiB took 3.7 ms on the H200: about 55 us per MiB, where a
	 * malloc of the same size costs microseconds. */
	knobs.pin_us_per_mib = 55;
	snprintf(knobs.device_name, sizeof knobs.device_name, "Echo UMA Emulator");
	knobs.cc_major = 8;
	knobs.cc_minor = 7;
	knobs.driver_version = CUDART_VERSION;
	knobs.integrated = 1;
	knobs.pageable_access = 0;
	knobs.concurrent_managed = 1;
	knobs.host_atomics = 0;
	/* Each stream's work runs on a thread of its own: beside the host's and one another's
	 * only where there are CPUs for them (the host thread and two streams). */
	knobs.concurrent_kernels = sysconf(_SC_NPROCESSORS_ONLN) > 2;
	read_profile("CUDA_EMU_PROFILE");

	read_ulong("CUDA_EMU_KERNEL_DELAY_US", &knobs.kernel_delay_us);
	read_ulong("CUDA_EMU_KERNEL_MIN_US", &knobs.kernel_min_us);
	read_ulong("CUDA_EMU_COPY_DELAY_US", &knobs.copy_delay_us);
	read_ulong("CUDA_EMU_PIN_US_PER_MIB", &knobs.pin_us_per_mib);
	read_factor("CUDA_EMU_MANAGED_SLOWDOWN", &knobs.managed_slowdown);
	read_factor("CUDA_EMU_HOST_SLOWDOWN", &knobs.host_slowdown);
	read_bytes("CUDA_EMU_MEM_LIMIT", &knobs.mem_limit);
	read_ulong("CUDA_EMU_FAIL_ALLOC", &knobs.fail_alloc);
	read_ulong("CUDA_EMU_FAIL_REGISTER", &knobs.fail_register);
	read_int("CUDA_EMU_DEVICE_COUNT", &knobs.device_count, 0, 1);
	const char *name = getenv("CUDA_EMU_DEVICE_NAME");
	if (name && *name)
		snprintf(knobs.device_name, sizeof knobs.device_name, "%s", name);
	read_cc("CUDA_EMU_CC", &knobs.cc_major, &knobs.cc_minor);
	read_int("CUDA_EMU_DRIVER_VERSION", &knobs.driver_version, 1000, 99999);
	read_int("CUDA_EMU_INTEGRATED", &knobs.integrated, 0, 1);
	read_int("CUDA_EMU_PAGEABLE_ACCESS", &knobs.pageable_access, 0, 1);
	read_int("CUDA_EMU_CONCURRENT_MANAGED", &knobs.concurrent_managed, 0, 1);
	read_int("CUDA_EMU_HOST_ATOMICS", &knobs.host_atomics, 0, 1);
	read_int("CUDA_EMU_CONCURRENT_KERNELS", &knobs.concurrent_kernels, 0, 1);
}

const struct emu_knobs *emu_knobs(void)
{
	pthread_once(&knobs_once, load);
	return &knobs;
}
