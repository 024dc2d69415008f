/*
 * shim/thp.c alone, for TestTHPEligible (shim/plantest): two fresh 8 MiB mappings, one as it
 * comes and one that asked for transparent huge pages (numpy's way), each written once, and
 * what shim_thp_eligible says of each: "plain=N madvised=N".
 */
#include <stdio.h>
#include <sys/mman.h>

#include "../../shim.h"

static char *mapping(int advice)
{
	size_t size = 8 << 20;
	char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (advice)
		madvise(p, size, advice);
	for (size_t i = 0; i < size; i += 4096)
		p[i] = 1;
	return p;
}

int main(void)
{
	char *plain = mapping(0), *madvised = mapping(MADV_HUGEPAGE);
	if (!plain || !madvised)
		return 1;
	printf("plain=%d madvised=%d\n", shim_thp_eligible(plain + 4096), shim_thp_eligible(madvised + 4096));
	return 0;
}
