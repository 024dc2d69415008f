// A CUDA file that copies nothing: neither it nor the header it includes calls the runtime's
// copy, so it cannot hold the pattern and the scan does not parse it (scan --parse-all does).
#include "kernels.cuh"

__global__ void scale(float *p, float s, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		p[i] = clampf(p[i] * s);
}
