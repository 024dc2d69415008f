// In the style of Rodinia's backprop: a two-layer network whose forward pass and weight
// adjustment run on the GPU, with the error computation on the host in between.
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define WIDTH 16
#define HEIGHT 16
#define ETA 0.3f
#define MOMENTUM 0.3f

typedef struct {
	int n_in, n_hid;
	float *input_units;  // n_in + 1
	float *hidden_units; // n_hid + 1
	float *hidden_delta; // n_hid + 1
} net_t;

__global__ void layer_forward(float *input, float *weights, float *partial, int n_in, int n_hid)
{
	int by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
	int row = HEIGHT * by + ty + 1;
	__shared__ float node[HEIGHT];
	__shared__ float m[HEIGHT][WIDTH];
	if (tx == 0)
		node[ty] = input[row];
	__syncthreads();
	m[ty][tx] = weights[row * (n_hid + 1) + tx + 1] * node[ty];
	__syncthreads();
	for (int s = HEIGHT / 2; s > 0; s /= 2) {
		if (ty < s)
			m[ty][tx] += m[ty + s][tx];
		__syncthreads();
	}
	if (ty == 0)
		partial[by * n_hid + tx] = m[0][tx];
}

__global__ void adjust_weights(float *delta, int n_hid, float *input, int n_in, float *weights, float *prev)
{
	int row = HEIGHT * blockIdx.y + threadIdx.y + 1, col = threadIdx.x + 1;
	int i = row * (n_hid + 1) + col;
	weights[i] += ETA * delta[col] * input[row] + MOMENTUM * prev[i];
	prev[i] = ETA * delta[col] * input[row] + MOMENTUM * prev[i];
}

static float squash(float x) { return 1.0f / (1.0f + expf(-x)); }

int main(void)
{
	net_t net;
	net.n_in = 16 * 64;
	net.n_hid = 16;
	int in = net.n_in, hid = net.n_hid, blocks = in / 16;
	net.input_units = (float *)malloc((in + 1) * sizeof(float));
	net.hidden_units = (float *)malloc((hid + 1) * sizeof(float));
	net.hidden_delta = (float *)malloc((hid + 1) * sizeof(float));
	float *weights = (float *)malloc((in + 1) * (hid + 1) * sizeof(float));
	float *prev_weights = (float *)malloc((in + 1) * (hid + 1) * sizeof(float));
	float *partial_sum = (float *)malloc(blocks * WIDTH * sizeof(float));
	for (int i = 0; i <= in; i++)
		net.input_units[i] = (float)(i % 7) / 7.0f;
	for (int i = 0; i < (in + 1) * (hid + 1); i++) {
		weights[i] = (float)((i * 37) % 101) / 101.0f - 0.5f;
		prev_weights[i] = 0.0f;
	}

	float *d_input, *d_weights, *d_partial, *d_delta, *d_prev;
	cudaMalloc((void **)&d_input, (in + 1) * sizeof(float));
	cudaMalloc((void **)&d_weights, (in + 1) * (hid + 1) * sizeof(float));
	cudaMalloc((void **)&d_partial, blocks * WIDTH * sizeof(float));
	cudaMalloc((void **)&d_delta, (hid + 1) * sizeof(float));
	cudaMalloc((void **)&d_prev, (in + 1) * (hid + 1) * sizeof(float));

	dim3 grid(1, blocks), threads(16, 16);
	cudaMemcpy(d_input, net.input_units, (in + 1) * sizeof(float), cudaMemcpyHostToDevice);
	cudaMemcpy(d_weights, weights, (in + 1) * (hid + 1) * sizeof(float), cudaMemcpyHostToDevice);
	layer_forward<<<grid, threads>>>(d_input, d_weights, d_partial, in, hid);
	cudaDeviceSynchronize();
	cudaMemcpy(partial_sum, d_partial, blocks * WIDTH * sizeof(float), cudaMemcpyDeviceToHost);

	// The host's part: sum the blocks' partial sums, squash, and the output error.
	for (int j = 1; j <= hid; j++) {
		float sum = 0;
		for (int k = 0; k < blocks; k++)
			sum += partial_sum[k * hid + j - 1];
		sum += weights[j];
		net.hidden_units[j] = squash(sum);
		net.hidden_delta[j] = net.hidden_units[j] * (1.0f - net.hidden_units[j]) * (0.5f - net.hidden_units[j]);
	}

	cudaMemcpy(d_delta, net.hidden_delta, (hid + 1) * sizeof(float), cudaMemcpyHostToDevice);
	cudaMemcpy(d_prev, prev_weights, (in + 1) * (hid + 1) * sizeof(float), cudaMemcpyHostToDevice);
	cudaMemcpy(d_weights, weights, (in + 1) * (hid + 1) * sizeof(float), cudaMemcpyHostToDevice);
	adjust_weights<<<grid, threads>>>(d_delta, hid, d_input, in, d_weights, d_prev);
	cudaMemcpy(net.input_units, d_input, (in + 1) * sizeof(float), cudaMemcpyDeviceToHost);
	cudaMemcpy(weights, d_weights, (in + 1) * (hid + 1) * sizeof(float), cudaMemcpyDeviceToHost);

	double check = 0;
	for (int i = 0; i < (in + 1) * (hid + 1); i++)
		check += weights[i];
	printf("checksum=%.4f\n", check);

	cudaFree(d_input);
	cudaFree(d_weights);
	cudaFree(d_partial);
	cudaFree(d_delta);
	cudaFree(d_prev);
	free(net.input_units);
	free(net.hidden_units);
	free(net.hidden_delta);
	free(weights);
	free(prev_weights);
	free(partial_sum);
	return 0;
}
