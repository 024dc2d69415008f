/*
 * Resolve mode: whether the kernel may back a host buffer with transparent huge pages, from
 * the THPeligible line of its mapping in /proc/self/smaps. A program faults a fresh buffer in
 * 2 MiB at a time where it may (numpy asks with madvise), 4 KiB at a time where it may not (a
 * C program's malloc under the usual "madvise" setting), several times slower: the
 * prediction prices pinned's pool, which spares those faults, by the rate that applies.
 * Read with plain system calls into a static buffer: the allocator is hooked, and the caller
 * holds the shim's lock.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shim.h"

static char buf[16 << 10];

/* The mapping line "start-end perms ...": whether it is one, and whether it holds p. */
static bool mapping_line(const char *line, uintptr_t p, bool *holds)
{
	char *end;
	uintptr_t lo = strtoull(line, &end, 16);
	if (end == line || *end != '-')
		return false;
	uintptr_t hi = strtoull(end + 1, &end, 16);
	if (*end != ' ')
		return false;
	*holds = p >= lo && p < hi;
	return true;
}

/* One line of smaps: updates where in the file the scan is; 1 or 0 once p's mapping's
 * THPeligible line is read, -1 until then. */
static int scan_line(const char *line, uintptr_t p, bool *in_mapping)
{
	bool holds;
	if (mapping_line(line, p, &holds)) {
		*in_mapping = holds;
		return -1;
	}
	if (*in_mapping && strncmp(line, "THPeligible:", 12) == 0)
		return atoi(line + 12) != 0;
	return -1;
}

int shim_thp_eligible(const void *ptr)
{
	int fd = open("/proc/self/smaps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	bool in_mapping = false;
	int found = -1;
	size_t have = 0;
	for (;;) {
		ssize_t n = read(fd, buf + have, sizeof buf - 1 - have);
		if (n <= 0)
			break;
		have += (size_t)n;
		buf[have] = 0;
		char *line = buf, *nl;
		while (found < 0 && (nl = strchr(line, '\n'))) {
			*nl = 0;
			found = scan_line(line, (uintptr_t)ptr, &in_mapping);
			line = nl + 1;
		}
		if (found >= 0)
			break;
		have -= (size_t)(line - buf); /* the partial line, to the front */
		memmove(buf, line, have);
		if (have == sizeof buf - 1) /* a line longer than the buffer: no smaps this is */
			break;
	}
	close(fd);
	return found;
}
