/*
 * libechoclangout: preloaded into clang by `echoctl scan` and the source path's parses, so that
 * clang writes its AST dump to echoctl's pipe in 1 MiB blocks instead of 4 KiB ones.
 *
 * LLVM sizes its stdout buffer by the st_blksize fstat gives for the file (raw_fd_ostream::
 * preferred_buffer_size), and for a pipe that is the page size: a 3 GB dump (HeCBench's bm3d)
 * is then 800,000 write(2)s, 5.6 s of system time in clang alone against 1.2 s in 1 MiB blocks.
 * This library answers fstat on standard output, where that is a pipe, with st_blksize 1 MiB;
 * every other call, and every other field, is the real one. The bytes clang writes are the
 * same; only how many at a time changes.
 *
 * glibc 2.33 and later export fstat and fstat64 (the same function on 64-bit machines);
 * programs built against older ones call __fxstat64, also covered.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <sys/stat.h>

#define PIPE_BLOCK (1 << 20)

#define EXPORT __attribute__((visibility("default")))

/* widen gives a successful answer about standard output, a pipe, the 1 MiB block; rc is
 * the answer's return value, mode and blksize its fields (read after the call that set them). */
static int widen(int fd, int rc, const mode_t *mode, blksize_t *blksize)
{
	if (rc == 0 && fd == 1 && S_ISFIFO(*mode))
		*blksize = PIPE_BLOCK;
	return rc;
}

/* next is the definition of name after this library's, looked up once into *slot; NULL (the
 * call then fails with ENOSYS) where there is none. */
static void *next(const char *name, void **slot)
{
	if (!*slot)
		*slot = dlsym(RTLD_NEXT, name);
	if (!*slot)
		errno = ENOSYS;
	return *slot;
}

typedef int fstat_fn(int, struct stat *);
typedef int fstat64_fn(int, struct stat64 *);
typedef int fxstat64_fn(int, int, struct stat64 *);
static void *real_fstat, *real_fstat64, *real_fxstat64;

EXPORT int fstat(int fd, struct stat *st)
{
	fstat_fn *f = (fstat_fn *)next("fstat", &real_fstat);
	return widen(fd, f ? f(fd, st) : -1, &st->st_mode, &st->st_blksize);
}

EXPORT int fstat64(int fd, struct stat64 *st)
{
	fstat64_fn *f = (fstat64_fn *)next("fstat64", &real_fstat64);
	return widen(fd, f ? f(fd, st) : -1, &st->st_mode, &st->st_blksize);
}

EXPORT int __fxstat64(int ver, int fd, struct stat64 *st)
{
	fxstat64_fn *f = (fxstat64_fn *)next("__fxstat64", &real_fxstat64);
	return widen(fd, f ? f(ver, fd, st) : -1, &st->st_mode, &st->st_blksize);
}
