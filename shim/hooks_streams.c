/*
 * The runtime's streams, events and waits: validate mode follows them in stream time
 * (streams.c), so a window counts only the launches that may follow its copy and closes on
 * the waits that finished them. Calls that order work in ways it does not model (host
 * callbacks) make every launch count from then on; calls with implicit synchronization
 * (allocations, frees) may order any later work after any earlier.
 */
#include "shim.h"

/* A wait that returned err: on the device (no stream, no event), a stream or an event; since
 * is shim_busy_now() from before it began (resolve mode clears only what it covered). */
cudaError_t shim_synchronized(cudaError_t err, cudaStream_t stream, cudaEvent_t event, bool device,
			       unsigned long since)
{
	if (err != cudaSuccess)
		return err;
	if (device)
		SHIM_WATCH(shim_validate_sync());
	else if (event)
		SHIM_WATCH(shim_validate_event_sync(event));
	else
		SHIM_WATCH(shim_validate_stream_sync(stream));
	if (__builtin_expect(shim_resolving(), 0) && !event)
		shim_busy_waited(stream, device, since);
	return err;
}

SHIM_API cudaError_t cudaDeviceSynchronize(void)
{
	shim_resolve();
	unsigned long since = shim_busy_now();
	return shim_synchronized(REAL(cudaDeviceSynchronize, ()), NULL, NULL, true, since);
}

SHIM_API cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
	shim_resolve();
	unsigned long since = shim_busy_now();
	return shim_synchronized(REAL(cudaStreamSynchronize, (stream)), stream, NULL, false, since);
}

/* A query that says done waited for nothing, but tells as much as a wait that returned. */
SHIM_API cudaError_t cudaStreamQuery(cudaStream_t stream)
{
	shim_resolve();
	unsigned long since = shim_busy_now();
	return shim_synchronized(REAL(cudaStreamQuery, (stream)), stream,
				 NULL, false, since);
}

/* Streams created blocking are waited for by every legacy-stream operation (validate mode). */
static cudaError_t created(cudaError_t err, cudaStream_t *stream, unsigned int flags)
{
	if (err == cudaSuccess && stream)
		SHIM_WATCH(shim_validate_stream_created(*stream, !(flags & cudaStreamNonBlocking)));
	return err;
}

SHIM_API cudaError_t cudaStreamCreate(cudaStream_t *stream)
{
	shim_resolve();
	return created(REAL(cudaStreamCreate, (stream)), stream, 0);
}

SHIM_API cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags)
{
	shim_resolve();
	return created(REAL(cudaStreamCreateWithFlags, (stream, flags)),
		       stream, flags);
}

SHIM_API cudaError_t cudaStreamCreateWithPriority(cudaStream_t *stream, unsigned int flags, int priority)
{
	shim_resolve();
	return created(REAL(cudaStreamCreateWithPriority, (stream, flags, priority)),
		       stream, flags);
}

/* Events tell validate mode which launches a later wait on them covers. */
SHIM_API cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
	shim_resolve();
	SHIM_WATCH(shim_validate_event_record(event, stream));
	return REAL(cudaEventRecord, (event, stream));
}

/* A destroyed event's handle may name another event later: it covers nothing any more. */
SHIM_API cudaError_t cudaEventDestroy(cudaEvent_t event)
{
	shim_resolve();
	SHIM_WATCH(shim_validate_event_destroyed(event));
	return REAL(cudaEventDestroy, (event));
}

SHIM_API cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
	shim_resolve();
	return shim_synchronized(REAL(cudaEventSynchronize, (event)),
				 NULL, event, false, 0);
}

SHIM_API cudaError_t cudaEventQuery(cudaEvent_t event)
{
	shim_resolve();
	return shim_synchronized(REAL(cudaEventQuery, (event)), NULL, event,
				 false, 0);
}

SHIM_API cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
	shim_resolve();
	SHIM_WATCH(shim_validate_stream_destroyed(stream));
	return REAL(cudaStreamDestroy, (stream));
}

SHIM_API cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags)
{
	shim_resolve();
	SHIM_WATCH(shim_validate_event_record(event, stream));
	return REAL(cudaEventRecordWithFlags, (event, stream, flags));
}

SHIM_API cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
	shim_resolve();
	SHIM_WATCH(shim_validate_wait_event(stream, event));
	return REAL(cudaStreamWaitEvent, (stream, event, flags));
}

/* A host function run in stream order can tell the host (or another stream's work, through
 * the host) that the stream got there: an ordering validate mode does not follow. */
SHIM_API cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *data)
{
	shim_resolve();
	SHIM_WATCH(shim_validate_foreign());
	if (__builtin_expect(shim_resolving(), 0))
		shim_busy_host_fn(stream);
	return REAL(cudaLaunchHostFunc, (stream, fn, data));
}

SHIM_API cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t fn, void *data,
					   unsigned int flags)
{
	shim_resolve();
	SHIM_WATCH(shim_validate_foreign());
	if (__builtin_expect(shim_resolving(), 0))
		shim_busy_host_fn(stream);
	return REAL(cudaStreamAddCallback, (stream, fn, data, flags));
}
