/*
 * Stream time, for validate mode: a happens-before model of the program's GPU work, so a
 * window counts only the launches that could touch the pair's buffer and closes once the
 * host has waited for exactly those.
 *
 * Every operation on a stream gets a stamp (the stream's slot and its number there). Each
 * stream keeps two vector clocks over the slots: `must`, the operations certainly finished
 * before its next one starts (its own, the events it waited for, the legacy stream's
 * barrier for a stream created blocking, what the host had waited for when it issued), and
 * `may`, the operations that might be (the same, plus every ordering this file cannot see
 * exactly: an event the table lost, a stream the shim did not see created, the implicit
 * synchronization of allocations and frees). The host keeps the same two clocks of what
 * its waits told it. A launch may read a buffer an earlier copy wrote only if the copy is
 * in the launch's `may`; a window closes only on what the host `must` know. Either error
 * makes validation stricter, never looser.
 *
 * Slot 0 is the legacy default stream; the streams past the table share the last slot, whose
 * work only a device synchronize is known to finish. Every function here runs under
 * shim_lock.
 */
#include <stdint.h>
#include <string.h>

#include "shim.h"

#define MAX_STREAMS SHIM_MAX_STREAMS
#define OVERFLOW_SLOT (MAX_STREAMS - 1)
#define MAX_EVENTS 256

static cudaStream_t streams[MAX_STREAMS]; /* slot -> stream; slot 0 is the legacy stream */
static int nstreams = 1;
static bool known[MAX_STREAMS];    /* created through a hook: its orderings are all seen */
static bool blocking[MAX_STREAMS]; /* created without cudaStreamNonBlocking */
static unsigned long seq[MAX_STREAMS];
static struct shim_clock must[MAX_STREAMS], may[MAX_STREAMS];
static struct shim_clock host_must, host_may;
static bool foreign; /* the program ordered work in a way this file does not model */

static struct {
	cudaEvent_t event;
	struct shim_clock must, may; /* the recording stream's clocks at the record */
} events[MAX_EVENTS];
static int next_event;

static void join(struct shim_clock *a, const struct shim_clock *b)
{
	for (int i = 0; i < MAX_STREAMS; i++)
		if (b->at[i] > a->at[i])
			a->at[i] = b->at[i];
}

static void join_all(struct shim_clock *a)
{
	for (int i = 0; i < MAX_STREAMS; i++)
		if (seq[i] > a->at[i])
			a->at[i] = seq[i];
}

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

/* Whether the legacy stream's implicit barrier orders slot i: certainly (created blocking),
 * or possibly (not seen created). */
static bool barrier_must(int i) { return known[i] && blocking[i]; }
static bool barrier_may(int i) { return !known[i] || blocking[i]; }

/* The host issues an operation on slot: it starts after what the host has waited for, and
 * on the legacy stream after the blocking streams' earlier work (on a blocking stream, after
 * the legacy stream's). */
static struct shim_stamp issue(int slot)
{
	join(&must[slot], &host_must);
	join(&may[slot], &host_may);
	for (int i = 0; i < MAX_STREAMS; i++) {
		if (i == slot || (slot != 0 && i != 0))
			continue;
		int other = slot == 0 ? i : slot; /* the non-legacy stream of the two */
		/* A stream's clocks hold its own operations (must: but for the overflow slot's,
		 * which barrier_must never names). */
		if (barrier_must(other))
			join(&must[slot], &must[i]);
		if (barrier_may(other))
			join(&may[slot], &may[i]);
	}
	seq[slot]++;
	may[slot].at[slot] = seq[slot];
	/* Streams sharing the overflow slot are not one FIFO: nothing there is known. */
	if (slot != OVERFLOW_SLOT)
		must[slot].at[slot] = seq[slot];
	return (struct shim_stamp){.slot = slot, .seq = seq[slot]};
}

struct shim_stamp shim_stream_op(cudaStream_t s)
{
	return issue(slot_of(s));
}

/* An operation on s, and what is certainly done once it is: what a host that waits for it
 * learns. */
struct shim_stamp shim_stream_op_waited(cudaStream_t s, struct shim_clock *done)
{
	struct shim_stamp at = issue(slot_of(s));
	*done = must[at.slot];
	return at;
}

/* Whether the operation at `later` (just issued) may run after the one at c, so may see what
 * it wrote. A zero stamp (no such operation yet) comes before everything. */
bool shim_stream_may_follow(struct shim_stamp c, struct shim_stamp later)
{
	if (c.seq == 0 || foreign || later.slot == c.slot || !known[later.slot])
		return true;
	return may[later.slot].at[c.slot] >= c.seq;
}

/* Whether the host certainly knows the operation at c finished. */
bool shim_stream_done(struct shim_stamp c)
{
	return c.seq == 0 || host_must.at[c.slot] >= c.seq;
}

/* Whether the host certainly knows every operation in upto (a seq per slot) finished. */
bool shim_stream_all_done(const unsigned long upto[MAX_STREAMS])
{
	for (int i = 0; i < MAX_STREAMS; i++)
		if (upto[i] > host_must.at[i])
			return false;
	return true;
}

void shim_stream_created(cudaStream_t s, bool is_blocking)
{
	int slot = slot_of(s);
	if (slot == OVERFLOW_SLOT || slot == 0)
		return;
	known[slot] = true;
	blocking[slot] = is_blocking;
}

/* The stream is destroyed: its handle may come back for a new stream, which must not
 * inherit this one's place in time. Its slot stays, under no handle. */
void shim_stream_destroyed(cudaStream_t s)
{
	for (int i = 1; i < nstreams && i < OVERFLOW_SLOT; i++)
		if (streams[i] == s)
			streams[i] = SHIM_ANY_STREAM;
}

/* The host waited for s (a stream synchronize, or a query that said done). */
void shim_host_waited_stream(cudaStream_t s)
{
	int slot = slot_of(s);
	join(&host_may, &may[slot]);
	if (slot != OVERFLOW_SLOT)
		join(&host_must, &must[slot]);
}

/* The host waited for an operation whose done clock it kept (shim_stream_op_waited). */
void shim_host_waited_op(struct shim_stamp at, const struct shim_clock *done)
{
	join(&host_may, &may[at.slot]);
	join(&host_must, done);
}

void shim_host_waited_device(void)
{
	join_all(&host_must);
	join_all(&host_may);
}

/* The host made a call that may order streams in ways not modeled here (an allocation, a
 * free, a synchronous memset): later work may follow all earlier work. */
void shim_stream_barrier(void)
{
	join_all(&host_may);
}

/* From now on, every launch may follow every copy: the program orders work by means this
 * file does not model (host callbacks, the driver's own waits). */
void shim_stream_foreign(void)
{
	foreign = true;
}

static int event_index(cudaEvent_t e)
{
	for (int i = 0; i < MAX_EVENTS; i++)
		if (e != NULL && events[i].event == e)
			return i;
	return -1;
}

void shim_event_record(cudaEvent_t e, cudaStream_t s)
{
	struct shim_stamp at = shim_stream_op(s);
	int i = event_index(e);
	if (i < 0) {
		i = next_event;
		next_event = (next_event + 1) % MAX_EVENTS;
		events[i].event = e;
	}
	events[i].must = must[at.slot];
	events[i].may = may[at.slot];
}

/* The event is destroyed: its handle may come back for another event. */
void shim_event_forget(cudaEvent_t e)
{
	int i = event_index(e);
	if (i >= 0)
		events[i].event = NULL;
}

/* The event completed (a synchronize, or a query that said done). An event the table does
 * not hold tells the host nothing certain, and may have followed anything. */
void shim_host_waited_event(cudaEvent_t e)
{
	int i = event_index(e);
	if (i < 0) {
		join_all(&host_may);
		return;
	}
	join(&host_must, &events[i].must);
	join(&host_may, &events[i].may);
}

/* s waits for the event: its later work follows what the event recorded. */
void shim_stream_wait_event(cudaStream_t s, cudaEvent_t e)
{
	struct shim_stamp at = shim_stream_op(s);
	int i = event_index(e);
	if (i < 0) {
		join_all(&may[at.slot]);
		return;
	}
	join(&may[at.slot], &events[i].may);
	if (at.slot != OVERFLOW_SLOT)
		join(&must[at.slot], &events[i].must);
}
