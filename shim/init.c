/* Start-up: read the compact plan named by ECHO_PLAN, check it is for this executable, and
 * arm the shim; or, with ECHO_PLAN_DIR instead, keep the directory's deployments for this
 * executable (plandir.c). Without either the shim stays out of the way, silently. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

/* What echoctl looks for before it preloads a file as this library (runner.CheckShim), so
 * that a stray, truncated or foreign file of the name is never preloaded into a program. */
SHIM_API const char echo_shim_marker[] = "echo preload library";

char *shim_read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	static char text[64 << 10]; /* no malloc: this runs before the program */
	size_t n = fread(text, 1, sizeof text - 1, f);
	bool whole = feof(f);
	fclose(f);
	if (!whole)
		return NULL;
	text[n] = '\0';
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
	char why[256];
	const char *text = from_dir ? NULL : shim_read_file(path);
	if (from_dir) {
		shim_plan_dir(dir);
		if (shim_active())
			shim_locate_sites();
	} else if (!text) {
		shim_passthrough("cannot read the plan %s", path);
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
			shim_passthrough("the plan's pairs are not the ones calibration measured (was it edited?): "
					 "calibrate it again, or deploy it anyway with echoctl run --force");
		else if (shim_plan.mode != MODE_MEASURE)
			shim_activate();
		if (shim_active())
			shim_locate_sites();
		if (shim_plan.mode == MODE_VALIDATE)
			shim_validate_init();
	}
	shim_report_init();
	shim_leave();
}
