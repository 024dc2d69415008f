/* The shim's state: the plan, the lock that guards pair state, passthrough, messages. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "shim.h"

struct plan shim_plan;
pthread_mutex_t shim_lock = PTHREAD_MUTEX_INITIALIZER;
struct shim_counters shim_count;

static atomic_bool active;
static atomic_bool said;
char shim_why[256];

bool shim_active(void)
{
	return atomic_load_explicit(&active, memory_order_acquire);
}

bool shim_validating(void)
{
	return shim_plan.mode == MODE_VALIDATE && shim_active();
}

/* Deploy mode with the pinned strategy: host allocations at planned sites come from pools. */
bool shim_pinning(void)
{
	return shim_plan.strategy == STRATEGY_PINNED && shim_plan.mode == MODE_DEPLOY && shim_active();
}

void shim_activate(void)
{
	atomic_store_explicit(&active, true, memory_order_release);
}

/* One line on stderr, as one write so that it does not interleave with the program's. */
static void say_line(const char *fmt, va_list ap)
{
	char line[512];
	vsnprintf(line, sizeof line, fmt, ap);
	fprintf(stderr, "echo-shim: %s\n", line);
}

/* One line on stderr, at most once per run, unless ECHO_QUIET is set. */
void shim_say(const char *fmt, ...)
{
	if (atomic_exchange(&said, true) || getenv("ECHO_QUIET"))
		return;
	va_list ap;
	va_start(ap, fmt);
	say_line(fmt, ap);
	va_end(ap);
}

/* The name this process holds for a line it said for its process group (first_to_say). */
static int said_fd = -1;

/* Whether this process is the first of its run to say line, which every process of the run
 * would say alike: a plan or a plan directory that is missing or not to be trusted is so for
 * every process of a shell pipeline, and a line from each (three for `sh -c 'a | b'`) says
 * nothing more than one. Under echoctl (ECHO_REPORT names a file in the run's directory)
 * the first process to make a marker beside the report says it; elsewhere the first of the
 * process group (a pipeline, a script and all it starts) to bind an abstract socket named
 * for this user, the group and the line, which it holds while it lives: nothing is left
 * behind. Whatever fails here says the line: one too many is better than none. */
static bool first_to_say(const char *line)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */
	for (const char *c = line; *c; c++) {
		h ^= (unsigned char)*c;
		h *= 1099511628211ULL;
	}
	const char *report = getenv("ECHO_REPORT");
	if (report && *report) {
		char path[4096];
		int n = snprintf(path, sizeof path, "%s.said-%016llx", report, (unsigned long long)h);
		if (n < 0 || (size_t)n >= sizeof path)
			return true;
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd >= 0)
			close(fd);
		return fd >= 0 || errno != EEXIST;
	}
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return true;
	struct sockaddr_un addr = {.sun_family = AF_UNIX}; /* sun_path[0] = '\0': the abstract namespace */
	int n = snprintf(addr.sun_path + 1, sizeof addr.sun_path - 1, "echo-shim-said/%u/%d/%016llx", (unsigned)geteuid(),
			 (int)getpgrp(), (unsigned long long)h);
	if (n > 0 && bind(fd, (struct sockaddr *)&addr, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n)) == 0) {
		said_fd = fd;
		return true;
	}
	bool other = errno == EADDRINUSE;
	close(fd);
	return !other;
}

/* shim_say for a line every process of the run would say alike: said by the first of them. */
static void say_for_run(const char *fmt, ...)
{
	if (atomic_exchange(&said, true) || getenv("ECHO_QUIET"))
		return;
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (first_to_say(line))
		fprintf(stderr, "echo-shim: %s\n", line);
}

bool shim_said(void)
{
	return atomic_load(&said) && !getenv("ECHO_QUIET");
}

/* A detail on stderr, only under ECHO_VERBOSE (and not under ECHO_QUIET), which does not use
 * up the run's one line: a plan directory's unusable files, which every process of the
 * environment would say otherwise (a shell pipeline, three times). */
void shim_note(const char *fmt, ...)
{
	const char *verbose = getenv("ECHO_VERBOSE");
	if (!verbose || !*verbose || getenv("ECHO_QUIET"))
		return;
	va_list ap;
	va_start(ap, fmt);
	say_line(fmt, ap);
	va_end(ap);
}

/* From now on every call passes through untouched; the report says why. */
static void pass_through(const char *fmt, va_list ap)
{
	vsnprintf(shim_why, sizeof shim_why, fmt, ap);
	atomic_store_explicit(&active, false, memory_order_release);
}

/* For a process the plan is not about: no word on stderr. */
void shim_passthrough_quietly(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	pass_through(fmt, ap);
	va_end(ap);
}

/* For the planned program: one line on stderr says why, once for all the processes of the
 * run that would say it alike. */
void shim_passthrough(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	pass_through(fmt, ap);
	va_end(ap);
	say_for_run("running the program untouched: %s", shim_why);
}
