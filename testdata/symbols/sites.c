/* sites prints where its marked calls return to, as the tracer names a site: one line
 * "TAG MODULE OFFSET" per call, the offset counted from the address of the module's file
 * offset 0 (shim/site.c's load_range, the tracer's Base). The symbols test resolves each
 * site and checks the function and the line against the marker comment on the call. Built
 * as a PIE and as a non-PIE executable, both calling into libsites.so. */
#define _GNU_SOURCE
#include <limits.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "libsites.h"

struct find {
	uintptr_t addr;
	const char *path;
	uintptr_t base;
};

static int visit(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct find *f = data;
	uintptr_t lo = UINTPTR_MAX, hi = 0, base = 0;
	ElfW(Off) first = (ElfW(Off))-1;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;
		lo = start < lo ? start : lo;
		hi = start + ph->p_memsz > hi ? start + ph->p_memsz : hi;
		if (ph->p_offset < first)
			first = ph->p_offset, base = start - ph->p_offset;
	}
	if (f->addr < lo || f->addr >= hi)
		return 0;
	f->path = info->dlpi_name, f->base = base;
	return 1;
}

/* record prints the site it was called from. */
__attribute__((noinline)) void record(const char *tag)
{
	struct find f = {.addr = (uintptr_t)__builtin_extract_return_addr(__builtin_return_address(0))};
	if (!dl_iterate_phdr(visit, &f)) {
		printf("%s ? 0\n", tag);
		return;
	}
	char exe[PATH_MAX];
	if (f.path == NULL || f.path[0] == '\0') { /* the executable itself */
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		exe[n > 0 ? n : 0] = '\0';
		f.path = exe;
	}
	printf("%s %s %#lx\n", tag, f.path, (unsigned long)(f.addr - f.base));
}

/* helper is local: only .symtab names it. */
static __attribute__((noinline)) void helper(void)
{
	record("helper"); /* site: helper */
}

int main(void)
{
	record("main"); /* site: main */
	helper();
	lib_call(record);
	return 0;
}
