/* The shim's state: the plan, the lock that guards pair state, passthrough, messages. */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

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

/* For the planned program: one line on stderr says why. */
void shim_passthrough(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	pass_through(fmt, ap);
	va_end(ap);
	shim_say("running the program untouched: %s", shim_why);
}
