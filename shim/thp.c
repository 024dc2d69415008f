/*
 * Whether the kernel may back a buffer with transparent huge pages: its mapping's
 * THPeligible in /proc/self/smaps (madvise(MADV_HUGEPAGE) under the "madvise" setting, as
 * numpy asks for its large arrays, or every anonymous mapping under "always"). A first touch
 * of such a buffer faults 2 MiB at a time, several times faster than 4 KiB pages, which is
 * what the planner's first-touch saving needs to know (resolve mode, once per linked side).
 * Read with read(2) into a stack buffer: this runs inside copy hooks, where an allocation
 * would come back to the shim.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shim.h"

/* The lines of the file behind fd, one at a time, from a stack buffer. */
struct lines {
	int fd;
	char buf[4096];
	size_t len, pos;
};

/* The next line (without its newline) in *line, or false at the end. Lines longer than the
 * buffer are cut: smaps' are short. */
static bool next_line(struct lines *l, char *line, size_t size)
{
	size_t n = 0;
	for (;;) {
		if (l->pos == l->len) {
			ssize_t r = read(l->fd, l->buf, sizeof l->buf);
			if (r <= 0) {
				line[n] = 0;
				return n > 0;
			}
			l->len = (size_t)r;
			l->pos = 0;
		}
		char c = l->buf[l->pos++];
		if (c == '\n') {
			line[n] = 0;
			return true;
		}
		if (n + 1 < size)
			line[n++] = c;
	}
}

bool shim_thp_eligible(const void *p)
{
	struct lines l = {.fd = open("/proc/self/smaps", O_RDONLY | O_CLOEXEC)};
	if (l.fd < 0)
		return false;
	uintptr_t a = (uintptr_t)p;
	bool inside = false, eligible = false;
	char line[256];
	while (next_line(&l, line, sizeof line)) {
		char *end;
		unsigned long lo = strtoul(line, &end, 16), hi;
		if (*end == '-' && (hi = strtoul(end + 1, &end, 16), *end == ' ')) { /* a mapping's first line */
			if (inside)
				break;
			inside = a >= lo && a < hi;
		} else if (inside && !strncmp(line, "THPeligible:", 12)) {
			eligible = atoi(line + 12) == 1;
			break;
		}
	}
	close(l.fd);
	return eligible;
}
