/*
 * A plan directory (ECHO_PLAN_DIR): the compact deployments (*.shim, as `echoctl plans add`
 * writes them) of many programs and GPUs, one directory synced to every node of a fleet.
 *
 * At start the shim keeps the deployments made for this executable. Which of them applies
 * depends on the GPU, which is known only once the program uses CUDA; so their pairs wait
 * together in shim_plan, and at the first allocation at one of their sites (where a single
 * plan checks its GPU) the one deployment for this device is chosen, once, and the others'
 * pairs are given up before any was merged. None for this device, or two: the program runs
 * untouched, and one line says why. A file the shim cannot use is skipped: a skipped file
 * can only ever leave a program untouched, never give it another's plan, since whatever is
 * chosen still matches the executable and the device.
 *
 * Only what the directory's owner put there is read: the directory must be root's or this
 * user's and writable by nobody else, and each deployment a regular file of the same owners,
 * not a symbolic link (another user's link to a file of his, or to /dev/stdin, which would
 * eat the program's input), opened without waiting (a FIFO would hang every program at its
 * start). Every process of the environment reads the directory (a shell pipeline, three
 * times), so the skipped files are said on stderr only under ECHO_VERBOSE; the report carries
 * them, and echoctl run --plans says them once.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shim.h"

#define MAX_CANDIDATES 8

/* A deployment for this executable: what the device must be for it to apply. */
struct candidate {
	char file[256];
	char gpu[256];
	char cc[16];
	int driver, runtime;
	enum strategy strategy;
};

static struct candidate cands[MAX_CANDIDATES];
static int ncands;
static int chosen = -1;
static atomic_bool choosing;
static char dir_path[512];
static pthread_mutex_t choose_lock = PTHREAD_MUTEX_INITIALIZER;
static struct plan scratch; /* one file's deployment while it is read */
static int nskipped;
static char skipped[400]; /* the first skipped file, and why */

static int is_deployment(const struct dirent *e)
{
	size_t n = strlen(e->d_name);
	return e->d_name[0] != '.' && n > 5 && !strcmp(e->d_name + n - 5, ".shim");
}

/* Why the file name in the directory dirfd cannot be used (into why), or "" when scratch
 * holds it. */
static void read_deployment(int dirfd, const char *name, char *why, size_t len)
{
	char parse[256];
	why[0] = '\0';
	const char *text = shim_read_file(dirfd, name, true, why, len);
	if (!text)
		;
	else if (shim_parse_plan(text, &scratch, parse, sizeof parse) != 0)
		snprintf(why, len, "%s", parse);
	else if (scratch.mode != MODE_DEPLOY)
		snprintf(why, len, "not a compact plan to deploy (mode is not deploy)");
	else if (!scratch.digest_ok)
		snprintf(why, len, "its pairs %s", shim_digest_problem(&scratch));
}

/* Adds scratch, a deployment for this executable, to the candidates; false when there is no
 * room, and the directory must then be refused as a whole: dropping one could hide a second
 * match. */
static bool add_candidate(const char *file)
{
	if (ncands == MAX_CANDIDATES || shim_plan.npairs + scratch.npairs > MAX_PAIRS)
		return false;
	struct candidate *c = &cands[ncands];
	snprintf(c->file, sizeof c->file, "%s", file);
	memcpy(c->gpu, scratch.gpu, sizeof c->gpu);
	memcpy(c->cc, scratch.cc, sizeof c->cc);
	c->driver = scratch.driver;
	c->runtime = scratch.runtime;
	c->strategy = scratch.strategy;
	for (int i = 0; i < scratch.npairs; i++) {
		struct pair *p = &shim_plan.pairs[shim_plan.npairs++];
		*p = scratch.pairs[i];
		p->plan = ncands;
	}
	ncands++;
	return true;
}

void shim_plan_dir(const char *dir)
{
	snprintf(dir_path, sizeof dir_path, "%s", dir);
	struct dirent **list;
	char exe[96], other[96] = "", why[300];
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		shim_passthrough("cannot read the plan directory %s", dir);
		return;
	}
	if (!shim_dir_trusted(fd, why, sizeof why)) {
		close(fd);
		shim_passthrough("the plan directory %s is not to be trusted: %s; another user could put a plan "
				 "there (chmod go-w it, or keep it root's)", dir, why);
		return;
	}
	int n = scandirat(fd, ".", &list, is_deployment, alphasort);
	if (n < 0) {
		close(fd);
		shim_passthrough("cannot read the plan directory %s", dir);
		return;
	}
	bool full = false;
	shim_exe_identity(exe, sizeof exe);
	for (int i = 0; i < n; i++) {
		read_deployment(fd, list[i]->d_name, why, sizeof why);
		if (why[0]) {
			if (nskipped++ == 0)
				snprintf(skipped, sizeof skipped, "%s: %s", list[i]->d_name, why);
		} else if (strcmp(scratch.exe, exe)) {
			/* another build of a program of this file's name: worth a word, unlike a
			 * program that only inherited the environment */
			if (scratch.name[0] && shim_exe_named(scratch.name))
				snprintf(other, sizeof other, "%s", scratch.exe);
		} else if (!full && !add_candidate(list[i]->d_name)) {
			full = true;
		}
		free(list[i]);
	}
	free(list);
	close(fd);
	memset(&scratch, 0, sizeof scratch);
	if (nskipped)
		shim_note("skipping %d unusable file%s in the plan directory %s; the first, %s", nskipped,
			  nskipped > 1 ? "s" : "", dir, skipped);
	if (full) {
		memset(&shim_plan, 0, sizeof shim_plan);
		shim_passthrough("the plan directory %s holds more plans for this executable than the shim takes "
				 "(%d, %d pairs together): remove the stale ones",
				 dir, MAX_CANDIDATES, MAX_PAIRS);
	} else if (ncands == 0 && other[0]) {
		shim_passthrough("the plans in %s for this program's name are for another build (%s; this is %s)", dir,
				 other, exe);
	} else if (ncands == 0) {
		shim_passthrough_quietly("no plan in %s is for this executable (%s)", dir, exe);
	} else {
		snprintf(shim_plan.exe, sizeof shim_plan.exe, "%s", exe);
		shim_plan.mode = MODE_DEPLOY;
		/* Until the choice, a merge strategy: the first allocation at a planned site then
		 * reaches shim_alloc, where the choice is made, whatever the chosen strategy. */
		shim_plan.strategy = STRATEGY_MAPPED;
		shim_plan.digest_ok = true;
		atomic_store(&choosing, true);
		shim_activate();
	}
}

int shim_dir_skipped(const char **first)
{
	*first = skipped;
	return nskipped;
}

bool shim_choosing(void)
{
	return atomic_load_explicit(&choosing, memory_order_acquire);
}

bool shim_site_in_dir(const void *ret, const char *call, size_t bytes)
{
	struct site s;
	bool found = false;
	pthread_mutex_lock(&shim_lock);
	shim_site_of(ret, call, bytes, &s);
	for (int i = 0; i < shim_plan.npairs && !found; i++) {
		const struct pair *p = &shim_plan.pairs[i];
		found = (p->has_host && shim_site_equal(&p->host, &s)) || (p->has_device && shim_site_equal(&p->device, &s));
	}
	pthread_mutex_unlock(&shim_lock);
	return found;
}

/* The one candidate for this device, made the plan; false (passing through) when there is
 * none, or more than one. */
static bool choose(void)
{
	if (!shim_query_device()) {
		shim_passthrough("the device could not be queried through the CUDA runtime or driver");
		return false;
	}
	int match[2] = {-1, -1}, n = 0;
	char why[600];
	for (int i = 0; i < ncands; i++)
		if (!shim_context_differs(cands[i].gpu, cands[i].cc, cands[i].driver, cands[i].runtime, why, sizeof why) &&
		    n++ < 2)
			match[n - 1] = i;
	const struct device_info *d = &shim_device;
	if (n == 0) {
		shim_passthrough("no plan in %s is for this GPU (\"%s\", compute capability %s, driver %d, runtime %d); "
				 "%d for this executable, the first for \"%s\"",
				 dir_path, d->name, d->cc, d->driver, d->runtime, ncands, cands[0].gpu);
		return false;
	}
	if (n > 1) {
		shim_passthrough("two plans in %s match this executable and GPU, %s and %s: remove one "
				 "(echoctl plans ls lists them)",
				 dir_path, cands[match[0]].file, cands[match[1]].file);
		return false;
	}
	const struct candidate *c = &cands[match[0]];
	pthread_mutex_lock(&shim_lock);
	for (int i = 0; i < shim_plan.npairs; i++)
		if (shim_plan.pairs[i].plan != match[0])
			shim_plan.pairs[i].failed = true;
	memcpy(shim_plan.gpu, c->gpu, sizeof shim_plan.gpu);
	memcpy(shim_plan.cc, c->cc, sizeof shim_plan.cc);
	shim_plan.driver = c->driver;
	shim_plan.runtime = c->runtime;
	shim_plan.strategy = c->strategy;
	chosen = match[0];
	pthread_mutex_unlock(&shim_lock);
	return true;
}

bool shim_choose(void)
{
	pthread_mutex_lock(&choose_lock);
	bool ok = shim_choosing() ? choose() : chosen >= 0;
	atomic_store_explicit(&choosing, false, memory_order_release);
	pthread_mutex_unlock(&choose_lock);
	return ok && shim_active();
}

const char *shim_chosen_plan(void)
{
	return chosen >= 0 ? cands[chosen].file : "";
}

bool shim_pair_chosen(const struct pair *p)
{
	return chosen < 0 || p->plan == chosen;
}
