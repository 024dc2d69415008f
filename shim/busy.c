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
 */
#include "shim.h"

#define MAX_BUSY 32

static struct {
	cudaStream_t stream;
	unsigned long issued, waited;
} streams[MAX_BUSY];
static int nstreams;
static unsigned long elsewhere_issued, elsewhere_waited; /* streams this file cannot place */
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
