// Included by includer.cu, after it defines real: parsed alone, real is unknown.
__global__ void negate(const real *in, real *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = -in[i];
}

int run_part(int n)
{
	size_t bytes = n * sizeof(real);
	real *h_in = (real *)malloc(bytes);
	real *h_out = (real *)malloc(bytes);
	real *d_in, *d_out;
	cudaMalloc((void **)&d_in, bytes);
	cudaMalloc((void **)&d_out, bytes);
	for (int i = 0; i < n; i++)
		h_in[i] = (real)i;
	cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice);
	negate<<<n / 256, 256>>>(d_in, d_out, n);
	cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost);
	int r = (int)h_out[1];
	cudaFree(d_out);
	cudaFree(d_in);
	free(h_out);
	free(h_in);
	return r;
}
