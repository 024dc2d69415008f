/*
 * A copy→kernel→copy loop that, with --fork, runs in a forked child while the parent only
 * waits: as a program does that sets up in one process and computes in a worker. The loop is
 * called from one place either way, so a plan made from a run without --fork names the same
 * sites the child calls from. Exits with the loop's status.
 * Usage: forked_loop [--fork] [ITERATIONS] [BYTES]
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cuda_emulator.h"
#include "check.h"
#include "triple.h"

static int loop(int iters, size_t bytes)
{
	REGISTER_MAP_KERNEL(triple);
	uint32_t *h_in = malloc(bytes), *h_out = malloc(bytes), *d_in, *d_out;
	if (!h_in || !h_out)
		return 1;
	CHECK(cudaMalloc((void **)&d_in, bytes));
	CHECK(cudaMalloc((void **)&d_out, bytes));
	uint64_t sum = triple_loop(iters, bytes, h_in, h_out, d_in, d_out, 0);
	return report_and_free(sum, h_in, h_out, d_in, d_out);
}

int main(int argc, char **argv)
{
	int arg = 1;
	bool forked = argc > arg && strcmp(argv[arg], "--fork") == 0;
	arg += forked;
	int iters = argc > arg ? atoi(argv[arg]) : 8;
	size_t bytes = argc > arg + 1 ? strtoull(argv[arg + 1], NULL, 0) : 1 << 20;
	fflush(stdout);
	pid_t child = forked ? fork() : 0;
	if (child < 0) {
		perror("fork");
		return 1;
	}
	if (child > 0) {
		int status;
		if (waitpid(child, &status, 0) < 0) {
			perror("waitpid");
			return 1;
		}
		return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	}
	int rc = loop(iters, bytes);
	exit(rc); /* the child too runs its exit handlers: the shim's report among them */
}
