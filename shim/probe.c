/*
 * Device probe (echoctl check): with ECHO_PROBE_RUNTIME naming a CUDA runtime library, the
 * shim opens it in whatever trivial program it was preloaded into, asks it what the device
 * is, and the run report (ECHO_REPORT) carries the answer: gpu, cc, driver, runtime,
 * pageable. echoctl is built without cgo (its arm64 build is cross-compiled), so this is how
 * it reaches a runtime at all. Nothing here runs without the variable.
 */
#include <dlfcn.h>
#include <stdlib.h>

#include "shim.h"

__attribute__((constructor)) static void probe_device(void)
{
	const char *path = getenv("ECHO_PROBE_RUNTIME");
	if (!path || !*path || !shim_enter())
		return;
	void *runtime = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!runtime) {
		shim_passthrough_quietly("cannot open %s: %s", path, dlerror());
	} else {
		shim_adopt_runtime(runtime);
		if (!shim_query_device())
			shim_passthrough_quietly("no GPU, or no driver the runtime can use");
	}
	shim_leave();
}
