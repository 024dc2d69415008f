/*
 * Energy, where the machine measures it, for the run report: the GPU's energy counter through
 * NVML on a discrete GPU (millijoules since the driver loaded, so two reads give the energy
 * between them), or the board's INA3221 power rails on a Jetson (an instantaneous power, so
 * the energy is the mean of the samples times the time they span). Neither is a dependency:
 * without libnvidia-ml.so.1 or the rails the report says energy_source "" and nothing else
 * changes. Only a run that times its loop (a marker: calibration's runs, measure mode) and
 * writes a report (ECHO_REPORT) opens either: nvmlInit costs milliseconds, up to hundreds
 * without persistence mode, that a deployed program (echoctl run writes a report too) should
 * not pay for nothing.
 *
 * In measure mode the marker samples again, at most every SAMPLE_GAP_NS, so that the energy of
 * an iteration comes from the loop alone, not from the program's start-up and exit. A read
 * takes time (NVML's can take milliseconds), which the report leaves out of the iteration it
 * fell in (report.c): calibration on the H200 timed streamcluster's 2.5 ms calls at 5.1 ms
 * when the marker could read the counter at every call.
 */
#include <dlfcn.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

#define MAX_NVML_DEVICES 16
/* The marker samples at most this often: NVML's counter is reported to move only about every
 * 10 ms (pynvml's tests found so; not measured here), so reading it more often would measure
 * little more. */
#define SAMPLE_GAP_NS 20000000u
/* The counter's energy over a loop shorter than this is its steps, not the loop's: on the H200
 * a backprop-style loop of 40 epochs of 0.5 ms (20 ms in all) read 400 mJ an epoch, 800 W.
 * A loop of at least ten of the counter's updates says what it used; a shorter one, nothing. */
#define MIN_NVML_SPAN_NS 100000000u

typedef void *nvml_device;
static struct {
	int (*get_handle)(unsigned, nvml_device *);
	int (*get_by_bus)(const char *, nvml_device *);
	int (*get_index)(nvml_device, unsigned *);
	int (*energy)(nvml_device, unsigned long long *);
} nvml;

static enum { SOURCE_NONE, SOURCE_NVML, SOURCE_INA3221 } source;
static unsigned device;					      /* NVML: the index of the CUDA device in use */
static unsigned long long start_mj[MAX_NVML_DEVICES];	      /* NVML: each device's counter at start */
static bool started[MAX_NVML_DEVICES];
static double end_value;				      /* at exit: NVML mJ, INA3221 mW */
static bool ended;

/* The rails: each channel's bus voltage (mV) and current (mA) files (in1..3; in4..6 are the
 * shunts' voltages). */
#define MAX_RAILS 8
static char rail_in[MAX_RAILS][160], rail_curr[MAX_RAILS][160];
static int nrails;
static double power_sum_mw; /* INA3221: the samples so far, for their mean */
static int power_samples;

/* Samples at the marker: the first and the latest, with the iteration each was taken at. */
static struct sample {
	bool taken;
	int mark;
	uint64_t ns;
	double value; /* NVML: the counter, mJ; INA3221: the power, mW */
} first, last;
static double loop_power_sum_mw;
static int loop_power_samples;

static bool nvml_read(unsigned index, unsigned long long *mj)
{
	nvml_device d;
	return SHIM_CALL(nvml.get_handle, -1, (index, &d)) == 0 && SHIM_CALL(nvml.energy, -1, (d, mj)) == 0;
}

static bool nvml_open(void)
{
	void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return false;
	int (*init)(void) = (int (*)(void))dlsym(lib, "nvmlInit_v2");
	int (*count)(unsigned *) = (int (*)(unsigned *))dlsym(lib, "nvmlDeviceGetCount_v2");
	nvml.get_handle = (int (*)(unsigned, nvml_device *))dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
	nvml.get_by_bus = (int (*)(const char *, nvml_device *))dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2");
	nvml.get_index = (int (*)(nvml_device, unsigned *))dlsym(lib, "nvmlDeviceGetIndex");
	nvml.energy = (int (*)(nvml_device, unsigned long long *))dlsym(lib, "nvmlDeviceGetTotalEnergyConsumption");
	unsigned n = 0;
	if (!nvml.get_handle || !nvml.energy || SHIM_CALL(init, -1, ()) != 0 || SHIM_CALL(count, -1, (&n)) != 0)
		return false; /* the library stays loaded: unloading a half-initialised NVML is no safer */
	bool any = false;
	for (unsigned i = 0; i < n && i < MAX_NVML_DEVICES; i++)
		any |= started[i] = nvml_read(i, &start_mj[i]);
	return any;
}

static bool read_number(const char *path, double *v)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	bool ok = fscanf(f, "%lf", v) == 1;
	fclose(f);
	return ok;
}

/* The board's input rail where the driver labels one (VDD_IN, or POM_5V_IN on older boards):
 * the other rails are parts of it. Otherwise every rail, added up. */
static bool ina_open(void)
{
	glob_t g;
	if (glob("/sys/bus/i2c/drivers/ina3221/*/hwmon/hwmon*/in[1-3]_input", 0, NULL, &g) != 0)
		return false;
	for (size_t i = 0; i < g.gl_pathc && nrails < MAX_RAILS; i++) {
		char label[160], name[32] = "";
		const char *in = g.gl_pathv[i];
		size_t dir = strrchr(in, '/') - in;
		int ch = in[dir + 3] - '0';
		snprintf(label, sizeof label, "%.*s/in%d_label", (int)dir, in, ch);
		FILE *f = fopen(label, "re");
		if (f) {
			if (!fgets(name, sizeof name, f))
				name[0] = 0;
			fclose(f);
		}
		bool input = strncmp(name, "VDD_IN", 6) == 0 || strstr(name, "_IN\n") != NULL;
		if (input)
			nrails = 0; /* the input alone: it is the sum of the others */
		snprintf(rail_in[nrails], sizeof rail_in[nrails], "%s", in);
		snprintf(rail_curr[nrails], sizeof rail_curr[nrails], "%.*s/curr%d_input", (int)dir, in, ch);
		nrails++;
		if (input)
			break;
	}
	globfree(&g);
	return nrails > 0;
}

/* The board's power now, in mW. */
static bool ina_power(double *mw)
{
	double sum = 0;
	for (int i = 0; i < nrails; i++) {
		double mv, ma;
		if (!read_number(rail_in[i], &mv) || !read_number(rail_curr[i], &ma))
			return false;
		sum += mv * ma / 1000;
	}
	*mw = sum;
	return true;
}

/* A reading now: the NVML counter of the device in use, or the board's power. */
static bool reading(double *v)
{
	if (source == SOURCE_NVML) {
		unsigned long long mj;
		if (!nvml_read(device, &mj))
			return false;
		*v = (double)mj;
		return true;
	}
	return source == SOURCE_INA3221 && ina_power(v);
}

static void at_exit(void)
{
	ended = reading(&end_value);
	if (ended && source == SOURCE_INA3221) {
		power_sum_mw += end_value;
		power_samples++;
	}
}

void shim_energy_start(void)
{
	const char *report = getenv("ECHO_REPORT");
	if (!report || !*report || !shim_plan.has_marker)
		return;
	double mw;
	if (nvml_open())
		source = SOURCE_NVML;
	else if (ina_open() && ina_power(&mw)) {
		source = SOURCE_INA3221;
		power_sum_mw += mw;
		power_samples++;
	}
}

/* The reading at exit must come before the libraries' destructors (NVML's own is among them),
 * so it is an atexit handler; registered from the shim's constructor it would run after them,
 * since the dynamic loader's own handler is registered after that constructor ran: it is
 * registered once the program runs, at the first sample. (Sysfs has no destructor: without
 * a sample the report reads the rails itself.) */
static void end_at_exit(void)
{
	static bool once;
	if (!once) {
		once = true;
		atexit(at_exit);
	}
}

void shim_energy_device(void)
{
	if (source == SOURCE_NONE)
		return;
	end_at_exit();
	if (source != SOURCE_NVML || !nvml.get_by_bus || !nvml.get_index)
		return;
	CUresult (*get_device)(CUdevice *) = shim_real_driver_dlsym("cuCtxGetDevice");
	CUresult (*bus_id)(char *, int, CUdevice) = shim_real_driver_dlsym("cuDeviceGetPCIBusId");
	CUdevice d;
	char bus[32];
	nvml_device h;
	unsigned index;
	if (DRIVER_CALL(get_device, (&d)) == CUDA_SUCCESS && DRIVER_CALL(bus_id, (bus, sizeof bus, d)) == CUDA_SUCCESS &&
	    SHIM_CALL(nvml.get_by_bus, -1, (bus, &h)) == 0 && SHIM_CALL(nvml.get_index, -1, (h, &index)) == 0 &&
	    index < MAX_NVML_DEVICES && started[index])
		device = index;
}

void shim_energy_mark(int mark, uint64_t ns)
{
	/* Every SAMPLE_GAP_NS, and at marks 1, 2, 4, 8, ... so that a short loop still spans
	 * samples (a few reads more in all). */
	if (source == SOURCE_NONE || (last.taken && ns - last.ns < SAMPLE_GAP_NS && (mark & (mark - 1)) != 0))
		return;
	double v;
	end_at_exit();
	if (!reading(&v))
		return;
	struct sample s = {true, mark, ns, v};
	if (source == SOURCE_INA3221) {
		power_sum_mw += v;
		power_samples++;
		if (first.taken) { /* the loop's mean power: the samples from the first on */
			loop_power_sum_mw += v;
			loop_power_samples++;
		}
	}
	if (!first.taken) {
		first = s;
		loop_power_sum_mw = v;
		loop_power_samples = 1;
	}
	last = s;
}

void shim_energy_report(FILE *f, uint64_t wall_ns)
{
	static const char *names[] = {"", "nvml", "ina3221"};
	double run = 0, iteration = 0;
	if (source == SOURCE_INA3221 && !ended)
		at_exit();
	int iterations = last.mark - first.mark;
	if (source == SOURCE_NVML) {
		if (ended && started[device])
			run = end_value - (double)start_mj[device];
		if (iterations > 0 && last.ns - first.ns >= MIN_NVML_SPAN_NS)
			iteration = (last.value - first.value) / iterations;
	} else if (source == SOURCE_INA3221) {
		if (power_samples)
			run = power_sum_mw / power_samples * (double)wall_ns / 1e9;
		if (iterations > 0)
			iteration = loop_power_sum_mw / loop_power_samples * (double)(last.ns - first.ns) / 1e9 / iterations;
	}
	fprintf(f, "\"energy_source\":\"%s\",\"energy_mj\":%.3f,\"iteration_energy_mj\":%.3f,", names[source],
		run, iteration);
}
