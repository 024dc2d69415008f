//go:build ignore

// (The line above keeps go build from refusing a C file in a Go package without cgo.)

/*
 * The probed program for bench/trapcost.sh: CALLS calls of one empty function, timed.
 *
 *   target CALLS FUNC      FUNC: trap_plain, or on x86-64 trap_push or trap_endbr
 *
 * Prints "ns_per_call=N". trapcost attaches uprobes to FUNC in this executable by name, so
 * the functions stay global and the executable is not stripped.
 *
 * Why three functions: on x86-64 the kernel emulates some probed instructions (push, nop,
 * jumps and calls) in the trap handler and runs any other one out of line, single-stepped,
 * which is a second trap. A real library's first instruction decides which a probe pays:
 * trap_plain begins with what cc chooses (here an add to memory, run out of line),
 * trap_push with a frame push as most non-CET code does, trap_endbr with the endbr64 that
 * CET builds (-fcf-protection) put first.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Each call's one side effect, so that -O2 keeps every call. */
long trap_calls;

__attribute__((noinline)) void trap_plain(void)
{
	__asm__ volatile("");
	trap_calls++;
}

#ifdef __x86_64__
/* Written in assembly so that the first instruction is the one named, whatever cc does. */
__asm__(".text\n"
	".globl trap_push\n.type trap_push, @function\n"
	"trap_push:\n"
	"\tpush %rbp\n\tmov %rsp, %rbp\n\taddq $1, trap_calls(%rip)\n\tpop %rbp\n\tret\n"
	".size trap_push, .-trap_push\n"
	".globl trap_endbr\n.type trap_endbr, @function\n"
	"trap_endbr:\n"
	"\tendbr64\n\taddq $1, trap_calls(%rip)\n\tret\n"
	".size trap_endbr, .-trap_endbr\n");
void trap_push(void);
void trap_endbr(void);
#endif

static const struct {
	const char *name;
	void (*fn)(void);
} funcs[] = {
	{ "trap_plain", trap_plain },
#ifdef __x86_64__
	{ "trap_push", trap_push },
	{ "trap_endbr", trap_endbr },
#endif
};

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	const char *name = argc > 2 ? argv[2] : "trap_plain";
	void (*volatile fn)(void) = NULL;
	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
		if (strcmp(funcs[i].name, name) == 0)
			fn = funcs[i].fn;
	if (n <= 0 || !fn) {
		fprintf(stderr, "usage: target CALLS FUNC (trap_plain, trap_push, trap_endbr)\n");
		return 2;
	}
	/* The first hit of a probe maps the kernel's out-of-line slot page and sets up the
	 * thread's uprobe state: a one-off cost, kept out of the timed loop. */
	for (int i = 0; i < 1000; i++)
		fn();
	double t0 = now_ns();
	for (long i = 0; i < n; i++)
		fn();
	printf("ns_per_call=%.2f\n", (now_ns() - t0) / (double)n);
	return trap_calls == n + 1000 ? 0 : 1;
}
