/* Start-up: read the compact plan named by ECHO_PLAN, check it is for this executable, and
 * arm the shim; or, with ECHO_PLAN_DIR instead, keep the directory's deployments for this
 * executable (plandir.c). Without either the shim stays out of the way, silently. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shim.h"

/* What echoctl looks for before it preloads a file as this library (runner.CheckShim), so
 * that a stray, truncated or foreign file of the name is never preloaded into a program. */
SHIM_API const char echo_shim_marker[] = "echo preload library";

/* Whether a file or directory of this owner and mode may name what this program runs:
 * root's or this user's, and writable by nobody else (a directory writable by others only
 * with the sticky bit, where nobody else may replace a file he does not own; /tmp is one). */
static bool trusted(const struct stat *st, char *why, size_t len)
{
	if (st->st_uid != 0 && st->st_uid != geteuid())
		snprintf(why, len, "it belongs to uid %u, neither root nor this user", (unsigned)st->st_uid);
	else if ((st->st_mode & 022) && !(S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX)))
		snprintf(why, len, "it is writable by others (mode %03o)", (unsigned)(st->st_mode & 0777));
	else
		return true;
	return false;
}

bool shim_dir_trusted(int fd, char *why, size_t len)
{
	struct stat st;
	if (fstat(fd, &st) != 0) {
		snprintf(why, len, "it cannot be examined");
		return false;
	}
	return trusted(&st, why, len);
}

const char *shim_read_file(int dirfd, const char *path, bool strict, char *why, size_t len)
{
	/* O_NONBLOCK: opening a FIFO waits for no writer (a read then finds no regular file). */
	int fd = openat(dirfd, path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | (strict ? O_NOFOLLOW : 0));
	struct stat st;
	const char *text = NULL;
	if (fd < 0)
		snprintf(why, len, "%s",
			 errno == ELOOP && strict ? "it is a symbolic link, which a plan directory's files may not be"
			 : errno == ENOENT	  ? "it vanished"
						  : "it cannot be read");
	else if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		snprintf(why, len, "it is not a regular file");
	else if (!strict || trusted(&st, why, len)) {
		static char buf[SHIM_MAX_PLAN_BYTES + 1]; /* no malloc: this runs before the program */
		size_t n = 0;
		ssize_t got = 0;
		while (n < sizeof buf - 1 && (got = read(fd, buf + n, sizeof buf - 1 - n)) > 0)
			n += (size_t)got;
		if (n == sizeof buf - 1 || got < 0)
			snprintf(why, len, "it is larger than %d KiB, or could not be read", SHIM_MAX_PLAN_BYTES >> 10);
		else {
			buf[n] = '\0';
			text = buf;
		}
	}
	if (fd >= 0)
		close(fd);
	return text;
}

__attribute__((constructor)) static void init(void)
{
	const char *path = getenv("ECHO_PLAN"), *dir = getenv("ECHO_PLAN_DIR");
	bool from_dir = (!path || !*path) && dir && *dir;
	if ((!path || !*path) && !from_dir)
		return;
	if (!shim_enter())
		return;
	char why[256] = "";
	const char *text = from_dir ? NULL : shim_read_file(AT_FDCWD, path, false, why, sizeof why);
	if (from_dir) {
		shim_plan_dir(dir);
		if (shim_active()) {
			shim_locate_sites();
			shim_chain_init();
		}
	} else if (!text) {
		shim_passthrough("cannot read the plan %s: %s", path, why);
	} else if (shim_parse_plan(text, &shim_plan, why, sizeof why) != 0) {
		memset(&shim_plan, 0, sizeof shim_plan); /* nothing of a bad plan stays */
		shim_passthrough("the plan %s is unusable: %s", path, why);
	} else {
		char exe[96];
		shim_exe_identity(exe, sizeof exe);
		bool other = strcmp(exe, shim_plan.exe) != 0;
		if (other && shim_plan.name[0] && !shim_exe_named(shim_plan.name))
			/* another program that inherited the environment: a child, a launcher */
			shim_passthrough_quietly("the plan is for another executable (%s, %s; this is %s)",
						 shim_plan.name, shim_plan.exe, exe);
		else if (other)
			shim_passthrough("the plan is for another executable (%s, this is %s)", shim_plan.exe, exe);
		else if (!shim_plan.digest_ok)
			shim_passthrough("the plan's pairs %s: calibrate it again, or deploy it anyway with echoctl run --force",
					 shim_digest_problem(&shim_plan));
		else if (shim_plan.mode == MODE_DEPLOY && shim_plan.strategy == STRATEGY_MANAGED)
			/* managed memory cannot be mapped at a second address, so a pair served by it
			 * would be one buffer from its allocations on, before a linking copy showed the
			 * planned slots hold the planned buffers (bind.c) */
			shim_passthrough("the managed strategy is no longer deployed: it would merge buffers before their "
					 "linking copy confirms them; calibrate the plan again");
		else if (shim_plan.mode != MODE_MEASURE)
			shim_activate();
		if (shim_active()) {
			shim_locate_sites();
			shim_chain_init();
		}
		if (shim_plan.mode == MODE_VALIDATE)
			shim_validate_init();
		if (shim_plan.mode == MODE_RESOLVE)
			shim_staging_init();
	}
	shim_report_init();
	shim_leave();
}
