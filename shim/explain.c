/*
 * Why a plan matched nothing. A plan names allocation sites and sizes; a run with other
 * arguments or input allocates other sizes, or elsewhere, and then nothing is merged. The
 * planned return addresses are located once at start, so that an allocation of a size the
 * plan does not name costs one compare per planned site to notice that it came from one;
 * at exit, a deploy that merged nothing says in one line what differed.
 */
#include <stdio.h>
#include <unistd.h>

#include "shim.h"

/* The process that read the plan: a child forked from it (a worker that exits without
 * having run the loop) is not the run the line is about. */
static pid_t planned_pid;

/* At start: the planned sites' addresses in the modules loaded by then (the executable and
 * the libraries it links; a site in a library opened later is not located, and goes
 * unexplained). */
void shim_locate_sites(void)
{
	planned_pid = getpid();
	for (int i = 0; i < shim_plan.npairs; i++) {
		struct pair *p = &shim_plan.pairs[i];
		for (int side = 0; side < 2; side++) {
			struct sighting *s = &p->seen[side];
			s->at = shim_site_address(side ? &p->device : &p->host, s->module, sizeof s->module);
		}
	}
}

void shim_sighted(bool host_side, const void *ret, size_t bytes)
{
	for (int i = 0; i < shim_plan.npairs; i++) {
		struct sighting *s = &shim_plan.pairs[i].seen[!host_side];
		if (__builtin_expect(s->at == (uintptr_t)ret, 0)) {
			__atomic_add_fetch(&s->calls, 1, __ATOMIC_RELAXED);
			__atomic_store_n(&s->other_bytes, bytes, __ATOMIC_RELAXED);
		}
	}
}

unsigned long shim_pairs_merged(void)
{
	unsigned long n = 0;
	for (int i = 0; i < shim_plan.npairs; i++)
		n += __atomic_load_n(&shim_plan.pairs[i].deploy.elided, __ATOMIC_RELAXED) > 0 ||
		     __atomic_load_n(&shim_plan.pairs[i].pinned, __ATOMIC_RELAXED) > 0;
	return n;
}

/* bytes the way echoctl prints them (internal/units): "512 B", "4.0 MiB", "512 KiB": one
 * decimal below 100 of a unit, none above, and what would round to 1024 in the next unit. */
static void human(uint64_t bytes, char *out, size_t len)
{
	static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	double v = (double)bytes;
	int u = 0;
	while (v >= 1023.5 && u < 6)
		v /= 1024, u++;
	if (u == 0)
		snprintf(out, len, "%llu B", (unsigned long long)bytes);
	else
		snprintf(out, len, "%.*f %s", v >= 99.95 ? 0 : 1, v, units[u]);
}

/* What differed for one side of a pair, into out; false when nothing can be said. */
static bool side_differed(const struct pair *p, int side, char *out, size_t len)
{
	const struct site *want = side ? &p->device : &p->host;
	const struct sighting *s = &p->seen[side];
	char planned[32], saw[32];
	human(want->bytes, planned, sizeof planned);
	if (!s->at)
		return false;
	if (s->other_bytes) {
		human(s->other_bytes, saw, sizeof saw);
		snprintf(out, len, "planned %s at %s+%#llx (%s), saw %s: other arguments or input than the traced run?",
			 planned, s->module, (unsigned long long)want->offset, want->call, saw);
		return true;
	}
	if (!s->calls) {
		snprintf(out, len, "no %s at %s+%#llx: this run took another path than the traced one", want->call,
			 s->module, (unsigned long long)want->offset);
		return true;
	}
	return false;
}

/* At exit, so that a deployment started by something else (--print-env) says it too. Not
 * in a process that forked: the merges may be its child's, which it cannot count. */
__attribute__((destructor)) void shim_explain_unmatched(void)
{
	if (shim_plan.mode != MODE_DEPLOY || !shim_active() || shim_plan.npairs == 0 || shim_pairs_merged() > 0 ||
	    getpid() != planned_pid || shim_forked())
		return;
	char why[240] = "";
	for (int i = 0; i < shim_plan.npairs && !why[0]; i++) {
		const struct pair *p = &shim_plan.pairs[i];
		if (!shim_pair_chosen(p))
			continue;
		if (!side_differed(p, 0, why, sizeof why) && !side_differed(p, 1, why, sizeof why) && p->note[0])
			snprintf(why, sizeof why, "pair %s: %s", p->id, p->note);
	}
	shim_say("the plan matched nothing in this run, so nothing was merged: %s",
		 why[0] ? why : "no linking copy between the planned buffers was made");
}
