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

/*
 * A module's identity, as the planner names it (planner.moduleID): its GNU build-id, or
 * size:N:NAME for a file without one, NAME being the file's own name. The executable's
 * dlpi_name is empty: its file is /proc/self/exe, and its name is that link's target's, not
 * "exe".
 */
static void module_id(const struct dl_phdr_info *info, char *out, size_t len)
{
	if (build_id(info, out, len))
		return;
	char exe[512];
	const char *path = info->dlpi_name, *name = NULL;
	if (!path || !path[0]) {
		path = "/proc/self/exe";
		name = exe_file_name(exe, sizeof exe);
	}
	if (!name) {
		const char *slash = strrchr(path, '/');
		name = slash ? slash + 1 : path;
	}
	struct stat st;
	if (snprintf(out, len, "size:%lld:%s", stat(path, &st) == 0 ? (long long)st.st_size : -1LL, name) >= (int)len)
		snprintf(out, len, "?"); /* a name too long to carry: an identity no plan names */
}

struct lookup {
	uintptr_t addr;
	struct module *found;
};

/* The address range of a loaded object's segments, and where its file offset 0 is mapped
 * (the tracer's Base, which site offsets count from). */
static void load_range(const struct dl_phdr_info *info, uintptr_t *lo, uintptr_t *hi, uintptr_t *base)
{
	*lo = UINTPTR_MAX, *hi = 0, *base = 0;
	ElfW(Off) first_offset = (ElfW(Off))-1;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t start = info->dlpi_addr + ph->p_vaddr, stop = start + ph->p_memsz;
		*lo = start < *lo ? start : *lo;
		*hi = stop > *hi ? stop : *hi;
		if (ph->p_offset < first_offset) {
			first_offset = ph->p_offset;
			*base = start - ph->p_offset;
		}
	}
}

static int visit(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct lookup *l = data;
	uintptr_t lo, hi, base;
	load_range(info, &lo, &hi, &base);
	if (l->addr < lo || l->addr >= hi || nmodules == MAX_MODULES)
		return 0;
	struct module *m = &modules[nmodules];
	m->lo = lo;
	m->hi = hi;
	m->base = base;
	module_id(info, m->id, sizeof m->id);
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

static int first(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	module_id(info, data, 96);
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

struct locate {
	const struct site *site;
	uintptr_t at;
	char *name;
	size_t len;
	bool full; /* name is the whole path, not the file name */
};

static int find_module(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct locate *l = data;
	char id[96];
	module_id(info, id, sizeof id);
	if (strcmp(id, l->site->module) != 0)
		return 0;
	uintptr_t lo, hi, base;
	load_range(info, &lo, &hi, &base);
	l->at = base + l->site->offset;
	char exe[512];
	const char *name = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : exe_file_name(exe, sizeof exe);
	if (l->full && !(info->dlpi_name && info->dlpi_name[0]))
		name = exe; /* exe_file_name left the whole path there */
	const char *slash = name && !l->full ? strrchr(name, '/') : NULL;
	snprintf(l->name, l->len, "%s", slash ? slash + 1 : name ? name : "?");
	return 1;
}

/* The path of the file a site's module was loaded from, in path (len bytes); "" when no
 * loaded module is the site's. */
void shim_site_path(const struct site *s, char *path, size_t len)
{
	struct locate l = {s, 0, path, len, true};
	path[0] = '\0';
	dl_iterate_phdr(find_module, &l);
}

/* Where a site's return address is in this process, and its module's file name (len bytes);
 * 0 when no loaded module is the site's. */
uintptr_t shim_site_address(const struct site *s, char *name, size_t len)
{
	struct locate l = {s, 0, name, len, false};
	dl_iterate_phdr(find_module, &l);
	return l.at;
}
