/*
 * repeated_solve: a stencil solver in the shape of Rodinia's hotspot, called once per input
 * as a library would call it. The power map goes to the device once and every step reads it;
 * the temperature steps between two device buffers (an array, as hotspot's MatrixTemp[2])
 * and comes back at the end. The host's power map is never freed (the program leaks it, as
 * hotspot does); the device's is.
 *
 * A rewrite that merges the power pair must free the one buffer where the device side was
 * freed: the original freed an allocation there. Run with CUDA_EMU_MEM_LIMIT at four
 * buffers, a rewrite that leaks it runs out by the third solve (the as-written program needs
 * three at a time). The pinned rewrite leaks the page-locked power map as the original leaked
 * the pageable one; past the limit its allocation falls back to malloc, and the output stays.
 *
 * Built like the workloads (kernel.h: g++ for the emulator, nvcc for a GPU); --iters is the
 * number of solves, --work the steps of each.
 */
#include "../../workloads/workload.h"

KERNEL5(step, const float *, power, const float *, src, float *, dst, size_t, n, int, unused)
{
	(void)unused;
	FOR_ALL(i, n)
	{
		float left = src[i > 0 ? i - 1 : i], right = src[i + 1 < n ? i + 1 : i];
		dst[i] = src[i] + 0.125f * (left + right - 2.0f * src[i]) + 0.01f * power[i];
	}
}

static uint64_t solve(size_t bytes, int steps, int input, uint64_t sum)
{
	size_t n = bytes / sizeof(float);
	float *power = (float *)malloc(bytes);
	float *temp = (float *)malloc(bytes);
	if (!power || !temp) {
		fprintf(stderr, "out of host memory for the input %d\n", input);
		exit(1);
	}
	for (size_t i = 0; i < n; i++) {
		power[i] = (float)((i * 7 + (size_t)input) % 13) * 0.5f;
		temp[i] = 300.0f + (float)(i % 17);
	}

	float *d_power, *d_temp[2];
	CHECK(cudaMalloc((void **)&d_power, bytes));
	CHECK(cudaMalloc((void **)&d_temp[0], bytes));
	CHECK(cudaMalloc((void **)&d_temp[1], bytes));
	CHECK(cudaMemcpy(d_temp[0], temp, bytes, cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(d_power, power, bytes, cudaMemcpyHostToDevice));
	int at = 0;
	for (int s = 0; s < steps; s++) {
		float *d_src = d_temp[at], *d_dst = d_temp[1 - at];
		int unused = 0;
		void *args[] = {&d_power, &d_src, &d_dst, &n, &unused};
		launch((const void *)step, n, args, 0);
		at = 1 - at;
	}
	CHECK(cudaMemcpy(temp, d_temp[at], bytes, cudaMemcpyDeviceToHost));
	sum = fnv1a(sum, temp, bytes);

	CHECK(cudaFree(d_power));
	CHECK(cudaFree(d_temp[0]));
	CHECK(cudaFree(d_temp[1]));
	free(temp);
	return sum;
}

int main(int argc, char **argv)
{
	struct options o = parse_options(argc, argv, {1 << 20, 4, 0, 3, "malloc", "mapped", false});
	uint64_t sum = FNV_OFFSET;
	struct laps l = laps_start(&o);
	for (int input = 0; input < o.warmup + o.iters; input++) {
		sum = solve(o.size, o.work, input, sum);
		lap(&l);
	}
	report(sum, &l);
	return 0;
}
