/*
 * Copies that wait for a go: the shared tracer's test watches several of these at once and
 * checks that each process's copies are the ones it made. It maps the runtime and allocates,
 * says "ready" on stdout, and waits for a line on stdin (the tracer has joined it by then);
 * it then makes ITERATIONS host-to-device and as many device-to-host copies of BYTES, says
 * "done", and exits at the end of stdin, so that it lives until its events were read.
 * Usage: gated_copies ITERATIONS BYTES
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_emulator.h"
#include "check.h"

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: gated_copies ITERATIONS BYTES\n");
		return 2;
	}
	int iters = atoi(argv[1]);
	size_t bytes = strtoull(argv[2], NULL, 0);
	char *host = malloc(bytes), line[64];
	void *dev;
	if (!host)
		return 1;
	memset(host, 7, bytes);
	CHECK(cudaMalloc(&dev, bytes));
	printf("ready\n");
	fflush(stdout);
	if (!fgets(line, sizeof line, stdin))
		return 1;
	for (int it = 0; it < iters; it++) {
		CHECK(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice));
		CHECK(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost));
	}
	printf("done\n");
	fflush(stdout);
	while (fgets(line, sizeof line, stdin))
		;
	CHECK(cudaFree(dev));
	free(host);
	return 0;
}
