/*
 * Resolve mode: whether the GPU had work the host had not yet waited for when the program
 * made each linking copy. A trace without launch events cannot tell a synchronous copy's
 * transfer from its wait for earlier kernels; the planner then takes the transfer from the
 * rate of other copies, which a large pageable copy (slower per byte than a small one) makes
 * far too short. The shim sees the launches: a copy made while no work was outstanding
 * waited for none, and its whole call moved data.
 *
 * Each stream has the stamp of the last work issued on it (a launch, a memset, an
 * asynchronous copy, a synchronous copy itself) and of the last the host waited for (a
 * synchronize, a query that said done, a synchronous copy on it once returned): it is busy
 * while the first is later. A wait clears only what was issued before it began, so work
 * another thread issues meanwhile stays outstanding. Work this file cannot place (a stream
 * past its table, the per-thread default streams, a launch whose stream the hook cannot
 * read) stays outstanding until a device synchronize, and an event's wait clears nothing.
 * It errs one way only: a copy it calls clean waited for no work the shim saw issued.
 * Launches the shim does not see (an entry point it does not hook) it cannot count, which is
 * why the planner uses a run's verdicts only where the run saw device work at all.
 *
 * The drains before timed copies (hooks_cuda.c) finish work the program itself never waits
 * for there, so they clear nothing of the above; each stream's own stamp of what they
 * finished (settled) says what was still running when the next drain began. Each drain's
 * wait goes to every stream with work running then (shim_busy_drained): over the marked
 * iterations, the most any one stream was drained is the drains' longest chain, what the
 * program's own streams, running beside one another, still wait for one after another
 * (multistream: its second stream's scale and its fold after the first stream's event, two
 * of its three kernels; chunked: one of four). A drain that found nothing running goes to
 * every stream: work the shim did not see issued may have been on any.
 */
#include "shim.h"

#define MAX_BUSY 32

static struct {
	cudaStream_t stream;
	unsigned long issued, waited;
	unsigned long settled;          /* the stamp a drain or a timed copy's wait finished */
	uint64_t drained_ns, marked_ns; /* drains' waits with work on it running; as of the first mark */
} streams[MAX_BUSY + 1];                /* the last: the streams this file cannot place */
static int nstreams;
static unsigned long elsewhere_issued, elsewhere_waited; /* streams this file cannot place */
static uint64_t unplaced_ns, unplaced_marked_ns;         /* drains that found nothing running */
static uint64_t drain_chain_ns;                          /* the longest chain, as of the last mark */
static unsigned long stamps;   /* the clock: every issue takes the next stamp */
static unsigned long launches; /* device work seen (launches, memsets), for the report */
static bool host_fns;          /* a host function was enqueued: draining a stream may wait for the host */

/* The slot of stream s, or -1 for work counted elsewhere. Caller holds the lock. */
static int slot(cudaStream_t s)
{
	if (s == cudaStreamLegacy)
		s = NULL;
	if (s == cudaStreamPerThread || s == SHIM_ANY_STREAM)
		return -1;
	for (int i = 0; i < nstreams; i++)
		if (streams[i].stream == s)
			return i;
	if (nstreams == MAX_BUSY)
		return -1;
	streams[nstreams].stream = s;
	return nstreams++;
}

unsigned long shim_busy_now(void)
{
	return __atomic_load_n(&stamps, __ATOMIC_ACQUIRE);
}

/* Caller holds the lock. */
static unsigned long issue(cudaStream_t s)
{
	unsigned long t = __atomic_add_fetch(&stamps, 1, __ATOMIC_ACQ_REL);
	int i = slot(s);
	if (i < 0)
		elsewhere_issued = t;
	else
		streams[i].issued = t;
	return t;
}

void shim_busy_launch(cudaStream_t s)
{
	pthread_mutex_lock(&shim_lock);
	issue(s);
	launches++;
	pthread_mutex_unlock(&shim_lock);
}

void shim_busy_host_fn(cudaStream_t s)
{
	pthread_mutex_lock(&shim_lock);
	issue(s);
	host_fns = true;
	pthread_mutex_unlock(&shim_lock);
}

bool shim_busy_drainable(void)
{
	return !__atomic_load_n(&host_fns, __ATOMIC_ACQUIRE);
}

unsigned long shim_busy_copy(cudaStream_t s)
{
	pthread_mutex_lock(&shim_lock);
	unsigned long t = issue(s);
	pthread_mutex_unlock(&shim_lock);
	return t;
}

void shim_busy_waited(cudaStream_t s, bool device, unsigned long upto)
{
	pthread_mutex_lock(&shim_lock);
	if (device) {
		for (int i = 0; i < nstreams; i++)
			if (streams[i].waited < upto)
				streams[i].waited = upto;
		if (elsewhere_waited < upto)
			elsewhere_waited = upto;
	} else {
		int i = slot(s);
		if (i >= 0 && streams[i].waited < upto)
			streams[i].waited = upto;
	}
	pthread_mutex_unlock(&shim_lock);
}

/* Caller holds the lock. */
bool shim_busy(void)
{
	if (elsewhere_issued > elsewhere_waited)
		return true;
	for (int i = 0; i < nstreams; i++)
		if (streams[i].issued > streams[i].waited)
			return true;
	return false;
}

unsigned long shim_busy_launches(void)
{
	pthread_mutex_lock(&shim_lock);
	unsigned long n = launches;
	pthread_mutex_unlock(&shim_lock);
	return n;
}

/* Whether work issued on slot i (MAX_BUSY: elsewhere) is still running after the waits and
 * drains so far. Caller holds the lock. */
static bool running(int i)
{
	unsigned long issued = i < MAX_BUSY ? streams[i].issued : elsewhere_issued;
	unsigned long waited = i < MAX_BUSY ? streams[i].waited : elsewhere_waited;
	return issued > waited && issued > streams[i].settled;
}

void shim_busy_drained(unsigned long upto, uint64_t ns)
{
	pthread_mutex_lock(&shim_lock);
	bool any = false;
	for (int i = 0; i <= MAX_BUSY; i++) {
		if (i < MAX_BUSY && i >= nstreams)
			continue;
		if (running(i)) {
			streams[i].drained_ns += ns;
			any = true;
		}
		if (streams[i].settled < upto)
			streams[i].settled = upto;
	}
	if (!any)
		unplaced_ns += ns;
	pthread_mutex_unlock(&shim_lock);
}

void shim_busy_settled(cudaStream_t s, unsigned long upto)
{
	pthread_mutex_lock(&shim_lock);
	int i = slot(s);
	if (i < 0)
		i = MAX_BUSY;
	if (streams[i].settled < upto)
		streams[i].settled = upto;
	pthread_mutex_unlock(&shim_lock);
}

void shim_busy_drain_mark(bool first)
{
	pthread_mutex_lock(&shim_lock);
	uint64_t most = 0;
	for (int i = 0; i <= MAX_BUSY; i++) {
		if (first)
			streams[i].marked_ns = streams[i].drained_ns;
		else if (streams[i].drained_ns - streams[i].marked_ns > most)
			most = streams[i].drained_ns - streams[i].marked_ns;
	}
	if (first)
		unplaced_marked_ns = unplaced_ns;
	else
		drain_chain_ns = most + (unplaced_ns - unplaced_marked_ns);
	pthread_mutex_unlock(&shim_lock);
}

uint64_t shim_busy_drain_chain(void)
{
	pthread_mutex_lock(&shim_lock);
	uint64_t ns = drain_chain_ns;
	pthread_mutex_unlock(&shim_lock);
	return ns;
}
