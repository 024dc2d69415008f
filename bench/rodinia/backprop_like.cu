/*
 * In the style of Rodinia's backprop (CUDA): a two-layer network whose input layer is wide.
 * Every epoch uploads the input units and the input weights, runs the forward kernel, copies
 * the per-block partial sums back, finishes the hidden and output layers and their errors on
 * the host, uploads the hidden deltas and the previous weight changes, runs the weight
 * adjustment, and copies the adjusted weights and weight changes back: copy-bound, its host
 * and device buffers allocated once, the pattern a merge serves best.
 * Usage: backprop_like [EPOCHS] [INPUTS] [--pinned]   (40 65536)
 */
#include "common.h"

enum { HIDDEN = 16, BLOCK = 16 };

/* Each block sums its BLOCK input units per hidden unit in shared memory, in a fixed order
 * (as backprop's layerforward does), so every run prints the same checksum. */
static __global__ void forward(const float *in, const float *w, float *partial, int n)
{
	__shared__ float m[BLOCK][HIDDEN];
	int j = blockIdx.y * BLOCK + threadIdx.y + 1; /* input unit, 1-based as in backprop */
	int k = threadIdx.x + 1;                      /* hidden unit */
	m[threadIdx.y][threadIdx.x] = j <= n ? in[j] * w[(size_t)j * (HIDDEN + 1) + k] : 0;
	__syncthreads();
	for (int s = BLOCK / 2; s > 0; s /= 2) {
		if (threadIdx.y < s)
			m[threadIdx.y][threadIdx.x] += m[threadIdx.y + s][threadIdx.x];
		__syncthreads();
	}
	if (threadIdx.y == 0)
		partial[blockIdx.y * HIDDEN + threadIdx.x] = m[0][threadIdx.x];
}

static __global__ void adjust(const float *delta, const float *in, float *w, float *oldw, int n)
{
	int j = blockIdx.y * BLOCK + threadIdx.y + 1;
	int k = threadIdx.x + 1;
	if (j > n)
		return;
	size_t i = (size_t)j * (HIDDEN + 1) + k;
	float change = 0.3f * delta[k] * in[j] + 0.3f * oldw[i];
	w[i] += change;
	oldw[i] = change;
}

int main(int argc, char **argv)
{
	std::vector<long> a = numbers(argc, argv);
	int epochs = a.size() > 0 ? (int)a[0] : 40, n = a.size() > 1 ? (int)a[1] : 65536;
	int blocks = n / BLOCK;
	size_t in_bytes = (n + 1) * sizeof(float), w_bytes = (size_t)(n + 1) * (HIDDEN + 1) * sizeof(float);
	size_t part_bytes = (size_t)blocks * HIDDEN * sizeof(float), delta_bytes = (HIDDEN + 1) * sizeof(float);
	float *in = (float *)host_alloc(in_bytes), *w = (float *)host_alloc(w_bytes);
	float *oldw = (float *)host_alloc(w_bytes), *partial = (float *)host_alloc(part_bytes);
	float *delta = (float *)host_alloc(delta_bytes);
	for (size_t i = 0; i < w_bytes / sizeof(float); i++)
		w[i] = (float)((i * 2654435761u) % 1000) / 1e5f, oldw[i] = 0;
	float *d_in, *d_w, *d_oldw, *d_partial, *d_delta;
	CHECK(cudaMalloc(&d_in, in_bytes));
	CHECK(cudaMalloc(&d_w, w_bytes));
	CHECK(cudaMalloc(&d_oldw, w_bytes));
	CHECK(cudaMalloc(&d_partial, part_bytes));
	CHECK(cudaMalloc(&d_delta, delta_bytes));
	uint64_t sum = 1469598103934665603ull;
	std::vector<double> ms;
	dim3 grid(1, blocks), block(HIDDEN, BLOCK);
	for (int e = 0; e < epochs; e++) {
		double t0 = now_ms();
		for (int j = 0; j <= n; j++)
			in[j] = (float)((j + e) % 17) / 17.0f;
		CHECK(cudaMemcpy(d_in, in, in_bytes, cudaMemcpyHostToDevice));
		CHECK(cudaMemcpy(d_w, w, w_bytes, cudaMemcpyHostToDevice));
		forward<<<grid, block>>>(d_in, d_w, d_partial, n);
		CHECK(cudaGetLastError());
		CHECK(cudaMemcpy(partial, d_partial, part_bytes, cudaMemcpyDeviceToHost));
		float hidden[HIDDEN + 1] = {0};
		for (int b = 0; b < blocks; b++)
			for (int k = 0; k < HIDDEN; k++)
				hidden[k + 1] += partial[b * HIDDEN + k];
		for (int k = 1; k <= HIDDEN; k++) {
			float h = 1.0f / (1.0f + expf(-hidden[k] / n));
			delta[k] = h * (1 - h) * (0.5f - h);
		}
		delta[0] = 0;
		CHECK(cudaMemcpy(d_delta, delta, delta_bytes, cudaMemcpyHostToDevice));
		CHECK(cudaMemcpy(d_oldw, oldw, w_bytes, cudaMemcpyHostToDevice));
		adjust<<<grid, block>>>(d_delta, d_in, d_w, d_oldw, n);
		CHECK(cudaGetLastError());
		CHECK(cudaMemcpy(w, d_w, w_bytes, cudaMemcpyDeviceToHost));
		CHECK(cudaMemcpy(oldw, d_oldw, w_bytes, cudaMemcpyDeviceToHost));
		ms.push_back(now_ms() - t0);
	}
	sum = fnv1a(sum, w, w_bytes);
	sum = fnv1a(sum, oldw, w_bytes);
	for (float *d : {d_in, d_w, d_oldw, d_partial, d_delta})
		CHECK(cudaFree(d));
	for (float *h : {in, w, oldw, partial, delta})
		host_free(h);
	report(sum, ms);
	return 0;
}
