// In the style of Rodinia's nw (Needleman-Wunsch): a score matrix filled on the GPU one
// anti-diagonal of blocks per launch, top-left half then bottom-right half, then a traceback
// on the host. The matrix goes in from one host array and comes back into another.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define BLOCK_SIZE 16

__device__ int maximum(int a, int b, int c)
{
	int k = a > b ? a : b;
	return k > c ? k : c;
}

__global__ void needle_upper(int *reference, int *matrix, int cols, int penalty, int diag, int block_width)
{
	int bx = blockIdx.x, tx = threadIdx.x;
	int b_x = bx + block_width - diag, b_y = diag - 1 - bx;
	int base = cols * BLOCK_SIZE * b_y + BLOCK_SIZE * b_x + cols + 1;
	for (int m = 0; m < BLOCK_SIZE; m++) {
		int i = base + cols * m + tx;
		matrix[i] = maximum(matrix[i - cols - 1] + reference[i], matrix[i - 1] - penalty, matrix[i - cols] - penalty);
	}
}

__global__ void needle_lower(int *reference, int *matrix, int cols, int penalty, int diag, int block_width)
{
	int bx = blockIdx.x, tx = threadIdx.x;
	int b_x = bx + block_width - diag, b_y = block_width - bx - 1;
	int base = cols * BLOCK_SIZE * b_y + BLOCK_SIZE * b_x + cols + 1;
	for (int m = 0; m < BLOCK_SIZE; m++) {
		int i = base + cols * m + tx;
		matrix[i] = maximum(matrix[i - cols - 1] + reference[i], matrix[i - 1] - penalty, matrix[i - cols] - penalty);
	}
}

int main(int argc, char **argv)
{
	int max_rows = (argc > 1 ? atoi(argv[1]) : 1024) + 1, max_cols = max_rows;
	int penalty = 10;
	int *reference = (int *)malloc(max_rows * max_cols * sizeof(int));
	int *input_itemsets = (int *)malloc(max_rows * max_cols * sizeof(int));
	int *output_itemsets = (int *)malloc(max_rows * max_cols * sizeof(int));
	srand(7);
	for (int i = 0; i < max_rows * max_cols; i++)
		input_itemsets[i] = 0;
	for (int i = 1; i < max_rows; i++)
		input_itemsets[i * max_cols] = rand() % 10 + 1;
	for (int j = 1; j < max_cols; j++)
		input_itemsets[j] = rand() % 10 + 1;
	for (int i = 1; i < max_rows; i++)
		for (int j = 1; j < max_cols; j++)
			reference[i * max_cols + j] = (input_itemsets[i * max_cols] * input_itemsets[j]) % 11 - 5;
	for (int i = 1; i < max_rows; i++)
		input_itemsets[i * max_cols] = -i * penalty;
	for (int j = 1; j < max_cols; j++)
		input_itemsets[j] = -j * penalty;

	int size = max_cols * max_rows;
	int *reference_cuda, *matrix_cuda;
	cudaMalloc((void **)&reference_cuda, sizeof(int) * size);
	cudaMalloc((void **)&matrix_cuda, sizeof(int) * size);
	cudaMemcpy(reference_cuda, reference, sizeof(int) * size, cudaMemcpyHostToDevice);
	cudaMemcpy(matrix_cuda, input_itemsets, sizeof(int) * size, cudaMemcpyHostToDevice);

	dim3 threads(BLOCK_SIZE);
	int block_width = (max_cols - 1) / BLOCK_SIZE;
	for (int i = 1; i <= block_width; i++)
		needle_upper<<<i, threads>>>(reference_cuda, matrix_cuda, max_cols, penalty, i, block_width);
	for (int i = block_width - 1; i >= 1; i--)
		needle_lower<<<i, threads>>>(reference_cuda, matrix_cuda, max_cols, penalty, i, block_width);
	cudaMemcpy(output_itemsets, matrix_cuda, sizeof(int) * size, cudaMemcpyDeviceToHost);

	// Traceback from the bottom-right corner.
	long score = 0;
	for (int i = max_rows - 1, j = max_cols - 1; i > 0 && j > 0;) {
		int here = output_itemsets[i * max_cols + j];
		score += here;
		if (here == output_itemsets[(i - 1) * max_cols + j - 1] + reference[i * max_cols + j]) {
			i--;
			j--;
		} else if (here == output_itemsets[(i - 1) * max_cols + j] - penalty) {
			i--;
		} else {
			j--;
		}
	}
	printf("checksum=%ld\n", score);

	cudaFree(reference_cuda);
	cudaFree(matrix_cuda);
	free(reference);
	free(input_itemsets);
	free(output_itemsets);
	return 0;
}
