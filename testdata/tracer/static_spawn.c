/*
 * A statically linked launcher, as a static shell or a Go program is: it maps no dynamic
 * loader itself, then runs its arguments as a child and waits for it. `echoctl trace
 * --follow` must still see the dynamic child's CUDA calls.
 * Usage: static_spawn PROGRAM [ARGS...]
 */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s PROGRAM [ARGS...]\n", argv[0]);
		return 2;
	}
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		execv(argv[1], argv + 1);
		perror(argv[1]);
		_exit(127);
	}
	int status;
	if (waitpid(pid, &status, 0) < 0)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
