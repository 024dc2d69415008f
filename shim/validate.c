/*
 * Validate mode (paper §3.3.1): the program runs as written, with separate buffers, while
 * the shim watches each candidate pair's host buffer with page protection in the windows
 * where merging would change what the program reads or writes:
 *
 *   input pair  from the H2D copy until the host has waited for every launch that may read
 *               what it copied (streams.c: on its stream, or ordered after it by an event,
 *               the legacy stream's barrier or a host wait), the device copy may still be
 *               read by GPU work: a host write there would reach it once merged (S1); then
 *               the device copy must still equal the host buffer, or a kernel updated the
 *               input in place;
 *   output pair from a launch (or a device memset) that may follow the last D2H copy until
 *               the next D2H copy, the host must not touch the buffer (merged, it would see
 *               results, or the memset's values, early); after the copy it may read them, but
 *               a write would reach the device's copy (a pair copied both ways may be
 *               rewritten then, before its next H2D copy).
 *
 * An asynchronous D2H copy writes the host buffer until the host has waited for it: the
 * buffer stays open until then, and closes for reading, or for everything if work that may
 * write the output was launched meanwhile (the output is due again).
 *
 * Launches that cannot follow a copy are left out because, in the program as written, such
 * a launch touching the copy's device buffer would race with the copy: validation takes the
 * program's own ordering to be free of such races.
 *
 * A fault in a window refuses the pair, records the instruction, unprotects the buffer and
 * lets the program go on; a fault anywhere else goes to the program's own handler.
 */
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "shim.h"

void __libc_free(void *);
void *__libc_malloc(size_t);

static struct sigaction previous;
static uintptr_t page_size;

static uintptr_t floor_page(uintptr_t a) { return a & ~(page_size - 1); }
static uintptr_t ceil_page(uintptr_t a) { return (a + page_size - 1) & ~(page_size - 1); }

static void refuse(struct pair *p, const char *reason, uintptr_t pc)
{
	if (p->validate.verdict.refused)
		return;
	p->validate.verdict.refused = true;
	p->validate.verdict.pc = pc;
	p->validate.verdict.ns = shim_uptime_ns();
	p->validate.verdict.copies = p->copies;
	strncpy(p->validate.verdict.reason, reason, sizeof p->validate.verdict.reason - 1);
}

/* Sets the protection of p's host buffer (-1: none, read and write). */
static void protect(struct pair *p, int prot)
{
	if (!p->validate.host_ptr || p->validate.verdict.refused || p->validate.window == prot)
		return;
	uintptr_t lo = (uintptr_t)p->validate.host_ptr, hi = lo + p->bytes;
	if (!p->validate.owned && (lo != floor_page(lo) || hi != ceil_page(hi))) {
		refuse(p, "the host buffer shares memory pages with other data, so it cannot be watched", 0);
		return;
	}
	if (mprotect((void *)floor_page(lo), ceil_page(hi) - floor_page(lo),
		     prot < 0 ? PROT_READ | PROT_WRITE : prot) == 0)
		p->validate.window = prot;
}

static uintptr_t fault_pc(void *uc, bool *write)
{
	ucontext_t *u = uc;
#if defined(__x86_64__)
	*write = u->uc_mcontext.gregs[REG_ERR] & 2;
	return (uintptr_t)u->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
	*write = false; /* the fault's direction is not told apart here */
	return (uintptr_t)u->uc_mcontext.pc;
#else
	(void)u;
	*write = false;
	return 0;
#endif
}

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	uintptr_t a = (uintptr_t)si->si_addr;
	for (int i = 0; i < shim_plan.npairs; i++) {
		struct pair *p = &shim_plan.pairs[i];
		uintptr_t lo = (uintptr_t)p->validate.host_ptr;
		if (!p->validate.host_ptr || p->validate.window < 0 || a < floor_page(lo) || a >= ceil_page(lo + p->bytes))
			continue;
		bool write;
		uintptr_t pc = fault_pc(uc, &write);
		if (p->validate.window == PROT_NONE)
			refuse(p, "the host touches the output buffer between a kernel launch or memset and the copy that "
				  "brings the results: merged, it would see them early", pc);
		else if (p->input && !p->output)
			refuse(p, "the host writes the input buffer while its device copy may still be read by later "
				  "GPU work (S1): merged, the GPU would see the new data", pc);
		else
			refuse(p, "the host writes the output buffer after reading it: merged, the write would reach "
				  "the device's copy", pc);
		p->validate.window = 0; /* force the unprotect below */
		mprotect((void *)floor_page(lo), ceil_page(lo + p->bytes) - floor_page(lo), PROT_READ | PROT_WRITE);
		p->validate.window = -1;
		return;
	}
	/* Not ours: the program's own handler, or the default action when the access retries. */
	if (previous.sa_flags & SA_SIGINFO && previous.sa_sigaction) {
		previous.sa_sigaction(sig, si, uc);
	} else if (previous.sa_handler != SIG_IGN && previous.sa_handler != SIG_DFL && previous.sa_handler) {
		previous.sa_handler(sig);
	} else {
		sigaction(SIGSEGV, &previous, NULL);
	}
}

void shim_validate_init(void)
{
	page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &previous);
}

/* A page-aligned host buffer the shim owns, so protecting it touches nothing else. */
void *shim_validate_host_buffer(size_t bytes)
{
	void *p = mmap(NULL, ceil_page(bytes), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

/* The program frees a watched host buffer: stop watching; release it if the shim made it. */
bool shim_validate_free(void *ptr)
{
	bool owned = false;
	pthread_mutex_lock(&shim_lock);
	for (int i = 0; i < shim_plan.npairs; i++) {
		struct pair *p = &shim_plan.pairs[i];
		if (p->validate.host_ptr != ptr)
			continue;
		protect(p, -1);
		p->validate.window = -1;
		owned = p->validate.owned;
		if (owned)
			munmap(ptr, ceil_page(p->bytes));
		p->validate.host_ptr = NULL;
		p->host_freed = true;
	}
	pthread_mutex_unlock(&shim_lock);
	return owned;
}

/* A copy is about to run: the runtime must be able to write the host buffers it copies to. */
void shim_validate_before_copy(void *dst, size_t n)
{
	pthread_mutex_lock(&shim_lock);
	for (int i = 0; i < shim_plan.npairs; i++) {
		struct pair *p = &shim_plan.pairs[i];
		uintptr_t d = (uintptr_t)dst, h = (uintptr_t)p->validate.host_ptr;
		if (p->validate.host_ptr && d >= h && d + n <= h + p->bytes)
			protect(p, -1);
	}
	pthread_mutex_unlock(&shim_lock);
}

/* Whether work issued at `at` may follow one of the copies in c (a stamp per piece; pieces
 * never copied are left out). */
static bool follows_a_copy(const struct pair *p, const struct shim_stamp c[MAX_CHUNKS], struct shim_stamp at)
{
	for (int k = 0; k <= p->nchunks; k++)
		if (c[k].seq && shim_stream_may_follow(c[k], at))
			return true;
	return false;
}

/* Whether a D2H copy may still be writing some piece of p's host buffer. */
static bool in_flight(const struct pair *p)
{
	for (int k = 0; k <= p->nchunks; k++)
		if (p->validate.inflight[k].seq)
			return true;
	return false;
}

/* Whether work launched since some piece's D2H copy may have written that piece. */
static bool due(const struct pair *p)
{
	for (int k = 0; k <= p->nchunks; k++)
		if (p->validate.due[k])
			return true;
	return false;
}

/* The protection an output pair's host buffer takes once no D2H copy writes it: kept out
 * while work may have written a piece since its copy, readable otherwise (and writable, for
 * a pair that is also an input). */
static void settle_output(struct pair *p)
{
	if (!in_flight(p))
		protect(p, due(p) ? PROT_NONE : p->input ? -1 : PROT_READ);
}

/* Work issued at `at` may write the pieces of an output whose last D2H copy it may follow: a
 * piece not copied yet is due from any launch (the whole buffer stands for the chunks only
 * where it is copied itself). A launch not ordered after a piece's copy that wrote the piece
 * would race with that copy in the program as written. */
static void output_launched(struct pair *p, struct shim_stamp at)
{
	for (int k = 0; k <= p->nchunks; k++) {
		bool tracked = k > 0 || p->nchunks == 0 || p->validate.out_copy[0].seq;
		if (tracked && (!p->validate.out_copy[k].seq || shim_stream_may_follow(p->validate.out_copy[k], at)))
			p->validate.due[k] = true;
	}
	settle_output(p);
}

/* A launch (or memset, or device-to-device copy) on stream may read the inputs and write the
 * outputs whose copies it may follow: the open input windows wait for it too, and from now
 * until the D2H copy of what it may have written the host keeps out of such an output. */
void shim_validate_launch(cudaStream_t stream)
{
	pthread_mutex_lock(&shim_lock);
	struct shim_stamp at = shim_stream_op(stream);
	for (int i = 0; i < shim_plan.npairs; i++) {
		struct pair *p = &shim_plan.pairs[i];
		if (p->input && p->validate.window == PROT_READ && follows_a_copy(p, p->validate.in_copy, at)) {
			p->validate.launched = true;
			p->validate.pending[at.slot] = at.seq;
		}
		if (p->output && p->validate.dev_ptr)
			output_launched(p, at);
	}
	pthread_mutex_unlock(&shim_lock);
}

/* The host waited for something (streams.c knows what): the D2H copies it finished are
 * done, and the input windows whose launches it all finished close. Caller holds the lock;
 * the pairs whose device copy must now be compared are marked for check_inputs. */
static void sync_locked(void)
{
	for (int i = 0; i < shim_plan.npairs; i++) {
		struct pair *p = &shim_plan.pairs[i];
		if (in_flight(p)) {
			for (int k = 0; k <= p->nchunks; k++)
				if (p->validate.inflight[k].seq && shim_stream_done(p->validate.inflight[k]))
					p->validate.inflight[k].seq = 0;
			settle_output(p);
		}
		if (!p->input || p->output || p->validate.window != PROT_READ || !p->validate.launched ||
		    p->validate.verdict.refused || !shim_stream_all_done(p->validate.pending))
			continue;
		protect(p, -1);
		p->validate.check = true;
	}
}

/* Each closed input's device copy must still hold what the host buffer holds, or a kernel
 * updated it in place. Runs without the lock: reading the device copy back goes through the
 * runtime, whose own threads may call into the shim. */
static void check_inputs(void)
{
	for (int i = 0; i < shim_plan.npairs; i++) {
		struct pair *p = &shim_plan.pairs[i];
		if (!__atomic_exchange_n(&p->validate.check, false, __ATOMIC_ACQ_REL))
			continue;
		if (!p->validate.scratch)
			p->validate.scratch = __libc_malloc(p->bytes);
		if (p->validate.scratch &&
		    REAL(cudaMemcpy, (p->validate.scratch, p->validate.dev_ptr, p->bytes, cudaMemcpyDeviceToHost)) == cudaSuccess &&
		    memcmp(p->validate.scratch, p->validate.host_ptr, p->bytes) != 0) {
			pthread_mutex_lock(&shim_lock);
			refuse(p, "a kernel updates the device copy of the input in place: merged, the host buffer "
				  "would change under the program", 0);
			pthread_mutex_unlock(&shim_lock);
		}
	}
}

/* The host waited, as wait tells streams.c under the lock; then the windows that closed. */
#define SYNCED(wait)                             \
	do {                                     \
		pthread_mutex_lock(&shim_lock);  \
		wait;                            \
		sync_locked();                   \
		pthread_mutex_unlock(&shim_lock); \
		check_inputs();                  \
	} while (0)

void shim_validate_sync(void)
{
	SYNCED(shim_host_waited_device());
}

void shim_validate_stream_sync(cudaStream_t stream)
{
	SYNCED(shim_host_waited_stream(stream));
}

void shim_validate_event_sync(cudaEvent_t event)
{
	SYNCED(shim_host_waited_event(event));
}

/* What streams.c is told, under the lock. */
#define LOCKED(stmt)                             \
	do {                                     \
		pthread_mutex_lock(&shim_lock);  \
		stmt;                            \
		pthread_mutex_unlock(&shim_lock); \
	} while (0)

void shim_validate_event_record(cudaEvent_t event, cudaStream_t stream)
{
	LOCKED(shim_event_record(event, stream));
}

void shim_validate_event_destroyed(cudaEvent_t event)
{
	LOCKED(shim_event_forget(event));
}

void shim_validate_stream_created(cudaStream_t stream, bool blocking)
{
	LOCKED(shim_stream_created(stream, blocking));
}

void shim_validate_stream_destroyed(cudaStream_t stream)
{
	LOCKED(shim_stream_destroyed(stream));
}

void shim_validate_wait_event(cudaStream_t stream, cudaEvent_t event)
{
	LOCKED(shim_stream_wait_event(stream, event));
}

void shim_validate_barrier(void)
{
	LOCKED(shim_stream_barrier());
}

void shim_validate_foreign(void)
{
	LOCKED(shim_stream_foreign());
}

/* Whether p is a host buffer validate mode watches. Lock-free: every free asks. */
bool shim_validate_watched(const void *p)
{
	for (int i = 0; i < shim_plan.npairs; i++)
		if (p && __atomic_load_n(&shim_plan.pairs[i].validate.host_ptr, __ATOMIC_ACQUIRE) == p)
			return true;
	return false;
}

/* An H2D linking copy (either kind) of piece k, issued at `at`, opens its input's window:
 * from now, until the host has waited for the launches that may follow it, a host write is
 * S1. The launches an open window already waits for stay pending: they may still run. */
static void input_copied(struct pair *p, int k, struct shim_stamp at)
{
	p->copies++;
	p->validate.in_copy[k] = at;
	p->validate.launched = false;
	if (p->validate.window != PROT_READ)
		memset(p->validate.pending, 0, sizeof p->validate.pending);
	protect(p, PROT_READ);
}

/* A D2H linking copy of piece k, issued at `at`: it brings whatever was due in that piece
 * (and in the chunks inside it); in flight, it writes the host buffer until the host has
 * waited for it (sync_locked), which stays open until then. */
static void output_copied(struct pair *p, int k, struct shim_stamp at, bool in_flight_now)
{
	p->copies++;
	p->validate.out_copy[k] = at;
	for (int j = 0; j <= p->nchunks; j++)
		if (p->chunk[j].offset >= p->chunk[k].offset &&
		    p->chunk[j].offset + p->chunk[j].bytes <= p->chunk[k].offset + p->chunk[k].bytes)
			p->validate.due[j] = false;
	if (in_flight_now)
		p->validate.inflight[k] = at;
	else
		settle_output(p);
}

/* The piece of p a copy between dev and host of n bytes moves, -1 if none: the same offset
 * into both buffers, where the plan has a piece. */
static int piece_of(const struct pair *p, const void *dev, const void *host, size_t n)
{
	uintptr_t d = (uintptr_t)dev, h = (uintptr_t)host;
	uintptr_t dp = (uintptr_t)p->validate.dev_ptr, hp = (uintptr_t)p->validate.host_ptr;
	if (!p->validate.host_ptr || !p->validate.dev_ptr || d < dp || h < hp || d - dp != h - hp)
		return -1;
	return shim_piece(p, d - dp, n);
}

/* A copy the host waits for is issued on `on` (a synchronous one on the legacy stream or a
 * per-thread default stream, or one to pageable memory on its stream): its place in stream
 * time, and in done what its return tells the host. */
struct shim_stamp shim_validate_copy_issue(cudaStream_t on, struct shim_clock *done)
{
	pthread_mutex_lock(&shim_lock);
	struct shim_stamp at = shim_stream_op_waited(on, done);
	pthread_mutex_unlock(&shim_lock);
	return at;
}

/* Caller holds the lock: a linking copy issued at `at` opens the window of its pair. A D2H
 * copy still in flight (an asynchronous one to page-locked memory) writes the host buffer
 * until the host has waited for it. */
static void copied(void *dst, const void *src, size_t n, struct shim_stamp at, bool in_flight_now)
{
	for (int i = 0; i < shim_plan.npairs; i++) {
		struct pair *p = &shim_plan.pairs[i];
		int k;
		if ((k = piece_of(p, dst, src, n)) >= 0)
			input_copied(p, k, at);
		else if ((k = piece_of(p, src, dst, n)) >= 0)
			output_copied(p, k, at, in_flight_now);
	}
}

/* A synchronous copy issued at `at` returned, having waited for done (NULL for a device to
 * device copy, which waits for nothing). */
void shim_validate_copy_done(void *dst, const void *src, size_t n, struct shim_stamp at,
			     const struct shim_clock *done)
{
	pthread_mutex_lock(&shim_lock);
	if (done) {
		shim_host_waited_op(at, done);
		sync_locked();
	}
	copied(dst, src, n, at, false);
	pthread_mutex_unlock(&shim_lock);
	check_inputs();
}

/* An asynchronous copy was issued on stream: an H2D linking copy opens its input's window at
 * once (the copy only reads the host buffer); a D2H one is in flight, unless it completes
 * (to pageable memory): then it is done, and waited for the stream's earlier work, as a
 * synchronous copy on that stream. */
void shim_validate_async_copy(void *dst, const void *src, size_t n, cudaStream_t stream, bool completes)
{
	if (completes) {
		struct shim_clock done;
		shim_validate_copy_done(dst, src, n, shim_validate_copy_issue(stream, &done), &done);
		return;
	}
	pthread_mutex_lock(&shim_lock);
	copied(dst, src, n, shim_stream_op(stream), true);
	pthread_mutex_unlock(&shim_lock);
}
