/*
 * libechoshim: Echo's preload library. Loaded with LD_PRELOAD by `echoctl run`, by validate
 * and calibrate's runs, and wherever a plan directory is served (ECHO_PLAN_DIR), it reads a
 * compact plan (ECHO_PLAN, or the deployment in the directory made for this executable and
 * GPU), checks the plan was made for this program, and acts in the plan's mode: deploy
 * serves each planned pair, measure only times the loop, validate watches each pair's host
 * buffer where a merge would change what is read, resolve finds where the sides the trace
 * missed are allocated. Deployed, a merge gives each side a buffer of the shim's own and
 * joins the two only at the first linking copy between exactly those buffers at a plan's copy
 * site (bind.c); a linking copy after that moves no data but keeps its ordering effect; each
 * side's memory goes at its own free. The pinned strategy merges nothing: it serves a pair's
 * host side from page-locked memory pooled per site, and the copies stay. Anything
 * unexpected switches the shim to passthrough: the program runs untouched, and one line on
 * stderr says why.
 *
 * Hot paths (malloc, free, cudaMemcpy) decide with a few compares whether a call can concern
 * a pair at all; only then do they take the lock and resolve the call site.
 */
#ifndef ECHO_SHIM_H
#define ECHO_SHIM_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cuda_abi.h"

#define SHIM_API __attribute__((visibility("default")))
#define MAX_PAIRS 64
#define MAX_COPIES 8
#define MAX_CHUNKS 17 /* a pair's pieces: [0] the whole buffer, then up to 16 chunks */
/* The largest compact plan the shim reads (planner.MaxCompactBytes): MAX_PAIRS pairs of
 * MAX_CHUNKS pieces whose modules are named by size and a long file name pass 64 KiB. The
 * buffer is static (no malloc before the program runs); its untouched pages cost nothing. */
#define SHIM_MAX_PLAN_BYTES (1 << 20)

/* One return address above an allocation's own, as the planner names it (planner.Frame). */
struct frame {
	char module[96];
	uint64_t offset;
};
#define SHIM_CHAIN 2 /* frames of an allocation's call chain that tell its callers apart */

/* A call site as the planner identifies it (planner.Site). With a call chain, the ordinal
 * counts the calls at the site, of the size, from that chain (chain.c). */
struct site {
	char module[96]; /* build-id in hex, or "size:N:BASENAME" for a module without one */
	uint64_t offset;
	char call[32];
	uint64_t bytes;
	int ordinal;
	int nchain; /* 0: the plan names no chain, the ordinal counts every call of the size */
	struct frame chain[SHIM_CHAIN];
};

/* Validate mode: who an allocation that took a planned slot was, beyond its site (chain.c). */
struct identity {
	bool known;     /* the slot was taken and its chain read */
	int nchain;
	struct frame chain[SHIM_CHAIN];
	int ordinal;    /* among the calls of its site, size and chain */
	int class_id;   /* its (site, size, chain) in chain.c's table, whose count the report gives */
};

enum strategy { STRATEGY_MAPPED, STRATEGY_MANAGED, STRATEGY_SYSTEM, STRATEGY_PINNED };
enum mode { MODE_DEPLOY, MODE_MEASURE, MODE_VALIDATE, MODE_RESOLVE };

/* What validation saw of a pair. */
struct verdict {
	bool refused;
	char reason[200];
	uintptr_t pc;           /* the instruction that made the access, if one did */
	uint64_t ns;            /* when, since the shim started */
	unsigned long copies;   /* the pair's linking copies seen by then */
};

/* What a run saw at one planned allocation site: where the site is in this process (0 while
 * its module is not loaded) and the sizes allocated there, for saying why a plan matched
 * nothing. */
struct sighting {
	uintptr_t at;          /* the planned return address */
	char module[48];       /* the file name of the site's module, for messages */
	unsigned long calls;   /* allocations from it of any size */
	uint64_t other_bytes;  /* the last size allocated there that the plan did not name */
};

/* Resolve mode: what the linking copies of one side of a pair pointed at. */
struct resolved {
	bool found;                /* site is the allocation of the first buffer seen */
	struct site site;          /* with its ordinal */
	bool other_sites;          /* buffers from another site were linked too */
	unsigned long allocations; /* distinct allocations linked, over the run */
	unsigned long last;        /* the serial of the last one */
	unsigned long unmatched;   /* copies whose pointer starts no allocation of the pair's size */
	struct identity ident;     /* the first buffer's call chain and class (chain.c) */
	int thp;                   /* host side: the first buffer's mapping may have huge pages (thp.c); -1 unknown */
};

/* streams.c: an operation's place in stream time, and what is done before a point of it */
#define SHIM_MAX_STREAMS 64 /* the streams validate mode tells apart */
struct shim_stamp {
	int slot;          /* the stream's */
	unsigned long seq; /* the operation's number on it, from 1; 0: none */
};
struct shim_clock {
	unsigned long at[SHIM_MAX_STREAMS]; /* per slot, the operations up to this seq */
};

/* Deploy mode's state of a pair (bind.c). Each side is handed a buffer of the shim's: the
 * host side plain host memory, the device side memory the GPU reaches, which is a memory
 * file's mapping. They become one buffer only at the first linking copy between them, at one
 * of the plan's copy sites (bound): then the host side is mapped onto the device side's file.
 * Until then the GPU reaches none of the program's other memory, whichever allocation took a
 * planned slot. */
struct pair_deploy {
	void *host_buf, *dev_buf;
	size_t map_bytes;       /* both buffers' length: the pair's bytes in whole pages */
	int fd;                 /* the device side's memory file, until bound or freed; -1 none */
	bool host_locked;       /* the host side was page-locked (allocated by CUDA as written) */
	bool bound;             /* one buffer now (atomic) */
	unsigned long elided;   /* linking copies elided (atomic) */
};

/* Validate mode's state of a pair (validate.c): the two buffers, as the program allocated
 * them, and what was done to them in stream time (streams.c). */
struct pair_validate {
	struct identity ident[2]; /* [0] host side, [1] device side */
	void *host_ptr, *dev_ptr;
	bool owned;             /* host_ptr is a page-aligned mapping the shim made */
	void *scratch;          /* to read the device copy back for the in-place check */
	int window;             /* the protection in force on host_ptr (PROT_*), -1 none */
	/* per piece, the last H2D and D2H linking copy, a D2H copy that may still be writing
	 * host_ptr (an asynchronous one), and whether work launched since may have written it on
	 * the device (it is due again) */
	struct shim_stamp in_copy[MAX_CHUNKS], out_copy[MAX_CHUNKS], inflight[MAX_CHUNKS];
	bool due[MAX_CHUNKS];
	bool launched;          /* work that may read the input was launched since its H2D copy */
	unsigned long pending[SHIM_MAX_STREAMS]; /* and the last such launch per stream */
	bool check;             /* the device copy is due to be compared with the host buffer */
	struct verdict verdict;
};

/* A planned pair: what the plan says of it, which allocations took its sides, and each
 * mode's own state. */
struct pair {
	char id[16];
	int plan; /* a plan directory's: the deployment it came from (plandir.c) */
	uint64_t bytes;
	struct site host, device;
	bool has_host, has_device; /* the plan named the side's site */
	bool input, output;        /* linked by H2D, by D2H copies */
	/* the pair's linking-copy sites (ordinal unused): where deploy mode binds, what resolve
	 * mode follows */
	struct site copy_sites[MAX_COPIES];
	bool copy_h2d[MAX_COPIES];
	int ncopies;
	/* resolve mode: each site's linking copies made with no GPU work outstanding, and with
	 * some (busy.c) */
	unsigned long copy_clean[MAX_COPIES], copy_busy[MAX_COPIES];
	/* resolve mode: each site's copies timed alone, their time, and the first's (cold) */
	unsigned long copy_timed[MAX_COPIES];
	uint64_t copy_ns[MAX_COPIES], copy_first_ns[MAX_COPIES];
	/* resolve mode, a staged pair (staging.c): its copies name a framework's page-locked
	 * buffer, which a host-to-host copy fills from the program's (h2d) or empties into it
	 * (d2h, after the linking copy into stage_from). The copies found, their time and the
	 * first one's site; the linking copies none staged. */
	bool staged;
	const void *stage_from;
	unsigned long stage_copies, stage_missing;
	uint64_t stage_ns;
	struct site stage_site;
	/* the pieces its linking copies move: [0] the whole buffer, [1..nchunks] the chunks */
	struct {
		uint64_t offset, bytes;
	} chunk[MAX_CHUNKS];
	int nchunks;
	/* which allocations took its sides (pairs.c), deploy and validate mode */
	bool host_taken, device_taken; /* the side's allocation returned the shim's buffer */
	bool host_freed, device_freed;
	bool failed; /* merging was given up for this pair: both sides allocate as written */
	char note[160];         /* why the pair was not merged, when it was not */
	struct sighting seen[2]; /* [0] host side, [1] device side */
	unsigned long copies;   /* linking copies seen (validate, resolve mode) */
	unsigned long pinned;   /* pinned strategy: host allocations served from its pool (atomic) */
	/* pinned strategy: host allocations made as written (note says why: the first reason),
	 * and the copies made on them while they lived (pinned.c); under shim_lock */
	unsigned long fallbacks, fallback_copies;
	struct pair_deploy deploy;
	struct pair_validate validate;
	struct resolved resolved[2]; /* resolve mode: [0] host side, [1] device side */
};

struct plan {
	char exe[96]; /* build-id or size:N:NAME */
	char digest[65]; /* the digest of the pairs (hex SHA-256), "" when none */
	bool digest_ok;  /* the pair lines read hash to digest, or need none (plan.c) */
	char name[256]; /* the executable's file name; "" when the plan does not say */
	char gpu[256];
	char cc[16];
	int driver, runtime;
	enum strategy strategy;
	enum mode mode;
	int npairs;
	struct pair pairs[MAX_PAIRS];
	struct site marker; /* measure mode: the loop's first linking copy */
	bool has_marker;
	int marker_every; /* calls at the marker's site per iteration (a helper copying both ways) */
};

/* sha256.c */
struct sha256 {
	uint32_t state[8];
	uint64_t bytes;
	unsigned char buf[64];
};
void shim_sha256_init(struct sha256 *h);
void shim_sha256_add(struct sha256 *h, const void *data, size_t n);
void shim_sha256_hex(struct sha256 *h, char out[65]);

/* plan.c */
int shim_parse_plan(const char *text, struct plan *p, char *why, size_t whylen);
/* why digest_ok is false, to follow "the plan's pairs " */
const char *shim_digest_problem(const struct plan *p);

/* init.c: a file's text, into a static buffer; NULL, saying why, unless it is a regular file
 * (strict: no symbolic link, and root's or this user's, writable by nobody else), whole. */
const char *shim_read_file(int dirfd, const char *path, bool strict, char *why, size_t len);
bool shim_dir_trusted(int fd, char *why, size_t len); /* root's or this user's, writable by nobody else */

/* plandir.c: ECHO_PLAN_DIR, the deployment for this executable and device */
void shim_plan_dir(const char *dir);
bool shim_choosing(void); /* the deployment is yet to be chosen, by the device */
bool shim_site_in_dir(const void *ret, const char *call, size_t bytes); /* a site of any of them */
bool shim_choose(void);   /* chooses, once; false: none applies (passing through) */
const char *shim_chosen_plan(void); /* its file name, "" when none was chosen */
bool shim_pair_chosen(const struct pair *p); /* of the chosen one, or nothing is chosen */
int shim_dir_skipped(const char **first); /* files skipped, and the first with why */

/* state.c: the one plan, the lock, passthrough, counters */
extern struct plan shim_plan;
extern pthread_mutex_t shim_lock;
bool shim_active(void);
bool shim_validating(void);
bool shim_pinning(void);
/* Resolve mode: inline, since every malloc and free asks. */
static inline bool shim_resolving(void)
{
	return __builtin_expect(shim_plan.mode == MODE_RESOLVE, 0) && shim_active();
}
void shim_activate(void);
extern char shim_why[256]; /* why the shim passes through, once it does */
void shim_passthrough(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void shim_passthrough_quietly(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void shim_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void shim_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
bool shim_said(void); /* the shim's once-a-run line was printed */
struct shim_counters {
	unsigned long copies_elided, fallbacks, freed;
	unsigned long waits_event, waits_fallback; /* elided copies' waits kept (repair.c) */
	uint64_t setup_ns; /* spent page-locking and mapping served buffers (setup_since) */
};
extern struct shim_counters shim_count;

/* repair.c: an elided copy's wait */
cudaError_t shim_wait_as_copy(cudaStream_t on);
cudaError_t shim_wait_before_copy(cudaStream_t on); /* the same wait, not counted as a copy's */

/* guard.c: the recursion guard every hook takes */
bool shim_enter(void);
void shim_leave(void);

/* In validate mode, runs stmt inside the reentrancy guard: what a hook tells validation. */
#define SHIM_WATCH(stmt)                                                          \
	do {                                                                      \
		if (__builtin_expect(shim_validating(), 0) && shim_enter()) {     \
			stmt;                                                     \
			shim_leave();                                             \
		}                                                                 \
	} while (0)

/*
 * Every call of a real function (the runtime's, the driver's, NVML's, libc's past the shim)
 * goes through SHIM_CALL. A real function is looked up once and is NULL where its library
 * lacks it or dlsym failed; then the call is not made and the expression gives missing (the
 * error the hook documents, or (void)0 for a function that returns nothing). fn is read once.
 */
#define SHIM_CALL(fn, missing, args)                              \
	({                                                        \
		__typeof__(fn) shim_fn_ = (fn);                   \
		shim_fn_ ? shim_fn_ args : (missing);             \
	})
/* A runtime function of struct real; cudaErrorInitializationError where it is missing. */
#define REAL(name, args) SHIM_CALL(real.name, cudaErrorInitializationError, args)
/* A driver function; CUDA_ERROR_NOT_INITIALIZED where it is missing. */
#define DRIVER_CALL(fn, args) SHIM_CALL(fn, CUDA_ERROR_NOT_INITIALIZED, args)

/* real.c: the real functions of api.def, resolved once: the runtime's from the first hook
 * that needs one, the driver's (CuPy-style callers) on first use. Twins and cuGetProcAddress
 * (roles twin, proc) have no slot: their hooks look the real ones up by name. */
#define SHIM_SLOT_hook(ret, name, params) ret(*name) params;
#define SHIM_SLOT_real(ret, name, params) ret(*name) params;
#define SHIM_SLOT_twin(ret, name, params)
#define SHIM_SLOT_proc(ret, name, params)
struct real {
#define CUDA_RUNTIME(role, name, version, twin, ret, params) SHIM_SLOT_##role(ret, name, params)
#define CUDA_DRIVER(role, name, version, ret, params)
#include "api.def"
#undef CUDA_RUNTIME
#undef CUDA_DRIVER
	/* C++'s array operators, which are no CUDA API (hooks_host.c) */
	void *(*new_array)(size_t);
	void (*delete_array)(void *);
	void (*delete_array_sized)(void *, size_t);
};
extern struct real real;

struct real_driver {
#define CUDA_RUNTIME(role, name, version, twin, ret, params)
#define CUDA_DRIVER(role, name, version, ret, params) SHIM_SLOT_##role(ret, name##version, params)
#include "api.def"
#undef CUDA_RUNTIME
#undef CUDA_DRIVER
};
#undef SHIM_SLOT_hook
#undef SHIM_SLOT_real
#undef SHIM_SLOT_twin
#undef SHIM_SLOT_proc
extern struct real_driver real_driver;

/* The hooks of api.def, and their per-thread twins (hooks_ptds.c), which do what the plain
 * hook does with the stream read as the runtime reads it there. */
#define SHIM_DECL_hook(ret, name, params) ret name params;
#define SHIM_DECL_proc(ret, name, params) ret name params;
#define SHIM_DECL_real(ret, name, params)
#define SHIM_DECL_twin(ret, name, params)
#define SHIM_TWIN_none(ret, name, params)
#define SHIM_TWIN_ptds(ret, name, params) ret name##_ptds params;
#define SHIM_TWIN_ptsz(ret, name, params) ret name##_ptsz params;
#define CUDA_RUNTIME(role, name, version, twin, ret, params) \
	SHIM_DECL_##role(ret, name, params) SHIM_TWIN_##twin(ret, name, params)
#define CUDA_DRIVER(role, name, version, ret, params) SHIM_DECL_##role(ret, name##version, params)
#include "api.def"
#undef CUDA_RUNTIME
#undef CUDA_DRIVER
#undef SHIM_DECL_hook
#undef SHIM_DECL_proc
#undef SHIM_DECL_real
#undef SHIM_DECL_twin
#undef SHIM_TWIN_none
#undef SHIM_TWIN_ptds
#undef SHIM_TWIN_ptsz

void shim_resolve_driver(void);
void *shim_real_driver_dlsym(const char *name);
void *shim_runtime_symbol(const char *name);

void shim_adopt_driver(void *handle); /* the program dlsym'd the driver from handle */
void shim_resolve(void);
void shim_adopt_runtime(void *handle); /* fill in what RTLD_NEXT could not find, from handle */
bool shim_runtime_loaded(void);       /* the runtime's allocator is at hand (found now if it was opened late) */

/* dlsym.c */
void *shim_real_dlsym(void *handle, const char *name);
/* glibc's first version of dlsym on this architecture, for a glibc older than 2.34 (JetPack
 * 5 has 2.31): asking for another architecture's would leave every dlsym without an answer
 * (tests/glibc_base checks it names one). */
#if defined(__aarch64__)
#define SHIM_BASE_GLIBC "GLIBC_2.17"
#elif defined(__x86_64__)
#define SHIM_BASE_GLIBC "GLIBC_2.2.5"
#else
#error "the shim's dlsym needs this architecture's base glibc version"
#endif

/* site.c */
void shim_site_of(const void *ret, const char *call, uint64_t bytes, struct site *out);
bool shim_site_equal(const struct site *a, const struct site *b); /* ignores the ordinal */
void shim_exe_identity(char *out, size_t len);
uintptr_t shim_site_address(const struct site *s, char *name, size_t len);
void shim_site_path(const struct site *s, char *path, size_t len);
bool shim_exe_named(const char *name);

/* pairs.c: allocation and free matching */
bool shim_size_planned(size_t bytes);
int shim_next_ordinal(const struct site *s); /* caller holds the lock */
void shim_locate_sites(void); /* where the planned allocation sites are, once modules load */
void shim_sighted(bool host_side, const void *ret, size_t bytes); /* an unplanned size: a planned site? */
unsigned long shim_pairs_merged(void); /* pairs with at least one copy elided */
void shim_explain_unmatched(void); /* at exit, deploy: say why nothing merged, if nothing did */
/* Matches an allocation to a side of a pair. With *handled set the shim allocated (the merged
 * buffer, or in validate mode a page-aligned host buffer it owns); otherwise the caller
 * allocates and, if a pair was returned, reports the pointer with shim_allocated. */
struct pair *shim_alloc(bool host_side, bool pageable, const void *ret, const char *call, size_t bytes,
			void **out, bool *handled);
void shim_allocated(struct pair *p, bool host_side, void *ptr);
void shim_give_up(struct pair *p, const char *why); /* merging p, in this run; caller holds the lock */
bool shim_release(bool host_side, void *p); /* false: free as written */
int shim_piece(const struct pair *p, uint64_t offset, size_t bytes); /* its index, -1: none */

/* bind.c: deploy mode's buffers, bound into one at a linking copy */
void *shim_host_buffer(struct pair *p, const char *call); /* NULL: allocate as written */
void *shim_device_buffer(struct pair *p);                 /* NULL: allocate as written */
struct pair *shim_pair_buffer(const void *ptr, bool *host_side); /* whose buffer starts at ptr */
bool shim_free_buffer(struct pair *p, bool host_side);    /* false: not the shim's */
struct pair *shim_linking_copy(const void *ret, void *dst, const void *src, size_t n, cudaStream_t on);
void shim_host_registered(const void *p, size_t n); /* the program page-locks [p, p+n) */

/* chain.c: call chains, which tell apart allocations a helper makes for several callers */
void shim_chain_init(void);
int shim_chain_of(const void *ret, struct frame *out); /* frames above ret's, at most SHIM_CHAIN */
bool shim_chain_equal(const struct site *a, int n, const struct frame *f);
int shim_chain_class(const struct site *s, int n, const struct frame *f, int *ordinal); /* -1: table full */
int shim_chain_count(int class_id);
bool shim_chain_threads(int class_id); /* more than one thread called from it */

/* validate.c: the windows in which merging would change what the program reads */
void shim_validate_init(void);
void *shim_validate_host_buffer(size_t bytes);
bool shim_validate_free(void *p);
bool shim_validate_watched(const void *p);
struct shim_stamp shim_validate_copy_issue(cudaStream_t on, struct shim_clock *done);
void shim_validate_copy_done(void *dst, const void *src, size_t n, struct shim_stamp at,
			     const struct shim_clock *done);

/* hooks_cuda.c: the copies, shared by the plain entry points and their per-thread twins */
typedef cudaError_t (*shim_copy_fn)(void *, const void *, size_t, enum cudaMemcpyKind);
typedef cudaError_t (*shim_async_copy_fn)(void *, const void *, size_t, enum cudaMemcpyKind, cudaStream_t);
cudaError_t shim_copy(const void *ret, shim_copy_fn real_fn, bool per_thread, void *dst, const void *src, size_t n,
		      enum cudaMemcpyKind kind);
cudaError_t shim_async_copy(const void *ret, shim_async_copy_fn real_fn, void *dst, const void *src, size_t n,
			    enum cudaMemcpyKind kind, cudaStream_t stream, cudaStream_t on);
void shim_validate_before_copy(void *dst, size_t n);
int shim_memory_type(const void *ptr); /* the runtime's cudaMemoryType of ptr; -1: it cannot say */
void shim_validate_launch(cudaStream_t stream);
void shim_device_work(cudaStream_t stream); /* hooks_cuda.c: a launch, for validate mode */
cudaError_t shim_synchronized(cudaError_t err, cudaStream_t stream, cudaEvent_t event, bool device,
			       unsigned long since); /* since: shim_busy_now() before the wait began */
#define SHIM_ANY_STREAM ((cudaStream_t)-1)  /* work on a stream the hook cannot tell */
void shim_validate_async_copy(void *dst, const void *src, size_t n, cudaStream_t stream, bool completes);
void shim_validate_sync(void);               /* the device */
void shim_validate_stream_sync(cudaStream_t stream);
void shim_validate_event_record(cudaEvent_t event, cudaStream_t stream);
void shim_validate_event_sync(cudaEvent_t event);
void shim_validate_event_destroyed(cudaEvent_t event);
void shim_validate_stream_created(cudaStream_t stream, bool blocking);
void shim_validate_stream_destroyed(cudaStream_t stream);
void shim_validate_wait_event(cudaStream_t stream, cudaEvent_t event);
void shim_validate_barrier(void); /* a call with implicit synchronization (an allocation, a free) */
void shim_validate_foreign(void); /* a call that orders work in a way validation does not model */

/* streams.c: validate mode's stream time; caller holds shim_lock */
struct shim_stamp shim_stream_op(cudaStream_t s);
struct shim_stamp shim_stream_op_waited(cudaStream_t s, struct shim_clock *done);
bool shim_stream_may_follow(struct shim_stamp c, struct shim_stamp later);
bool shim_stream_done(struct shim_stamp c);
bool shim_stream_all_done(const unsigned long upto[SHIM_MAX_STREAMS]);
void shim_stream_created(cudaStream_t s, bool is_blocking);
void shim_stream_destroyed(cudaStream_t s);
void shim_stream_wait_event(cudaStream_t s, cudaEvent_t e);
void shim_stream_barrier(void);
void shim_stream_foreign(void);
void shim_host_waited_stream(cudaStream_t s);
void shim_host_waited_op(struct shim_stamp at, const struct shim_clock *done);
void shim_host_waited_device(void);
void shim_host_waited_event(cudaEvent_t e);
void shim_event_record(cudaEvent_t e, cudaStream_t s);
void shim_event_forget(cudaEvent_t e);

/* resolve.c: which allocations the buffers a plan knows only by pointer and size came from */
void shim_resolve_alloc(bool host_side, const void *ret, const char *call, size_t bytes, void *ptr);
void shim_resolve_free(void *ptr);
/* shim_resolve_copy: whether the copy links a pair; *linked is its site, for shim_resolve_timed */
bool shim_resolve_copy(const void *ret, const char *call, const void *dst, const void *src, size_t n,
		       struct site *linked);
void shim_resolve_timed(const struct site *linked, uint64_t ns); /* a linking copy's transfer, timed alone */
bool shim_resolve_threads(const struct site *s); /* more than one thread allocated there */
/* allocations there, any ordinal, and of those after the first how many came with fresh pages */
unsigned long shim_resolve_site_allocations(const struct site *s, unsigned long *fresh);
/* thp.c: 1 where the kernel may back ptr's mapping with transparent huge pages, 0 where it
 * may not, -1 where smaps does not say; reads no memory the allocator gives */
int shim_thp_eligible(const void *ptr);

/* staging.c: a framework's host-to-host staging copies, resolve mode */
struct shim_staged {
	const void *src, *ret; /* the buffer copied from, and the copy's return address */
	const char *call;      /* memcpy, memmove */
	uint64_t ns;
};
void shim_staging_init(void);
bool shim_staging_take(const void *buf, struct shim_staged *out); /* the last copy into buf; caller holds shim_lock */
/* resolve.c: a staging copy out of the buffer a staged pair's d2h copy filled links the pair
 * (true); caller holds shim_lock */
bool shim_resolve_staged_out(const void *ret, const char *call, const void *dst, const void *src, size_t n,
			     uint64_t ns);

/* busy.c: resolve mode's record of GPU work the host has not waited for */
unsigned long shim_busy_now(void);                  /* the stamp a wait about to begin covers */
void shim_busy_launch(cudaStream_t s);              /* a launch or memset on s */
unsigned long shim_busy_copy(cudaStream_t s);       /* a copy issued on s: its stamp */
void shim_busy_waited(cudaStream_t s, bool device, unsigned long upto); /* the host waited for s (or all) */
bool shim_busy(void);                               /* work outstanding anywhere; caller holds shim_lock */
void shim_busy_host_fn(cudaStream_t s);             /* a host function or callback enqueued on s */
bool shim_busy_drainable(void);                     /* no host function was ever enqueued */
unsigned long shim_busy_launches(void);             /* launches and memsets seen */
void shim_busy_drained(unsigned long upto, uint64_t ns); /* a drain begun at stamp upto waited ns */
void shim_busy_settled(cudaStream_t s, unsigned long upto); /* a timed copy's stream waited for, to upto */
void shim_busy_drain_mark(bool first);              /* a loop mark: the drains' chain since the first one */
uint64_t shim_busy_drain_chain(void);               /* the most one stream was drained, first to last mark */

/* pinned.c: host buffers from per-site pools of page-locked memory */
void *shim_pinned_alloc(const void *ret, const char *call, size_t bytes); /* NULL: allocate as written */
bool shim_pinned_free(void *p);            /* p was the pool's: it is back in it */
extern int shim_pinned_buffers;            /* pool buffers so far (atomic): 0 spares the free hook a call */
size_t shim_pinned_size(const void *p);    /* the size of the pool buffer at p, 0 if p is none */
bool shim_pinned_holds(const void *p);     /* p points into a pool buffer */
void shim_pinned_fell(const void *p);      /* the allocation that just fell back as written is at p */
void shim_pinned_forget(const void *p);    /* p is freed */
void shim_pinned_copied(const void *dst, const void *src); /* a copy: counted if on a fallback buffer */
struct pinned_counters {
	unsigned long buffers, reused, fallbacks, syncs;
	uint64_t bytes;
};
extern struct pinned_counters shim_pinned_count;
/* hooks_cuda.c: err, or once the copy's pool-buffer side is done, the wait's result */
cudaError_t shim_pinned_completes(cudaError_t err, const void *dst, const void *src, cudaStream_t stream);

/* context.c */
bool shim_context_ok(void);
bool shim_context_differs(const char *gpu, const char *cc, int driver, int runtime, char *why, size_t len);
struct device_info {
	bool known;
	char name[256];
	char cc[16];
	int driver, runtime, pageable;
	int concurrent_managed; /* the host may touch managed memory while kernels run */
	int concurrent_kernels; /* kernels of several streams may run at once */
	/* integrated: one DRAM (Jetson); host_page_tables: pageable access through the host's
	 * page tables (ATS: Grace Hopper), where HMM on a discrete GPU reports pageable alone.
	 * echoctl rewrite --device auto reads them. */
	int integrated, host_page_tables;
};
extern struct device_info shim_device;
bool shim_query_device(void); /* once; CUDA must be loaded */

/* energy.c: the GPU's (NVML) or the board's (INA3221) energy, for the run report */
void shim_energy_start(void);		 /* at start, when a report is asked for */
void shim_energy_device(void);		 /* once the device in use is known: its NVML counter */
void shim_energy_mark(int mark, uint64_t ns); /* at the loop's marker */
void shim_energy_report(FILE *f, uint64_t wall_ns);

/* report.c */
void shim_mark_copy(const void *ret, const char *call, size_t bytes);
void shim_report_timed(uint64_t ns); /* resolve mode: a copy timed alone took ns */
void shim_report_drained(uint64_t ns); /* resolve mode: a drain before an asynchronous one waited ns */
void shim_report_init(void);
bool shim_forked(void); /* this process forked: part of the run is in its children */
uint64_t shim_uptime_ns(void); /* since the shim started; async-signal-safe */
/* Adds the time since `since` (a shim_uptime_ns) to the run's set-up: what serving the plan
 * cost beyond the program's own work (page-locking, mapping), which calibration weighs
 * against the iterations' gain. */
void shim_setup_since(uint64_t since);

#endif
