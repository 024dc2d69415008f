/* Events: a marker in a stream that completes when the work before it has, with a timestamp. */
#include <stdlib.h>
#include <time.h>

#include "internal.h"

struct emu_event {
	unsigned flags;
	bool recorded, fired, destroyed;
	uint64_t generation; /* of the latest record; older markers no longer count */
	unsigned pending;    /* markers still queued; the event is freed only when none are */
	struct emu_stream *stream;
	uint64_t target;
	struct timespec when;
	struct emu_event *next;
};

static struct emu_event *events; /* live events, guarded by emu_sched_lock */

void emu_event_fire(struct emu_event *e, uint64_t generation)
{
	if (e->generation == generation) {
		clock_gettime(CLOCK_MONOTONIC, &e->when);
		e->fired = true;
	}
	if (--e->pending == 0 && e->destroyed)
		free(e);
}

/* Validates a handle. Caller holds emu_sched_lock. */
static struct emu_event *live(cudaEvent_t handle)
{
	for (struct emu_event *e = events; e; e = e->next)
		if (e == (struct emu_event *)handle)
			return e;
	return NULL;
}

static cudaError_t create_event(cudaEvent_t *event, unsigned int flags)
{
	cudaError_t err = emu_ok();
	if (err)
		return err;
	unsigned known = cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
	if (!event || flags & ~known ||
	    (flags & cudaEventInterprocess && !(flags & cudaEventDisableTiming)))
		return emu_fail(cudaErrorInvalidValue);
	struct emu_event *e = calloc(1, sizeof *e);
	if (!e)
		return emu_fail(cudaErrorMemoryAllocation);
	e->flags = flags;
	pthread_mutex_lock(&emu_sched_lock);
	e->next = events;
	events = e;
	pthread_mutex_unlock(&emu_sched_lock);
	*event = (cudaEvent_t)e;
	return cudaSuccess;
}

EMU_API cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
	return create_event(event, flags);
}

EMU_API cudaError_t cudaEventCreate(cudaEvent_t *event)
{
	return create_event(event, cudaEventDefault);
}

EMU_API cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
	cudaError_t err = emu_ok();
	if (err)
		return err;
	struct emu_stream *s = emu_stream_resolve(stream);
	struct emu_op *op = emu_op_new(OP_EVENT);
	if (!op)
		return emu_fail(cudaErrorMemoryAllocation);
	pthread_mutex_lock(&emu_sched_lock);
	struct emu_event *e = live(event);
	if (!e || !s) {
		pthread_mutex_unlock(&emu_sched_lock);
		free(op);
		return emu_fail(cudaErrorInvalidResourceHandle);
	}
	e->generation++;
	e->recorded = true;
	e->fired = false;
	e->pending++;
	op->u.record.event = e;
	op->u.record.generation = e->generation;
	e->target = emu_enqueue_locked(s, op);
	e->stream = s;
	pthread_mutex_unlock(&emu_sched_lock);
	return cudaSuccess;
}

EMU_API cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
	cudaError_t err = emu_ok();
	if (err)
		return err;
	if (flags)
		return emu_fail(cudaErrorInvalidValue);
	struct emu_stream *s = emu_stream_resolve(stream);
	struct emu_op *op = emu_op_new(OP_WAIT);
	if (!op)
		return emu_fail(cudaErrorMemoryAllocation);
	pthread_mutex_lock(&emu_sched_lock);
	struct emu_event *e = live(event);
	if (!e || !s) {
		err = cudaErrorInvalidResourceHandle;
	} else if (e->recorded) {
		op->wait_stream = e->stream;
		op->wait_target = e->target;
		emu_enqueue_locked(s, op);
		op = NULL;
	}
	pthread_mutex_unlock(&emu_sched_lock);
	free(op);
	return emu_fail(err);
}

EMU_API cudaError_t cudaEventQuery(cudaEvent_t event)
{
	cudaError_t err = emu_ok();
	if (err)
		return err;
	pthread_mutex_lock(&emu_sched_lock);
	struct emu_event *e = live(event);
	if (!e)
		err = emu_fail(cudaErrorInvalidResourceHandle);
	else if (e->recorded && !e->fired)
		err = cudaErrorNotReady; /* an answer, not an error */
	pthread_mutex_unlock(&emu_sched_lock);
	return err;
}

EMU_API cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
	cudaError_t err = emu_ok();
	if (err)
		return err;
	pthread_mutex_lock(&emu_sched_lock);
	struct emu_event *e = live(event);
	if (!e) {
		pthread_mutex_unlock(&emu_sched_lock);
		return emu_fail(cudaErrorInvalidResourceHandle);
	}
	uint64_t generation = e->generation;
	while (e->recorded && !e->fired && e->generation == generation)
		pthread_cond_wait(&emu_progress, &emu_sched_lock);
	pthread_mutex_unlock(&emu_sched_lock);
	return cudaSuccess;
}

EMU_API cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
	cudaError_t err = emu_ok();
	if (err)
		return err;
	if (!ms)
		return emu_fail(cudaErrorInvalidValue);
	pthread_mutex_lock(&emu_sched_lock);
	struct emu_event *a = live(start), *b = live(end);
	if (!a || !b || (a->flags | b->flags) & cudaEventDisableTiming)
		err = cudaErrorInvalidResourceHandle;
	else if (!a->recorded || !b->recorded)
		err = cudaErrorInvalidResourceHandle;
	else if (!a->fired || !b->fired)
		err = cudaErrorNotReady;
	else
		*ms = (float)((double)(b->when.tv_sec - a->when.tv_sec) * 1e3 +
			      (double)(b->when.tv_nsec - a->when.tv_nsec) / 1e6);
	pthread_mutex_unlock(&emu_sched_lock);
	return emu_fail(err);
}

EMU_API cudaError_t cudaEventDestroy(cudaEvent_t event)
{
	cudaError_t err = emu_ok();
	if (err)
		return err;
	pthread_mutex_lock(&emu_sched_lock);
	struct emu_event *e = live(event);
	if (e) {
		for (struct emu_event **pp = &events; *pp; pp = &(*pp)->next)
			if (*pp == e) {
				*pp = e->next;
				break;
			}
		e->destroyed = true;
		if (e->pending == 0)
			free(e);
	}
	pthread_mutex_unlock(&emu_sched_lock);
	return e ? cudaSuccess : emu_fail(cudaErrorInvalidResourceHandle);
}
