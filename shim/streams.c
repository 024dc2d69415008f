/*
 * Stream time, for validate mode: which stream a launch or a synchronization concerns, so a
 * window that GPU work on some streams keeps open closes only once every one of those
 * streams has been waited for (a stream synchronize, an event recorded after its launches
 * and waited for or found complete, a device synchronize). Streams get a slot of a bit each;
 * slot 0 is the legacy default stream, and the streams past the table share the last slot,
 * which only a device synchronize clears. A blocking stream (created without
 * cudaStreamNonBlocking) is also covered by an operation on the legacy stream, which waits for
 * its earlier work: a synchronous copy, when nothing was launched there meanwhile. Every
 * function here runs under shim_lock.
 */
#include <stdint.h>

#include "shim.h"

#define MAX_STREAMS SHIM_MAX_STREAMS

#define OVERFLOW_SLOT (MAX_STREAMS - 1)
#define MAX_EVENTS 256

static cudaStream_t streams[MAX_STREAMS]; /* slot -> stream; slot 0 is the legacy stream */
static int nstreams = 1;
static unsigned long launches[MAX_STREAMS]; /* launches seen per slot */
static bool blocking[MAX_STREAMS];          /* created blocking; unknown streams are not */

static struct {
	cudaEvent_t event;
	int slot;
	unsigned long launches; /* the slot's launches when the event was recorded */
} events[MAX_EVENTS];
static int next_event;

static int slot_of(cudaStream_t s)
{
	if (s == NULL || s == cudaStreamLegacy)
		return 0;
	if (s == SHIM_ANY_STREAM)
		return OVERFLOW_SLOT;
	for (int i = 1; i < nstreams; i++)
		if (streams[i] == s)
			return i;
	if (nstreams == OVERFLOW_SLOT)
		return OVERFLOW_SLOT;
	streams[nstreams] = s;
	return nstreams++;
}

uint64_t shim_stream_bit(cudaStream_t s)
{
	return 1ull << slot_of(s);
}

uint64_t shim_stream_launch(cudaStream_t s)
{
	int slot = slot_of(s);
	launches[slot]++;
	return 1ull << slot;
}

void shim_stream_created(cudaStream_t s, bool is_blocking)
{
	int slot = slot_of(s);
	if (slot != OVERFLOW_SLOT && slot != 0)
		blocking[slot] = is_blocking;
}

/* The launch counts of the blocking streams, when a legacy-stream operation is issued. */
void shim_legacy_snapshot(unsigned long snap[MAX_STREAMS])
{
	for (int i = 0; i < nstreams; i++)
		snap[i] = launches[i];
}

/* What a legacy-stream operation issued at snap covers once done: the legacy stream, and the
 * blocking streams nothing was launched on since. */
uint64_t shim_legacy_covers(const unsigned long snap[MAX_STREAMS])
{
	uint64_t covered = 1;
	for (int i = 1; i < nstreams && i < OVERFLOW_SLOT; i++)
		if (blocking[i] && launches[i] == snap[i])
			covered |= 1ull << i;
	return covered;
}

/* What waiting for s covers: its own slot, nothing for a stream sharing the overflow slot. */
uint64_t shim_stream_synced(cudaStream_t s)
{
	int slot = slot_of(s);
	return slot == OVERFLOW_SLOT ? 0 : 1ull << slot;
}

void shim_event_record(cudaEvent_t e, cudaStream_t s)
{
	int slot = slot_of(s);
	for (int i = 0; i < MAX_EVENTS; i++)
		if (events[i].event == e) {
			events[i].slot = slot, events[i].launches = launches[slot];
			return;
		}
	events[next_event].event = e;
	events[next_event].slot = slot, events[next_event].launches = launches[slot];
	next_event = (next_event + 1) % MAX_EVENTS;
}

/* The event is destroyed: its handle may come back for another event. */
void shim_event_forget(cudaEvent_t e)
{
	for (int i = 0; i < MAX_EVENTS; i++)
		if (events[i].event == e)
			events[i].event = NULL;
}

/* The event completed: it covers its stream when nothing was launched there since it was
 * recorded. An event the table no longer holds covers nothing. */
uint64_t shim_event_synced(cudaEvent_t e)
{
	for (int i = 0; i < MAX_EVENTS; i++)
		if (events[i].event == e && e != NULL) {
			int slot = events[i].slot;
			return slot != OVERFLOW_SLOT && launches[slot] == events[i].launches ? 1ull << slot : 0;
		}
	return 0;
}
