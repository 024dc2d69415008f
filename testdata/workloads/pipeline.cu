/*
 * pipeline: an inference-style loop with several pairs. The host prepares a frame (malloc)
 * and per-frame parameters (new[]), both are copied in, three kernels run (normalize, a
 * 9-tap convolution with weights copied once at start, a head producing a mask and scores),
 * the mask (cudaMallocHost) and scores (cudaHostAlloc) are copied out and post-processed on
 * the host. Four pairs: frame and params in, mask and scores out.
 */
#define WORKLOAD_MANUAL
#include "workload.h"

#define NPARAMS 16384 /* 64 KiB of parameters */
#define TAPS 9
#define GROUP 16 /* mask elements per score */

KERNEL4(normalize, const float *, frame, const float *, params, float *, feat, size_t, n)
{
	FOR_ALL(i, n)
	feat[i] = (frame[i] - params[i % NPARAMS]) * params[(i + 1) % NPARAMS];
}

KERNEL5(conv, const float *, feat, const float *, w, float *, act, size_t, n, int, work)
{
	FOR_ALL(i, n)
	{
		float acc = 0.0f;
		for (int r = 0; r < work; r++)
			for (int t = 0; t < TAPS; t++) {
				size_t j = i + t >= TAPS / 2 ? i + t - TAPS / 2 : 0;
				acc += w[t] * feat[j < n ? j : n - 1];
			}
		act[i] = acc / (float)work;
	}
}

KERNEL4(head, const float *, act, float *, mask, float *, scores, size_t, n)
{
	FOR_ALL(i, n)
	{
		mask[i] = act[i] > 0.5f ? 1.0f : 0.0f;
		if (i % GROUP == 0) {
			float s = 0.0f;
			for (size_t k = i; k < i + GROUP && k < n; k++)
				s += act[k];
			scores[i / GROUP] = s;
		}
	}
}

int main(int argc, char **argv)
{
	struct options o = parse_options(argc, argv, {1 << 20, 20, 3, 1, "malloc", "mapped", false});
	size_t n = o.size / sizeof(float), nscores = (n + GROUP - 1) / GROUP;
	size_t pbytes = NPARAMS * sizeof(float), sbytes = nscores * sizeof(float);
	float *d_feat, *d_act, *d_w;
	CHECK(cudaMalloc((void **)&d_feat, o.size));
	CHECK(cudaMalloc((void **)&d_act, o.size));
	CHECK(cudaMalloc((void **)&d_w, TAPS * sizeof(float)));
	float w[TAPS] = {0.05f, 0.1f, 0.1f, 0.15f, 0.2f, 0.15f, 0.1f, 0.1f, 0.05f};
	CHECK(cudaMemcpy(d_w, w, sizeof w, cudaMemcpyHostToDevice));
	struct merged frame = {}, params = {}, mask = {}, scores = {};
	float *h_frame, *h_params, *h_mask, *h_scores, *d_frame, *d_params, *d_mask, *d_scores;
	if (o.manual) {
		frame = merged_alloc(o.strategy, o.size), params = merged_alloc(o.strategy, pbytes);
		mask = merged_alloc(o.strategy, o.size), scores = merged_alloc(o.strategy, sbytes);
		h_frame = (float *)frame.host, d_frame = (float *)frame.dev;
		h_params = (float *)params.host, d_params = (float *)params.dev;
		h_mask = (float *)mask.host, d_mask = (float *)mask.dev;
		h_scores = (float *)scores.host, d_scores = (float *)scores.dev;
	} else {
		h_frame = (float *)malloc(o.size), h_params = new float[NPARAMS];
		CHECK(cudaMallocHost((void **)&h_mask, o.size));
		CHECK(cudaHostAlloc((void **)&h_scores, sbytes, cudaHostAllocDefault));
		CHECK(cudaMalloc((void **)&d_frame, o.size));
		CHECK(cudaMalloc((void **)&d_params, pbytes));
		CHECK(cudaMalloc((void **)&d_mask, o.size));
		CHECK(cudaMalloc((void **)&d_scores, sbytes));
	}
	for (size_t i = 0; i < NPARAMS; i++)
		h_params[i] = 0.5f + (float)(i % 11) * 0.05f;

	uint64_t sum = FNV_OFFSET;
	struct laps l = laps_start(&o);
	for (int it = 0; it < o.warmup + o.iters; it++) {
		/* pre-processing on the host: the next frame and this frame's parameters */
		for (size_t i = 0; i < n; i++)
			h_frame[i] = (float)((i * 7 + (size_t)it * 13) % 256) / 255.0f;
		for (size_t i = 0; i < 16; i++)
			h_params[(size_t)it * 16 % NPARAMS + i] = 0.6f + (float)((it + (int)i) % 9) * 0.05f;
		if (!o.manual) {
			CHECK(cudaMemcpy(d_frame, h_frame, o.size, cudaMemcpyHostToDevice));
			CHECK(cudaMemcpy(d_params, h_params, pbytes, cudaMemcpyHostToDevice));
		}
		void *a1[] = {&d_frame, &d_params, &d_feat, &n};
		launch((const void *)normalize, n, a1, 0);
		void *a2[] = {&d_feat, &d_w, &d_act, &n, &o.work};
		launch((const void *)conv, n, a2, 0);
		void *a3[] = {&d_act, &d_mask, &d_scores, &n};
		launch((const void *)head, n, a3, 0);
		if (o.manual) {
			CHECK(cudaDeviceSynchronize());
		} else {
			CHECK(cudaMemcpy(h_mask, d_mask, o.size, cudaMemcpyDeviceToHost));
			CHECK(cudaMemcpy(h_scores, d_scores, sbytes, cudaMemcpyDeviceToHost));
		}
		/* post-processing on the host: best score and mask coverage */
		size_t best = 0, covered = 0;
		for (size_t j = 1; j < nscores; j++)
			if (h_scores[j] > h_scores[best])
				best = j;
		for (size_t i = 0; i < n; i++)
			covered += h_mask[i] > 0.0f;
		sum = fnv1a(sum, &best, sizeof best);
		sum = fnv1a(sum, &covered, sizeof covered);
		sum = fnv1a(sum, &h_scores[best], sizeof(float));
		lap(&l);
	}
	report(fnv1a(fnv1a(sum, h_mask, o.size), h_scores, sbytes), &l);

	if (o.manual) {
		merged_free(o.strategy, frame);
		merged_free(o.strategy, params);
		merged_free(o.strategy, mask);
		merged_free(o.strategy, scores);
	} else {
		CHECK(cudaFree(d_frame));
		CHECK(cudaFree(d_params));
		CHECK(cudaFree(d_mask));
		CHECK(cudaFree(d_scores));
		CHECK(cudaFreeHost(h_mask));
		CHECK(cudaFreeHost(h_scores));
		free(h_frame);
		delete[] h_params;
	}
	CHECK(cudaFree(d_feat));
	CHECK(cudaFree(d_act));
	CHECK(cudaFree(d_w));
	return 0;
}
