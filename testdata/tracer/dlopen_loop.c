/*
 * Opens and closes a library over and over once told to: each dlopen and dlclose passes the
 * dynamic loader's hook twice, which the tracer's loader probe notices. It says "ready" on
 * stdout and waits for a line on stdin (the tracer has its probe in place by then), then
 * opens and closes LIBRARY COUNT times and exits.
 * Usage: dlopen_loop LIBRARY COUNT
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: dlopen_loop LIBRARY COUNT\n");
		return 2;
	}
	char line[64];
	printf("ready\n");
	fflush(stdout);
	if (!fgets(line, sizeof line, stdin))
		return 1;
	for (int i = 0, n = atoi(argv[2]); i < n; i++) {
		void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
		if (!lib) {
			fprintf(stderr, "dlopen %s: %s\n", argv[1], dlerror());
			return 1;
		}
		dlclose(lib);
	}
	return 0;
}
