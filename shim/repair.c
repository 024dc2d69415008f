/*
 * What an elided copy keeps of its ordering (the plan's Copy.Repair, `event_wait`).
 *
 * A copy that returned only once done (a synchronous copy; an asynchronous one to pageable
 * memory) made the host wait for an operation on its stream, and an operation there starts
 * only after the stream's earlier work and after what the stream's implicit barrier orders
 * before it: on the legacy stream, every blocking stream's earlier work; on a blocking
 * stream, the legacy stream's. An event recorded on the same stream is such an operation
 * too, so waiting for it waits for exactly what the copy waited for. A device synchronize
 * would also wait for the non-blocking streams, which the copy never did (a persistent or
 * background kernel there would stall every elided copy); a stream synchronize would miss
 * the barrier's part.
 *
 * Each thread keeps one event, made on the device that was current when it was made; where
 * it cannot be recorded (a stream of another device), the wait falls back to what the shim
 * did before: the stream's synchronize (which misses only the barrier's part of a blocking
 * stream of another device), or for a default stream the device's.
 */
#include "shim.h"

static __thread cudaEvent_t event;
static __thread int event_device = -1;

/* The calling thread's event on the current device, or NULL. */
static cudaEvent_t thread_event(void)
{
	int device;
	if (!real.cudaGetDevice || !real.cudaEventRecord || !real.cudaEventSynchronize ||
	    REAL(cudaGetDevice, (&device)) != cudaSuccess)
		return NULL;
	if (event && event_device == device)
		return event;
	cudaEvent_t e;
	if (!real.cudaEventCreateWithFlags || REAL(cudaEventCreateWithFlags, (&e, cudaEventDisableTiming)) != cudaSuccess)
		return NULL;
	if (event && real.cudaEventDestroy)
		REAL(cudaEventDestroy, (event)); /* another device's, waited for when last recorded */
	event = e;
	event_device = device;
	return e;
}

static bool default_stream(cudaStream_t s)
{
	return s == NULL || s == cudaStreamLegacy || s == cudaStreamPerThread;
}

/* Waits for what a copy on stream `on` that returned once done waited for; counted as an
 * elided copy's wait when counted. */
static cudaError_t wait_as_copy(cudaStream_t on, bool counted)
{
	cudaEvent_t e = thread_event();
	if (e) {
		cudaError_t err = REAL(cudaEventRecord, (e, on));
		if (err == cudaSuccess) {
			if (counted)
				__atomic_add_fetch(&shim_count.waits_event, 1, __ATOMIC_RELAXED);
			return REAL(cudaEventSynchronize, (e));
		}
		if (err != cudaErrorInvalidResourceHandle)
			return err; /* an earlier launch's error: the copy would have returned it */
	}
	if (counted)
		__atomic_add_fetch(&shim_count.waits_fallback, 1, __ATOMIC_RELAXED);
	return default_stream(on) ? REAL(cudaDeviceSynchronize, ()) : REAL(cudaStreamSynchronize, (on));
}

cudaError_t shim_wait_as_copy(cudaStream_t on)
{
	return wait_as_copy(on, true);
}

/* The same wait before a copy that binds a pair (bind.c): what the copy is ordered after. */
cudaError_t shim_wait_before_copy(cudaStream_t on)
{
	return wait_as_copy(on, false);
}
