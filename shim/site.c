/*
 * Call sites as the planner names them: the module (by build-id, read from the loaded
 * image's PT_NOTE, or size:N:BASENAME without one), the return address as an offset from the
 * module's first mapping, the function called and the size. Modules are looked up once and
 * cached; the lookup runs only for calls whose size a plan names.
 */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shim.h"

#define MAX_MODULES 64

struct module {
	uintptr_t lo, hi; /* the address range of its loaded segments */
	uintptr_t base;   /* its first mapping: the tracer's Base */
	char id[96];
};

static struct module modules[MAX_MODULES];
static int nmodules;

static void hex(const unsigned char *b, size_t n, char *out, size_t len)
{
	size_t i;
	for (i = 0; i < n && 2 * i + 2 < len; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
	out[2 * i] = '\0';
}

/* The GNU build-id of a loaded object, from its PT_NOTE segments in memory. */
static bool build_id(const struct dl_phdr_info *info, char *out, size_t len)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
		const unsigned char *end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
			const unsigned char *name = p + sizeof *n;
			const unsigned char *desc = name + ((n->n_namesz + 3) & ~3u);
			if (desc + n->n_descsz > end)
				break;
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && !memcmp(name, "GNU", 4)) {
				hex(desc, n->n_descsz, out, len);
				return true;
			}
			p = desc + ((n->n_descsz + 3) & ~3u);
		}
	}
	return false;
}

struct lookup {
	uintptr_t addr;
	struct module *found;
};

static int visit(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct lookup *l = data;
	uintptr_t lo = UINTPTR_MAX, hi = 0, base = 0;
	ElfW(Off) first_offset = (ElfW(Off))-1;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t start = info->dlpi_addr + ph->p_vaddr, stop = start + ph->p_memsz;
		lo = start < lo ? start : lo;
		hi = stop > hi ? stop : hi;
		if (ph->p_offset < first_offset) { /* where file offset 0 is mapped */
			first_offset = ph->p_offset;
			base = start - ph->p_offset;
		}
	}
	if (l->addr < lo || l->addr >= hi || nmodules == MAX_MODULES)
		return 0;
	struct module *m = &modules[nmodules];
	m->lo = lo;
	m->hi = hi;
	m->base = base;
	if (!build_id(info, m->id, sizeof m->id)) {
		const char *path = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : "/proc/self/exe";
		struct stat st;
		const char *base = strrchr(path, '/');
		snprintf(m->id, sizeof m->id, "size:%lld:%s", stat(path, &st) == 0 ? (long long)st.st_size : -1LL,
			 base ? base + 1 : path);
	}
	nmodules++;
	l->found = m;
	return 1;
}

static struct module *module_of(uintptr_t addr)
{
	for (int i = 0; i < nmodules; i++)
		if (addr >= modules[i].lo && addr < modules[i].hi)
			return &modules[i];
	struct lookup l = {addr, NULL};
	dl_iterate_phdr(visit, &l);
	return l.found;
}

/* Caller holds shim_lock. */
void shim_site_of(const void *ret, const char *call, uint64_t bytes, struct site *out)
{
	memset(out, 0, sizeof *out);
	struct module *m = module_of((uintptr_t)ret);
	if (m) {
		memcpy(out->module, m->id, sizeof out->module);
		out->offset = (uintptr_t)ret - m->base;
	} else {
		snprintf(out->module, sizeof out->module, "?");
		out->offset = (uintptr_t)ret;
	}
	snprintf(out->call, sizeof out->call, "%s", call);
	out->bytes = bytes;
}

bool shim_site_equal(const struct site *a, const struct site *b)
{
	return a->offset == b->offset && a->bytes == b->bytes && !strcmp(a->call, b->call) &&
	       !strcmp(a->module, b->module);
}

/* The file name of this process's executable, in path (len bytes); NULL if unknown. */
static const char *exe_file_name(char *path, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", path, len - 1);
	if (n <= 0)
		return NULL;
	path[n] = '\0';
	const char *base = strrchr(path, '/');
	return base ? base + 1 : path;
}

static int first(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	char *out = data;
	if (!build_id(info, out, 96)) {
		struct stat st;
		snprintf(out, 96, "size:%lld:", stat("/proc/self/exe", &st) == 0 ? (long long)st.st_size : -1LL);
		char path[512];
		const char *name = exe_file_name(path, sizeof path);
		if (name)
			strncat(out, name, 95 - strlen(out));
	}
	return 1; /* the first object is the executable */
}

/* Whether this process's executable file is called name. */
bool shim_exe_named(const char *name)
{
	char path[512];
	const char *mine = exe_file_name(path, sizeof path);
	return mine && strcmp(mine, name) == 0;
}

/* The executable's identity, as the plan's exe line names it. */
void shim_exe_identity(char *out, size_t len)
{
	char id[96] = "";
	dl_iterate_phdr(first, id);
	snprintf(out, len, "%s", id);
}
