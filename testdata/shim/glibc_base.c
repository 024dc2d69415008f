/*
 * Whether the glibc version the shim's dlsym falls back to (SHIM_BASE_GLIBC, for a glibc
 * older than 2.34, which has no dlsym@GLIBC_2.34) names this architecture's dlsym: with
 * another architecture's, every dlsym in a process the shim is preloaded into would answer
 * NULL. Prints the version and exits 0 when dlvsym finds dlsym under it, 1 when not.
 */
#include <dlfcn.h>
#include <stdio.h>

#include "../../shim/shim.h"

int main(void)
{
	void *f = dlvsym(RTLD_DEFAULT, "dlsym", SHIM_BASE_GLIBC);
	printf("dlsym@%s %s\n", SHIM_BASE_GLIBC, f ? "found" : "missing");
	return f ? 0 : 1;
}
