// What a grep counts and the analysis does not: cudaMalloc and cudaMemcpy in one file, but
// the only copy is device to device, so no host buffer is linked to a device one. The scan
// says so in the file's note.
#include <cuda_runtime.h>

int main(void)
{
	float *a, *b;
	size_t bytes = 1024 * sizeof(float);
	cudaMalloc((void **)&a, bytes);
	cudaMalloc((void **)&b, bytes);
	cudaMemset(a, 0, bytes);
	cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
	cudaFree(b);
	cudaFree(a);
	return 0;
}
