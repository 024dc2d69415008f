/*
 * Streams: a FIFO of operations per stream, executed in order by the stream's own worker
 * thread. Cross-stream ordering (the legacy default stream's implicit barriers, event waits)
 * is an OP_WAIT placed in the waiting stream's FIFO, so a worker never runs ahead of what
 * the CUDA programming model promises, and never behind it either.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct emu_stream {
	bool legacy;
	bool blocking; /* orders with the legacy stream */
	bool stopping;
	pthread_t thread;
	pthread_cond_t work;
	struct emu_op *head, *tail;
	uint64_t enq, done;
	struct emu_bounce bounce; /* the worker's alone: pageable copies are staged through it */
	struct emu_stream *next;
};

pthread_mutex_t emu_sched_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t emu_progress = PTHREAD_COND_INITIALIZER;

static struct emu_stream *streams; /* every live stream, the legacy one included */
static struct emu_stream *legacy;
static pthread_once_t legacy_once = PTHREAD_ONCE_INIT;
static __thread struct emu_stream *per_thread;

struct emu_op *emu_op_new(enum emu_op_kind kind)
{
	struct emu_op *op = calloc(1, sizeof *op);
	if (op)
		op->kind = kind;
	return op;
}

static void run_op(struct emu_stream *s, struct emu_op *op)
{
	switch (op->kind) {
	case OP_COPY:
		emu_copy_run(op, &s->bounce);
		break;
	case OP_COPY2D:
		for (size_t row = 0; row < op->u.copy2d.height; row++)
			memcpy((char *)op->u.copy2d.dst + row * op->u.copy2d.dpitch,
			       (const char *)op->u.copy2d.src + row * op->u.copy2d.spitch,
			       op->u.copy2d.width);
		break;
	case OP_MEMSET:
		memset(op->u.memset.dst, op->u.memset.value, op->u.memset.count);
		break;
	case OP_KERNEL:
		emu_kernel_run(op);
		break;
	case OP_WAIT:
	case OP_EVENT:
		break; /* handled under the lock by the worker */
	}
}

static void *worker(void *arg)
{
	struct emu_stream *s = arg;
	pthread_mutex_lock(&emu_sched_lock);
	for (;;) {
		while (!s->head && !s->stopping)
			pthread_cond_wait(&s->work, &emu_sched_lock);
		struct emu_op *op = s->head;
		if (!op)
			break; /* destroyed and drained */
		s->head = op->next;
		if (!s->head)
			s->tail = NULL;
		if (op->kind == OP_WAIT) {
			while (op->wait_stream->done < op->wait_target)
				pthread_cond_wait(&emu_progress, &emu_sched_lock);
		} else if (op->kind == OP_EVENT) {
			emu_event_fire(op->u.record.event, op->u.record.generation);
		} else {
			pthread_mutex_unlock(&emu_sched_lock);
			run_op(s, op);
			pthread_mutex_lock(&emu_sched_lock);
		}
		s->done++;
		pthread_cond_broadcast(&emu_progress);
		free(op);
	}
	/* Only now leave the list: until its work is done, device syncs and the legacy stream's
	 * implicit barrier must still see it. The struct stays allocated for events. */
	for (struct emu_stream **pp = &streams; *pp; pp = &(*pp)->next)
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	pthread_cond_broadcast(&emu_progress);
	pthread_mutex_unlock(&emu_sched_lock);
	emu_bounce_free(&s->bounce);
	return NULL;
}

static struct emu_stream *stream_start(bool legacy_stream, bool blocking)
{
	struct emu_stream *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->legacy = legacy_stream;
	s->blocking = blocking;
	pthread_cond_init(&s->work, NULL);
	if (pthread_create(&s->thread, NULL, worker, s) != 0) {
		free(s);
		return NULL;
	}
	pthread_detach(s->thread);
	pthread_mutex_lock(&emu_sched_lock);
	s->next = streams;
	streams = s;
	pthread_mutex_unlock(&emu_sched_lock);
	return s;
}

static void legacy_start(void)
{
	legacy = stream_start(true, true);
}

/* Appends op to s. Caller holds the lock. */
static void push(struct emu_stream *s, struct emu_op *op)
{
	op->next = NULL;
	if (s->tail)
		s->tail->next = op;
	else
		s->head = op;
	s->tail = op;
	s->enq++;
	pthread_cond_signal(&s->work);
}

static void push_wait(struct emu_stream *s, struct emu_stream *on, uint64_t target)
{
	struct emu_op *w = emu_op_new(OP_WAIT);
	if (!w)
		abort(); /* a lost ordering would be worse than a crash */
	w->wait_stream = on;
	w->wait_target = target;
	push(s, w);
}

uint64_t emu_enqueue_locked(struct emu_stream *s, struct emu_op *op)
{
	if (s->legacy) {
		for (struct emu_stream *o = streams; o; o = o->next)
			if (o != s && o->blocking && o->done < o->enq)
				push_wait(s, o, o->enq);
	} else if (s->blocking && legacy && legacy->done < legacy->enq) {
		push_wait(s, legacy, legacy->enq);
	}
	push(s, op);
	return s->enq;
}

uint64_t emu_enqueue(struct emu_stream *s, struct emu_op *op)
{
	pthread_mutex_lock(&emu_sched_lock);
	uint64_t target = emu_enqueue_locked(s, op);
	pthread_mutex_unlock(&emu_sched_lock);
	return target;
}

void emu_wait_stream(struct emu_stream *s, uint64_t target)
{
	pthread_mutex_lock(&emu_sched_lock);
	while (s->done < target)
		pthread_cond_wait(&emu_progress, &emu_sched_lock);
	pthread_mutex_unlock(&emu_sched_lock);
}

bool emu_stream_reached(struct emu_stream *s, uint64_t target)
{
	pthread_mutex_lock(&emu_sched_lock);
	bool reached = s->done >= target;
	pthread_mutex_unlock(&emu_sched_lock);
	return reached;
}

void emu_device_sync(void)
{
	pthread_mutex_lock(&emu_sched_lock);
	for (struct emu_stream *s = streams; s; s = s->next) {
		uint64_t target = s->enq;
		while (s->done < target)
			pthread_cond_wait(&emu_progress, &emu_sched_lock);
	}
	pthread_mutex_unlock(&emu_sched_lock);
}

static bool registered(struct emu_stream *want)
{
	for (struct emu_stream *s = streams; s; s = s->next)
		if (s == want)
			return true;
	return false;
}

struct emu_stream *emu_stream_resolve(cudaStream_t handle)
{
	pthread_once(&legacy_once, legacy_start);
	if (handle == NULL || handle == cudaStreamLegacy)
		return legacy;
	if (handle == cudaStreamPerThread) {
		/* The per-thread default stream is an ordinary blocking stream of its own. */
		if (!per_thread)
			per_thread = stream_start(false, true);
		return per_thread;
	}
	struct emu_stream *s = (struct emu_stream *)handle;
	pthread_mutex_lock(&emu_sched_lock);
	bool ok = registered(s) && !s->legacy && !s->stopping && s != per_thread;
	pthread_mutex_unlock(&emu_sched_lock);
	return ok ? s : NULL;
}

/* Public entry points never call each other, so a probe or preload hook on one sees only
 * the program's own calls, as with the real runtime; the driver's cuStreamCreate and
 * cuStreamDestroy come here too (private.c). */
cudaError_t emu_stream_create(cudaStream_t *pStream, unsigned int flags)
{
	cudaError_t err = emu_ok();
	if (err)
		return err;
	if (!pStream || flags & ~(unsigned)cudaStreamNonBlocking)
		return emu_fail(cudaErrorInvalidValue);
	pthread_once(&legacy_once, legacy_start);
	struct emu_stream *s = stream_start(false, !(flags & cudaStreamNonBlocking));
	if (!s)
		return emu_fail(cudaErrorMemoryAllocation);
	*pStream = (cudaStream_t)s;
	return cudaSuccess;
}

EMU_API cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags)
{
	return emu_stream_create(pStream, flags);
}

EMU_API cudaError_t cudaStreamCreate(cudaStream_t *pStream)
{
	return emu_stream_create(pStream, cudaStreamDefault);
}

/* Like the real runtime, destroying a stream returns at once: its queued work still runs,
 * and the worker exits once it has drained. */
EMU_API cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
	return emu_stream_destroy(stream);
}

cudaError_t emu_stream_destroy(cudaStream_t stream)
{
	cudaError_t err = emu_ok();
	if (err)
		return err;
	if (stream == NULL || stream == cudaStreamLegacy || stream == cudaStreamPerThread)
		return emu_fail(cudaErrorInvalidResourceHandle);
	struct emu_stream *s = emu_stream_resolve(stream);
	if (!s)
		return emu_fail(cudaErrorInvalidResourceHandle);
	pthread_mutex_lock(&emu_sched_lock);
	s->stopping = true;
	pthread_cond_signal(&s->work);
	pthread_mutex_unlock(&emu_sched_lock);
	return cudaSuccess;
}

EMU_API cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
	return emu_stream_sync(stream);
}

/* The stream a call names (*s), once the runtime is up, with how much work it has been given
 * (*enq) and has done (*done), read together; else the error the call returns. */
static cudaError_t stream_progress(cudaStream_t stream, struct emu_stream **s, uint64_t *enq, uint64_t *done)
{
	cudaError_t err = emu_ok();
	if (err)
		return err;
	*s = emu_stream_resolve(stream);
	if (!*s)
		return emu_fail(cudaErrorInvalidResourceHandle);
	pthread_mutex_lock(&emu_sched_lock);
	*enq = (*s)->enq, *done = (*s)->done;
	pthread_mutex_unlock(&emu_sched_lock);
	return cudaSuccess;
}

cudaError_t emu_stream_sync(cudaStream_t stream)
{
	struct emu_stream *s;
	uint64_t enq = 0, done = 0;
	cudaError_t err = stream_progress(stream, &s, &enq, &done);
	if (!err)
		emu_wait_stream(s, enq);
	return err;
}

EMU_API cudaError_t cudaStreamQuery(cudaStream_t stream)
{
	struct emu_stream *s;
	uint64_t enq = 0, done = 0;
	cudaError_t err = stream_progress(stream, &s, &enq, &done);
	if (err)
		return err;
	return done == enq ? cudaSuccess : cudaErrorNotReady; /* not-ready is an answer, not an error */
}

EMU_API cudaError_t cudaDeviceSynchronize(void)
{
	const struct emu_driver *drv = emu_driver();
	if (drv)
		return emu_from_driver(drv->ctx_synchronize());
	return emu_device_synchronize();
}

cudaError_t emu_device_synchronize(void)
{
	cudaError_t err = emu_ok();
	if (err)
		return err;
	emu_device_sync();
	return cudaSuccess;
}
