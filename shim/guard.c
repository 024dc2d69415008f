/* The recursion guard: the real runtime and allocator call back into hooked functions
 * (cudaHostAlloc may malloc); inside a hook every such call passes straight through. */
#include "shim.h"

static __thread int inside;

bool shim_enter(void)
{
	if (inside)
		return false;
	inside = 1;
	return true;
}

void shim_leave(void)
{
	inside = 0;
}
