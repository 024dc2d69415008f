/* A site inside a shared library, for the symbols test (sites.c says how it is read). */
#include "libsites.h"

void lib_call(void (*cb)(const char *tag))
{
	cb("lib_call"); /* site: lib_call */
}
