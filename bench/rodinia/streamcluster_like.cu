/*
 * In the style of Rodinia's streamcluster (CUDA): the points are uploaded once, then every
 * call of pgain allocates its host and device work arrays, uploads the centre table and the
 * membership flags, runs one kernel that computes each point's gain against every centre,
 * copies the gain matrix back, reduces it on the host, and frees all of it. Many short calls,
 * every one of them allocating afresh: page-locking those buffers (the pinned strategy) costs
 * more than their small copies save, which is how a plan calibrated faster per iteration made
 * the real program 17 % slower as a whole (issue 26).
 * Usage: streamcluster_like [CALLS] [POINTS] [--pinned]   (300 16384)
 */
#include "common.h"

enum { DIM = 32, CENTRES = 16 };

static __global__ void gain(const float *points, const int *centre, const char *member, float *work, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	const float *p = points + (size_t)i * DIM;
	for (int k = 0; k < CENTRES; k++) {
		const float *c = points + (size_t)centre[k] * DIM;
		float d = 0;
		for (int j = 0; j < DIM; j++)
			d += (p[j] - c[j]) * (p[j] - c[j]);
		work[(size_t)i * (CENTRES + 1) + k] = member[i] ? -d : d;
	}
	work[(size_t)i * (CENTRES + 1) + CENTRES] = p[0];
}

int main(int argc, char **argv)
{
	std::vector<long> a = numbers(argc, argv);
	int calls = a.size() > 0 ? (int)a[0] : 300, n = a.size() > 1 ? (int)a[1] : 16384;
	std::vector<float> points((size_t)n * DIM);
	for (size_t i = 0; i < points.size(); i++)
		points[i] = (float)((i * 2654435761u) % 1000) / 1000.0f;
	float *d_points;
	CHECK(cudaMalloc(&d_points, points.size() * sizeof(float)));
	CHECK(cudaMemcpy(d_points, points.data(), points.size() * sizeof(float), cudaMemcpyHostToDevice));
	uint64_t sum = 1469598103934665603ull;
	std::vector<double> ms;
	for (int call = 0; call < calls; call++) {
		double t0 = now_ms();
		size_t work_bytes = (size_t)n * (CENTRES + 1) * sizeof(float);
		int *centre = (int *)host_alloc(CENTRES * sizeof(int));
		char *member = (char *)host_alloc(n);
		float *work = (float *)host_alloc(work_bytes);
		int *d_centre;
		char *d_member;
		float *d_work;
		CHECK(cudaMalloc(&d_centre, CENTRES * sizeof(int)));
		CHECK(cudaMalloc(&d_member, n));
		CHECK(cudaMalloc(&d_work, work_bytes));
		for (int k = 0; k < CENTRES; k++)
			centre[k] = (call * 7919 + k * 104729) % n;
		for (int i = 0; i < n; i++)
			member[i] = (char)((i + call) % 5 == 0);
		CHECK(cudaMemcpy(d_centre, centre, CENTRES * sizeof(int), cudaMemcpyHostToDevice));
		CHECK(cudaMemcpy(d_member, member, n, cudaMemcpyHostToDevice));
		gain<<<(n + 255) / 256, 256>>>(d_points, d_centre, d_member, d_work, n);
		CHECK(cudaGetLastError());
		CHECK(cudaMemcpy(work, d_work, work_bytes, cudaMemcpyDeviceToHost));
		double best = 0;
		for (int i = 0; i < n; i++)
			for (int k = 0; k < CENTRES; k++)
				best += work[(size_t)i * (CENTRES + 1) + k] < 0 ? 1 : 0;
		sum = fnv1a(sum, &best, sizeof best);
		sum = fnv1a(sum, work, work_bytes);
		CHECK(cudaFree(d_work));
		CHECK(cudaFree(d_member));
		CHECK(cudaFree(d_centre));
		host_free(work);
		host_free(member);
		host_free(centre);
		ms.push_back(now_ms() - t0);
	}
	CHECK(cudaFree(d_points));
	report(sum, ms);
	return 0;
}
