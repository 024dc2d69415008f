/*
 * helper_alloc: stream's loop, with every host buffer allocated through one helper, as real
 * programs do (alloc_or_die, a framework's allocator): every host allocation is made at one
 * site, and only the callers above the helper tell the buffers apart. Options allocate one
 * more buffer of the same size through the same helper, the way a switch of a real program
 * does; a plan made without them must never merge that buffer with a device buffer.
 *
 *   --verify        keep a copy of the input, allocated between the input and the output,
 *                   and check after every iteration that the copy still equals the input
 *                   (exit 1 if not): the buffer the issue's plan merged by mistake
 *   --verify-first  the same copy, allocated before the input
 *   --previous      keep the previous iteration's output, allocated through the output's own
 *                   allocator (another caller of the helper) before the output, and check it
 *                   is what the last iteration produced (exit 1 if not)
 *   --register      page-lock the input and output buffers with cudaHostRegister once they
 *                   are allocated (the same allocations, then locked by the program)
 *   --fork          after the loop, fork a child that overwrites the input and output host
 *                   buffers and exits; the parent's own copies must be as they were
 *
 * The other options are workload.h's.
 */
#include <sys/wait.h>
#include <unistd.h>

#include "workload.h"

SCALE_KERNEL(1.000001f, 0.5f)

/* The helper every host buffer comes from. noinline, and work after the call, so that the
 * compiler keeps it a function of its own whose call to malloc is not a tail call. */
__attribute__((noinline)) static float *alloc_or_die(size_t bytes)
{
	float *p = (float *)malloc(bytes);
	if (!p) {
		fprintf(stderr, "helper_alloc: out of memory\n");
		exit(3);
	}
	return p;
}

/* Two callers of the helper: the input's allocator and the output's. */
__attribute__((noinline)) static float *new_input(size_t bytes)
{
	float *p = alloc_or_die(bytes);
	p[0] = 0;
	return p;
}

__attribute__((noinline)) static float *new_output(size_t bytes)
{
	float *p = alloc_or_die(bytes);
	p[0] = -1;
	return p;
}

int main(int argc, char **argv)
{
	bool verify = take_flag(&argc, argv, "--verify"), verify_first = take_flag(&argc, argv, "--verify-first");
	bool previous = take_flag(&argc, argv, "--previous"), lock = take_flag(&argc, argv, "--register");
	bool forks = take_flag(&argc, argv, "--fork");
	struct options o = parse_options(argc, argv, {4 << 20, 20, 3, 1, "malloc", "mapped", false});
	size_t n = o.size / sizeof(float);
	float *h_saved = NULL, *h_prev = NULL, *d_in, *d_out;
	if (verify_first)
		h_saved = alloc_or_die(o.size);
	float *h_in = new_input(o.size);
	if (verify)
		h_saved = alloc_or_die(o.size);
	if (previous)
		h_prev = new_output(o.size);
	float *h_out = new_output(o.size);
	if (lock) {
		CHECK(cudaHostRegister(h_in, o.size, cudaHostRegisterDefault));
		CHECK(cudaHostRegister(h_out, o.size, cudaHostRegisterDefault));
	}
	CHECK(cudaMalloc((void **)&d_in, o.size));
	CHECK(cudaMalloc((void **)&d_out, o.size));
	fill_ramp(h_in, n);

	uint64_t sum = FNV_OFFSET, last = 0;
	struct laps l = laps_start(&o);
	for (int it = 0; it < o.warmup + o.iters; it++) {
		touch_pages(h_in, n, it);
		if (h_saved)
			memcpy(h_saved, h_in, o.size);
		CHECK(cudaMemcpy(d_in, h_in, o.size, cudaMemcpyHostToDevice));
		void *args[] = {&d_in, &d_out, &n, &o.work};
		launch((const void *)scale, n, args, 0);
		CHECK(cudaMemcpy(h_out, d_out, o.size, cudaMemcpyDeviceToHost));
		if (h_saved && memcmp(h_saved, h_in, o.size) != 0) {
			fprintf(stderr, "helper_alloc: the saved input changed in iteration %d\n", it);
			return 1;
		}
		if (h_prev && it > 0 && fnv1a(FNV_OFFSET, h_prev, o.size) != last) {
			fprintf(stderr, "helper_alloc: the previous output changed in iteration %d\n", it);
			return 1;
		}
		if (h_prev) {
			memcpy(h_prev, h_out, o.size);
			last = fnv1a(FNV_OFFSET, h_out, o.size);
		}
		sum = fnv1a_pages(sum, h_out, n);
		lap(&l);
	}
	if (forks) {
		pid_t child = fork();
		if (child == 0) {
			memset(h_in, 0xff, o.size);
			memset(h_out, 0xff, o.size);
			_exit(0);
		}
		int status;
		if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "helper_alloc: the child failed\n");
			return 1;
		}
	}
	report(fnv1a(fnv1a(sum, h_out, o.size), h_in, o.size), &l);
	CHECK(cudaFree(d_in));
	CHECK(cudaFree(d_out));
	if (lock) {
		CHECK(cudaHostUnregister(h_in));
		CHECK(cudaHostUnregister(h_out));
	}
	free(h_in);
	free(h_out);
	free(h_saved);
	free(h_prev);
	return 0;
}
