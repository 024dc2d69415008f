/*
 * The run report (ECHO_REPORT): what the shim did, and in measure mode the iteration
 * latencies, each the time between successive copies at the plan's loop marker less what the
 * shim itself spent at the first of them (an energy read). Taking a timestamp there costs one
 * clock read per iteration.
 *
 * Every process of the program reports, one JSON document each, appended to ECHO_REPORT in
 * one write: a program that forks and uses CUDA in the child has its merges there, not in the
 * parent that exits last. A forked child starts its counts at zero, so that each document
 * says what its own process did and the runner can add them up.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "shim.h"

#define MAX_ITERATIONS (1 << 20)

static uint64_t *marks;
static uint32_t *held; /* ns the shim spent at each mark after taking its time (energy reads) */
/* Resolve mode: the ns spent in copies timed alone before each mark (shim_report_timed), so
 * that each iteration is also reported without them (untimed_ns). */
static uint64_t *timed_at;
static atomic_ullong timed_total;
/* Resolve mode: the ns its drains before those copies waited for the device, likewise
 * (shim_report_drained): work the program's own iteration may run beside its host work. */
static uint64_t *drained_at;
static atomic_ullong drained_total;
static atomic_int nmarks;
static atomic_ulong calls; /* at the marker's site */
static uint64_t start_ns;
static bool measuring;

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

uint64_t shim_uptime_ns(void)
{
	return now_ns() - start_ns;
}

void shim_setup_since(uint64_t since)
{
	__atomic_add_fetch(&shim_count.setup_ns, shim_uptime_ns() - since, __ATOMIC_RELAXED);
}

/* In a forked child: what the parent did is the parent's to report. (The merge states stay:
 * the child's memory holds the buffers as merged.) */
static void fork_child(void)
{
	atomic_store(&nmarks, 0);
	atomic_store(&calls, 0);
	atomic_store(&timed_total, 0);
	atomic_store(&drained_total, 0);
	start_ns = now_ns();
	memset(&shim_count, 0, sizeof shim_count);
	memset(&shim_pinned_count, 0, sizeof shim_pinned_count);
	for (int i = 0; i < shim_plan.npairs; i++) {
		struct pair *p = &shim_plan.pairs[i];
		__atomic_store_n(&p->deploy.elided, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&p->pinned, 0, __ATOMIC_RELAXED);
		p->copies = 0;
		p->fallbacks = p->fallback_copies = 0;
	}
}

static atomic_bool forked;

/* In the parent: its run now goes on in a child too, whose merges it cannot see. */
static void fork_parent(void)
{
	atomic_store(&forked, true);
}

bool shim_forked(void)
{
	return atomic_load(&forked);
}

void shim_report_init(void)
{
	start_ns = now_ns();
	pthread_atfork(NULL, fork_parent, fork_child);
	shim_energy_start();
	if (shim_plan.has_marker) {
		marks = calloc(MAX_ITERATIONS, sizeof *marks);
		held = calloc(MAX_ITERATIONS, sizeof *held);
		measuring = marks != NULL && held != NULL;
		if (measuring && shim_plan.mode == MODE_RESOLVE) {
			timed_at = calloc(MAX_ITERATIONS, sizeof *timed_at);
			drained_at = calloc(MAX_ITERATIONS, sizeof *drained_at);
		}
	}
}

void shim_report_timed(uint64_t ns)
{
	atomic_fetch_add(&timed_total, ns);
}

void shim_report_drained(uint64_t ns)
{
	atomic_fetch_add(&drained_total, ns);
}

void shim_mark_copy(const void *ret, const char *call, size_t bytes)
{
	if (__builtin_expect(!measuring || bytes != shim_plan.marker.bytes, 1) || !shim_enter())
		return;
	pthread_mutex_lock(&shim_lock);
	struct site s;
	shim_site_of(ret, call, bytes, &s);
	pthread_mutex_unlock(&shim_lock);
	if (shim_site_equal(&s, &shim_plan.marker) && atomic_fetch_add(&calls, 1) % shim_plan.marker_every == 0) {
		shim_query_device(); /* the loop runs: the runtime is up; no-op after the first time */
		int i = atomic_fetch_add(&nmarks, 1);
		if (i < MAX_ITERATIONS) {
			marks[i] = now_ns();
			if (timed_at)
				timed_at[i] = atomic_load(&timed_total);
			if (drained_at) {
				drained_at[i] = atomic_load(&drained_total);
				if (i > 0) /* from the second mark: the first iteration runs cold */
					shim_busy_drain_mark(i == 1);
			}
			shim_energy_mark(i, marks[i]);
			held[i] = (uint32_t)(now_ns() - marks[i]);
		}
	}
	shim_leave();
}

/* s as a JSON string. */
static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

/* Resolve mode: the allocation one side's copies pointed at, with its module's path. */
static void write_resolved(FILE *f, const struct resolved *r, bool comma)
{
	char path[512] = "";
	if (r->found)
		shim_site_path(&r->site, path, sizeof path);
	fprintf(f, "%s{\"found\":%s,\"module\":", comma ? "," : "", r->found ? "true" : "false");
	json_string(f, r->found ? r->site.module : "");
	fprintf(f, ",\"path\":");
	json_string(f, path);
	fprintf(f, ",\"offset\":%llu,\"call\":", (unsigned long long)r->site.offset);
	json_string(f, r->site.call);
	unsigned long fresh = 0, site_allocations = r->found ? shim_resolve_site_allocations(&r->site, &fresh) : 0;
	fprintf(f, ",\"bytes\":%llu,\"ordinal\":%d,\"allocations\":%lu,\"site_allocations\":%lu,\"site_fresh\":%lu,"
		   "\"other_sites\":%s,\"threads\":%s,\"unmatched\":%lu",
		(unsigned long long)r->site.bytes, r->site.ordinal, r->allocations, site_allocations, fresh,
		r->other_sites ? "true" : "false",
		r->found && shim_resolve_threads(&r->site) ? "true" : "false", r->unmatched);
	fprintf(f, ",\"small_pages\":%s", r->found && r->thp == 0 ? "true" : "false");
	/* its call chain, which names it where several threads allocate at its site */
	const struct identity *id = &r->ident;
	bool known = r->found && id->known;
	fprintf(f, ",\"chain\":[");
	for (int i = 0; known && i < id->nchain; i++) {
		fprintf(f, "%s{\"module\":", i ? "," : "");
		json_string(f, id->chain[i].module);
		fprintf(f, ",\"offset\":%llu}", (unsigned long long)id->chain[i].offset);
	}
	pthread_mutex_lock(&shim_lock);
	int calls = known ? shim_chain_count(id->class_id) : 0;
	bool threads = known && shim_chain_threads(id->class_id);
	pthread_mutex_unlock(&shim_lock);
	fprintf(f, "],\"chain_ordinal\":%d,\"chain_calls\":%d,\"chain_threads\":%s}", known ? id->ordinal : 0, calls,
		threads ? "true" : "false");
}

/* Resolve mode, a staged pair: the host-to-host copies that staged it (their site, how many,
 * their mean time) and the linking copies none staged (a d2h copy never copied out counts). */
static void write_staging(FILE *f, const struct pair *p)
{
	char path[512] = "";
	unsigned long n = p->stage_copies;
	if (n)
		shim_site_path(&p->stage_site, path, sizeof path);
	fprintf(f, ",\"staging\":{\"copies\":%lu,\"missing\":%lu,\"ns\":%llu,\"module\":", n,
		p->stage_missing + (p->stage_from != NULL), (unsigned long long)(n ? p->stage_ns / n : 0));
	json_string(f, n ? p->stage_site.module : "");
	fprintf(f, ",\"path\":");
	json_string(f, path);
	fprintf(f, ",\"offset\":%llu,\"call\":", (unsigned long long)(n ? p->stage_site.offset : 0));
	json_string(f, n ? p->stage_site.call : "");
	fputc('}', f);
}

/* Validate mode: the call chain of the allocation that took a side's slot, its ordinal among
 * that chain's calls, how many calls the chain made in the run (more than one: the chain does
 * not tell them apart), and whether several threads made them (then their order does not
 * either). */
static void write_identity(FILE *f, const struct identity *id, bool comma)
{
	fprintf(f, "%s{\"known\":%s,\"chain\":[", comma ? "," : "", id->known ? "true" : "false");
	for (int i = 0; id->known && i < id->nchain; i++) {
		fprintf(f, "%s{\"module\":", i ? "," : "");
		json_string(f, id->chain[i].module);
		fprintf(f, ",\"offset\":%llu}", (unsigned long long)id->chain[i].offset);
	}
	pthread_mutex_lock(&shim_lock);
	int count = id->known ? shim_chain_count(id->class_id) : 0;
	bool threads = id->known && shim_chain_threads(id->class_id);
	pthread_mutex_unlock(&shim_lock);
	fprintf(f, "],\"ordinal\":%d,\"count\":%d,\"threads\":%s}", id->known ? id->ordinal : 0, count,
		threads ? "true" : "false");
}

/* Resolve mode: a linking-copy site's mean transfer, its first (cold) copy left out where it
 * has others. */
static uint64_t transfer_ns(const struct pair *p, int c)
{
	unsigned long n = p->copy_timed[c];
	if (n < 2)
		return p->copy_ns[c];
	return (p->copy_ns[c] - p->copy_first_ns[c]) / (n - 1);
}

/* Deploy mode: why a pair whose sides both took their slots was not merged. */
static const char *unbound_note(const struct pair *p)
{
	if (p->note[0] || shim_plan.mode != MODE_DEPLOY || shim_plan.strategy == STRATEGY_PINNED || !p->host_taken ||
	    !p->device_taken || __atomic_load_n(&p->deploy.bound, __ATOMIC_ACQUIRE))
		return p->note;
	return "its planned buffers were never linked by the plan's copy in this run (did another allocation take a "
	       "planned slot?): left as written";
}

/* What the run saw of a pair. Validate mode: whether both sides were allocated and linked, and
 * any access that refuses it, with the instruction as module+offset, and who took its slots.
 * Deploy mode: whether it was merged (its buffers were bound and a copy between them elided),
 * and if not, why. */
static void write_pair(FILE *f, const struct pair *p, bool comma)
{
	fprintf(f, "%s{\"id\":", comma ? "," : "");
	json_string(f, p->id);
	fprintf(f, ",\"seen\":%s,\"copies\":%lu,\"refused\":%s,\"reason\":",
		p->host_taken && p->device_taken ? "true" : "false", p->copies, p->validate.verdict.refused ? "true" : "false");
	json_string(f, p->validate.verdict.reason);
	struct site at = {0};
	if (p->validate.verdict.pc) {
		pthread_mutex_lock(&shim_lock);
		shim_site_of((const void *)p->validate.verdict.pc, "", 0, &at);
		pthread_mutex_unlock(&shim_lock);
	}
	fprintf(f, ",\"at_ns\":%llu,\"at_copy\":%lu,\"at_module\":", (unsigned long long)p->validate.verdict.ns,
		p->validate.verdict.copies);
	json_string(f, at.module);
	unsigned long elided = __atomic_load_n(&p->deploy.elided, __ATOMIC_RELAXED);
	unsigned long pinned = __atomic_load_n(&p->pinned, __ATOMIC_RELAXED);
	pthread_mutex_lock(&shim_lock);
	unsigned long fallbacks = p->fallbacks, fallback_copies = p->fallback_copies;
	pthread_mutex_unlock(&shim_lock);
	fprintf(f, ",\"at_offset\":%llu,\"merged\":%s,\"elided\":%lu,\"pinned\":%lu,\"fallbacks\":%lu,"
		   "\"fallback_copies\":%lu,\"note\":",
		(unsigned long long)at.offset, elided || pinned ? "true" : "false", elided, pinned, fallbacks,
		fallback_copies);
	json_string(f, unbound_note(p));
	if (shim_plan.mode == MODE_VALIDATE) {
		fprintf(f, ",\"identity\":[");
		for (int side = 0; side < 2; side++)
			write_identity(f, &p->validate.ident[side], side > 0);
		fputc(']', f);
	}
	if (shim_plan.mode == MODE_RESOLVE) {
		fprintf(f, ",\"resolved\":[");
		for (int side = 0; side < 2; side++)
			write_resolved(f, &p->resolved[side], side > 0);
		fprintf(f, "],\"copy_waits\":[");
		for (int c = 0; c < p->ncopies; c++)
			fprintf(f, "%s{\"clean\":%lu,\"busy\":%lu,\"timed\":%lu,\"transfer_ns\":%llu}", c ? "," : "",
				p->copy_clean[c], p->copy_busy[c], p->copy_timed[c], (unsigned long long)transfer_ns(p, c));
		fputc(']', f);
		if (p->staged)
			write_staging(f, p);
	}
	fputc('}', f);
}

__attribute__((destructor)) static void write_report(void)
{
	const char *path = getenv("ECHO_REPORT");
	if (!path || !*path)
		return;
	char *doc = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&doc, &len);
	if (!f)
		return;
	int n = atomic_load(&nmarks);
	n = n > MAX_ITERATIONS ? MAX_ITERATIONS : n;
	static const char *modes[] = {"deploy", "measure", "validate", "resolve"};
	unsigned mode = (unsigned)shim_plan.mode < 4 ? (unsigned)shim_plan.mode : 0;
	fprintf(f, "{\"pid\":%d,\"mode\":\"%s\",\"active\":%s,\"reason\":", (int)getpid(), modes[mode],
		shim_active() ? "true" : "false");
	json_string(f, shim_why);
	fprintf(f, ",\"said\":%s,\"plan\":", shim_said() ? "true" : "false");
	json_string(f, shim_chosen_plan());
	const char *first;
	int skipped = shim_dir_skipped(&first);
	fprintf(f, ",\"skipped\":%d,\"skipped_first\":", skipped);
	json_string(f, first);
	fprintf(f, ",\"gpu\":");
	json_string(f, shim_device.name);
	fprintf(f, ",\"cc\":\"%s\",\"driver\":%d,\"runtime\":%d,\"pageable\":%s,\"concurrent_managed\":%s",
		shim_device.cc, shim_device.driver, shim_device.runtime, shim_device.pageable ? "true" : "false",
		shim_device.concurrent_managed ? "true" : "false");
	fprintf(f, ",\"integrated\":%s,\"host_page_tables\":%s,\"concurrent_kernels\":%s",
		shim_device.integrated ? "true" : "false", shim_device.host_page_tables ? "true" : "false",
		shim_device.concurrent_kernels ? "true" : "false");
	fprintf(f, ",\"merged\":%lu,\"copies_elided\":%lu,\"fallbacks\":%lu,\"freed\":%lu,\"wall_ns\":%llu,",
		shim_pairs_merged(), __atomic_load_n(&shim_count.copies_elided, __ATOMIC_RELAXED), shim_count.fallbacks,
		shim_count.freed, (unsigned long long)(now_ns() - start_ns));
	fprintf(f, "\"setup_ns\":%llu,", (unsigned long long)__atomic_load_n(&shim_count.setup_ns, __ATOMIC_RELAXED));
	fprintf(f, "\"launches\":%lu,", shim_busy_launches());
	fprintf(f, "\"waits\":{\"event\":%lu,\"fallback\":%lu},",
		__atomic_load_n(&shim_count.waits_event, __ATOMIC_RELAXED),
		__atomic_load_n(&shim_count.waits_fallback, __ATOMIC_RELAXED));
	fprintf(f, "\"pinned\":{\"buffers\":%lu,\"bytes\":%llu,\"reused\":%lu,\"fallbacks\":%lu,\"syncs\":%lu},",
		shim_pinned_count.buffers, (unsigned long long)shim_pinned_count.bytes, shim_pinned_count.reused,
		shim_pinned_count.fallbacks, __atomic_load_n(&shim_pinned_count.syncs, __ATOMIC_RELAXED));
	shim_energy_report(f, now_ns() - start_ns);
	fprintf(f, "\"iteration_ns\":[");
	/* Each iteration without what the shim spent at the mark that started it. */
	for (int i = 1; i < n; i++)
		fprintf(f, "%s%llu", i > 1 ? "," : "", (unsigned long long)(marks[i] - marks[i - 1] - held[i - 1]));
	fprintf(f, "],\"untimed_ns\":[");
	/* Resolve mode: each iteration without the copies timed alone in it. */
	for (int i = 1; timed_at && i < n; i++) {
		uint64_t it = marks[i] - marks[i - 1] - held[i - 1], timed = timed_at[i] - timed_at[i - 1];
		fprintf(f, "%s%llu", i > 1 ? "," : "", (unsigned long long)(it > timed ? it - timed : 0));
	}
	fprintf(f, "],\"drained_ns\":[");
	/* Resolve mode: how much of each iteration's rest its drains spent waiting. */
	for (int i = 1; drained_at && i < n; i++)
		fprintf(f, "%s%llu", i > 1 ? "," : "", (unsigned long long)(drained_at[i] - drained_at[i - 1]));
	/* Resolve mode: the most of those drains one stream waited through (busy.c), over the same
	 * iterations but the first. */
	fprintf(f, "],\"drained_chain_ns\":%llu", (unsigned long long)(drained_at ? shim_busy_drain_chain() : 0));
	fprintf(f, ",\"pairs\":[");
	for (int i = 0, n = 0; i < shim_plan.npairs; i++)
		if (shim_pair_chosen(&shim_plan.pairs[i]))
			write_pair(f, &shim_plan.pairs[i], n++ > 0);
	fprintf(f, "]}\n");
	if (fclose(f) == 0) {
		/* One write of the whole document: O_APPEND keeps the processes' documents apart. */
		int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (fd >= 0) {
			for (size_t off = 0; off < len;) {
				ssize_t w = write(fd, doc + off, len - off);
				if (w <= 0)
					break;
				off += (size_t)w;
			}
			close(fd);
		}
	}
	free(doc);
}
