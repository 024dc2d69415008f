// What shim/bind.c rests on, on a real GPU: a memory file's shared mapping, page-locked with
// cudaHostRegister, used by kernels at its host address as device memory; another host
// address mapped onto the same file (a pair bound at its linking copy) sees the kernels'
// writes and the GPU sees its writes; copies and memsets on the registered mapping work; and
// a kernel over it runs as fast as over cudaHostAlloc memory. Last, whether an unregistered
// mapping is reachable (the system strategy: pageable memory access). bench/identity_gpu.sh.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <time.h>
#define CK(x) do { cudaError_t e = (x); if (e) { printf("FAIL %s: %s\n", #x, cudaGetErrorString(e)); } } while (0)
__global__ void twice(float *d, size_t n) { for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) d[i] = d[i] * 2 + 1; }
static double now() { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main() { setvbuf(stdout, NULL, _IONBF, 0);
	size_t n = 16 << 20, bytes = n * sizeof(float);
	int v = -1; CK(cudaDeviceGetAttribute(&v, cudaDevAttrCanUseHostPointerForRegisteredMem, 0)); printf("canUseHostPtr=%d\n", v);
	CK(cudaDeviceGetAttribute(&v, cudaDevAttrPageableMemoryAccess, 0)); printf("pageable=%d\n", v);
	int fd = memfd_create("echo", MFD_CLOEXEC); if (ftruncate(fd, bytes)) return 1;
	float *D = (float *)mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	double t0 = now(); CK(cudaHostRegister(D, bytes, cudaHostRegisterMapped)); printf("register %.3f ms\n", (now() - t0) * 1e3);
	void *dp = NULL; CK(cudaHostGetDevicePointer(&dp, D, 0)); printf("devptr==D %d\n", dp == D);
	float *H = (float *)mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (size_t i = 0; i < n; i++) H[i] = i % 1000;
	CK(cudaMemcpy(D, H, bytes, cudaMemcpyHostToDevice)); // H2D into registered memory: the confirming copy
	void *r = mmap(H, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0); printf("remap ok %d\n", r == H);
	H[5] = 7; // host write after merge reaches the GPU
	twice<<<256, 256>>>(D, n); CK(cudaDeviceSynchronize());
	int bad = 0; for (size_t i = 0; i < n; i++) { float want = (i == 5 ? 7 : i % 1000) * 2 + 1; if (H[i] != want) bad++; }
	printf("host sees kernel writes: bad=%d\n", bad);
	float *o = (float *)malloc(bytes); CK(cudaMemcpy(o, D, bytes, cudaMemcpyDeviceToHost)); printf("D2H from D ok %d\n", o[5] == 15);
	CK(cudaMemset(D, 0, bytes)); CK(cudaDeviceSynchronize()); printf("memset seen %d\n", H[5] == 0);
	float *dd; CK(cudaMalloc(&dd, bytes)); CK(cudaMemcpy(dd, D, bytes, cudaMemcpyDeviceToDevice)); printf("D2D ok\n");
	CK(cudaMemcpyAsync(D, o, bytes, cudaMemcpyHostToDevice, 0)); CK(cudaStreamSynchronize(0)); printf("H2D async into D ok %d\n", H[5] == 15);
	// unregister then munmap with the alias still mapped
	CK(cudaHostUnregister(D)); munmap(D, bytes); printf("alias after unmap %g\n", H[5]);
	// timing: kernel over registered memfd vs cudaHostAlloc mapped
	float *M; CK(cudaHostAlloc((void **)&M, bytes, cudaHostAllocMapped)); memset(M, 0, bytes);
	int fd3 = memfd_create("e3", MFD_CLOEXEC); if (ftruncate(fd3, bytes)) return 1;
	float *R = (float *)mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd3, 0); memset(R, 0, bytes); t0 = now(); CK(cudaHostRegister(R, bytes, cudaHostRegisterMapped)); printf("register2 %.3f ms\n", (now() - t0) * 1e3);
	for (int k = 0; k < 3; k++) {
		t0 = now(); twice<<<1024, 256>>>(M, n); cudaDeviceSynchronize(); double a = now() - t0;
		t0 = now(); twice<<<1024, 256>>>(R, n); cudaDeviceSynchronize(); double b = now() - t0;
		printf("kernel hostalloc %.3f ms memfd-registered %.3f ms\n", a * 1e3, b * 1e3);
	}
	// system strategy: an unregistered memfd mapping used by a kernel (HMM/ATS)
	int fd2 = memfd_create("echo2", MFD_CLOEXEC); if (ftruncate(fd2, bytes)) return 1;
	float *S = (float *)mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd2, 0); memset(S, 0, bytes);
	twice<<<256, 256>>>(S, n); cudaError_t e = cudaDeviceSynchronize(); printf("system kernel on memfd: %s S0=%g\n", cudaGetErrorString(e), S[0]);
	return 0;
}
