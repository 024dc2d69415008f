/*
 * What an elided copy's kept wait orders on the real runtime (shim/repair.c, repair
 * event_wait): an event recorded on the copy's stream and synchronized. For each question, a
 * kernel that naps for NAP_MS runs on one stream, the wait under test is made on another, and
 * a query of the kernel's stream tells whether the wait covered it. Then the cost of each
 * wait on an idle device, median of N calls.
 *
 * Expected from the CUDA documentation (stream synchronization behavior): an event on the
 * legacy stream waits for a blocking stream's kernel and not a non-blocking stream's; an
 * event on the per-thread default stream waits for the legacy stream's kernel.
 * Build: nvcc -O2 -o copy_wait bench/copy_wait.cu. Usage: copy_wait [N] (20000)
 */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#include "check.h"

#define NAP_MS 200

static __global__ void nap(unsigned ms)
{
	for (unsigned i = 0; i < ms * 1000; i++)
		__nanosleep(1000);
}

static double now_us()
{
	timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static cudaEvent_t ev;

static void event_on(cudaStream_t s)
{
	CHECK(cudaEventRecord(ev, s));
	CHECK(cudaEventSynchronize(ev));
}

/* Launches a nap on `kernel`, waits with wait(on), and says whether the nap was over. */
static bool covers(cudaStream_t kernel, void (*wait)(cudaStream_t), cudaStream_t on)
{
	nap<<<1, 1, 0, kernel>>>(NAP_MS);
	CHECK(cudaGetLastError());
	wait(on);
	cudaError_t q = cudaStreamQuery(kernel);
	CHECK(cudaDeviceSynchronize());
	return q == cudaSuccess;
}

static void stream_sync(cudaStream_t s) { CHECK(cudaStreamSynchronize(s)); }
static void device_sync(cudaStream_t) { CHECK(cudaDeviceSynchronize()); }

static double cost_us(void (*wait)(cudaStream_t), cudaStream_t on, int n)
{
	std::vector<double> v(n);
	for (int i = 0; i < n; i++) {
		double t0 = now_us();
		wait(on);
		v[i] = now_us() - t0;
	}
	std::sort(v.begin(), v.end());
	return v[n / 2];
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20000;
	cudaStream_t blocking, nonblocking;
	CHECK(cudaStreamCreate(&blocking));
	CHECK(cudaStreamCreateWithFlags(&nonblocking, cudaStreamNonBlocking));
	CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));

	struct {
		const char *question;
		cudaStream_t kernel;
		void (*wait)(cudaStream_t);
		cudaStream_t on;
		const char *documented; /* yes, no, or ? where the documentation does not say */
	} cases[] = {
		{"event on legacy waits for a blocking stream's kernel", blocking, event_on, cudaStreamLegacy, "yes"},
		{"event on legacy waits for a non-blocking stream's kernel", nonblocking, event_on, cudaStreamLegacy, "no"},
		{"event on per-thread waits for the legacy stream's kernel", cudaStreamLegacy, event_on, cudaStreamPerThread, "yes"},
		{"event on a blocking stream waits for the legacy stream's kernel", cudaStreamLegacy, event_on, blocking, "yes"},
		{"synchronize of legacy waits for a blocking stream's kernel", blocking, stream_sync, cudaStreamLegacy, "?"},
		{"device synchronize waits for a non-blocking stream's kernel", nonblocking, device_sync, 0, "yes"},
	};
	int wrong = 0;
	for (auto &c : cases) {
		const char *got = covers(c.kernel, c.wait, c.on) ? "yes" : "no";
		printf("%-66s %-3s (documented: %s)\n", c.question, got, c.documented);
		wrong += *c.documented != '?' && strcmp(got, c.documented) != 0;
	}
	printf("idle cost, median of %d: event on legacy %.2f us, synchronize of legacy %.2f us, device synchronize %.2f us\n",
	       n, cost_us(event_on, cudaStreamLegacy, n), cost_us(stream_sync, cudaStreamLegacy, n),
	       cost_us(device_sync, 0, n));
	return wrong ? 1 : 0;
}
