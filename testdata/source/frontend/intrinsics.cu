// Every device function, intrinsic and runtime call a kernel file commonly uses, written for
// Echo's prelude test (TestPreludeIntrinsics): math and fast math, atomics of every
// overload, warp shuffles and votes, the __syncthreads variants, __ldg, texture objects and
// references, surfaces, cooperative groups, half and bfloat16, wmma, curand, and host calls
// the emulator's headers lack. It must parse without a single error, and main's pair is
// proven. It is never built.
#include <cooperative_groups.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <curand_kernel.h>
#include <mma.h>

namespace cg = cooperative_groups;

texture<float, 1, cudaReadModeElementType> tex_ref;
__constant__ float weights[16];

__device__ float device_helper(float x) { return __saturatef(x) + __int_as_float(__float_as_int(x)); }

__global__ void math(float *f, double *d, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float x = f[i];
	f[i] = sqrtf(x) + rsqrtf(x) + expf(x) + __expf(x) + logf(x) + __logf(x) + log2f(x) + __log2f(x) +
	       powf(x, 2.0f) + __powf(x, 2.0f) + sinf(x) + __sinf(x) + cosf(x) + __cosf(x) + tanf(x) + __tanf(x) +
	       fabsf(x) + fminf(x, 1.0f) + fmaxf(x, 0.0f) + floorf(x) + ceilf(x) + roundf(x) + truncf(x) +
	       fmaf(x, x, x) + __fmaf_rn(x, x, x) + __fdividef(x, 3.0f) + __frcp_rn(x) + __fsqrt_rn(x) +
	       exp(x) + log(x) + sqrt(x) + fabs(x) + pow(x, 2) + erff(x) + tanhf(x) + atan2f(x, 1.0f) +
	       device_helper(x) + weights[i % 16] + __int2float_rn(i) + __uint2float_rn(i) + (float)__float2int_rn(x);
	d[i] = sqrt(d[i]) + exp(d[i]) + fma(d[i], 2.0, 1.0) + __dadd_rn(d[i], 1.0) + rsqrt(d[i]) + __dmul_rn(d[i], 2.0);
	int m = min(i, n) + max(i, 1) + abs(-i) + __mul24(i, 2) + __umul24(i, 2u) + __popc(i) + __clz(i) + __ffs(i) +
		__brev(i) + __popcll(1ull) + __clzll(1ll) + __umulhi(1u, 2u);
	f[i] += (float)m + (isnan(x) ? 1.0f : 0.0f) + (isinf(x) ? 1.0f : 0.0f) + (float)signbit(x);
}

__global__ void atomics(int *i, unsigned *u, unsigned long long *ull, long long *ll, float *f, double *d,
			unsigned short *us)
{
	atomicAdd(i, 1);
	atomicAdd(u, 1u);
	atomicAdd(ull, 1ull);
	atomicAdd(f, 1.0f);
	atomicAdd(d, 1.0);
	atomicSub(i, 1);
	atomicSub(u, 1u);
	atomicExch(i, 2);
	atomicExch(u, 2u);
	atomicExch(ull, 2ull);
	atomicExch(f, 2.0f);
	atomicMin(i, 0);
	atomicMin(u, 0u);
	atomicMin(ull, 0ull);
	atomicMin(ll, 0ll);
	atomicMax(i, 9);
	atomicMax(u, 9u);
	atomicMax(ull, 9ull);
	atomicMax(ll, 9ll);
	atomicInc(u, 10u);
	atomicDec(u, 10u);
	atomicCAS(i, 0, 1);
	atomicCAS(u, 0u, 1u);
	atomicCAS(ull, 0ull, 1ull);
	atomicCAS(us, (unsigned short)0, (unsigned short)1);
	atomicAnd(i, 1);
	atomicOr(u, 2u);
	atomicXor(ull, 3ull);
	atomicAdd_block(i, 1);
	atomicAdd_system(f, 1.0f);
	__threadfence();
	__threadfence_block();
	__threadfence_system();
}

__global__ void warps(float *f, int *flags)
{
	__shared__ float tile[256];
	int t = threadIdx.x;
	tile[t] = f[t];
	__syncthreads();
	int all = __syncthreads_and(flags[t]);
	int any = __syncthreads_or(flags[t]);
	int count = __syncthreads_count(flags[t]);
	float v = tile[t];
	v += __shfl_sync(0xffffffffu, v, 0);
	v += __shfl_up_sync(0xffffffffu, v, 1);
	v += __shfl_down_sync(0xffffffffu, v, 1);
	v += __shfl_xor_sync(0xffffffffu, v, 1, 16);
	unsigned ballot = __ballot_sync(0xffffffffu, v > 0.0f);
	int vote = __all_sync(0xffffffffu, v > 0.0f) + __any_sync(0xffffffffu, v < 0.0f);
	unsigned active = __activemask();
	unsigned match = __match_any_sync(active, t / 4);
	__syncwarp();
	v += __ldg(&f[t]) + tex1Dfetch(tex_ref, t);
	long long c = clock64();
	f[t] = v + (float)(all + any + count + vote + __popc(ballot) + __popc(match)) + (float)(c & 1) +
	       (float)(threadIdx.y + blockIdx.z + blockDim.x * gridDim.y + warpSize);
}

__global__ void objects(cudaTextureObject_t tex, cudaSurfaceObject_t surf, float *out, int w)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	float a = tex2D<float>(tex, x + 0.5f, y + 0.5f) + tex1Dfetch<float>(tex, x);
	float b;
	surf2Dread(&b, surf, x * 4, y);
	surf2Dwrite(a + b, surf, x * 4, y);
	out[y * w + x] = a + b;
}

__global__ void groups(float *f, int n)
{
	cg::thread_block block = cg::this_thread_block();
	cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
	float v = f[block.thread_rank()];
	for (int o = warp.size() / 2; o > 0; o /= 2)
		v += warp.shfl_down(v, o);
	v = cg::reduce(warp, v, cg::plus<float>());
	block.sync();
	cg::grid_group grid = cg::this_grid();
	grid.sync();
	if (warp.thread_rank() == 0)
		f[block.group_index().x] = v + (float)n;
}

__global__ void halves(__half *h, __half2 *h2, __nv_bfloat16 *b, float *f, curandState *states)
{
	int i = threadIdx.x;
	__half a = __float2half(f[i]);
	__half c = __hadd(a, h[i]) * a + __float2half(1.0f);
	h[i] = __hmax(c, hsqrt(a));
	h2[i] = __hfma2(h2[i], __float2half2_rn(2.0f), __halves2half2(a, c));
	float back = __half2float(h[i]) + __low2float(h2[i]) + (float)a;
	__nv_bfloat16 bb = __float2bfloat16(back);
	b[i] = bb;
	curand_init(1234ull, i, 0, &states[i]);
	f[i] = back + __bfloat162float(bb) + curand_uniform(&states[i]) + curand_normal(&states[i]);
}

__global__ void tensor_cores(const __half *a, const __half *b, float *c)
{
	using namespace nvcuda;
	wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
	wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;
	wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
	wmma::fill_fragment(fc, 0.0f);
	wmma::load_matrix_sync(fa, a, 16);
	wmma::load_matrix_sync(fb, b, 16);
	wmma::mma_sync(fc, fa, fb, fc);
	wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}

int main(void)
{
	const int n = 1 << 12;
	size_t bytes = n * sizeof(float);
	cudaDeviceProp prop;
	cudaGetDeviceProperties(&prop, 0);
	cudaFuncSetCacheConfig(warps, cudaFuncCachePreferL1);
	cudaDeviceSetLimit(cudaLimitMallocHeapSize, 1 << 20);
	float *h = (float *)malloc(bytes);
	for (int i = 0; i < n; i++)
		h[i] = (float)i;
	float *d;
	cudaMalloc(&d, bytes);
	cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);
	math<<<n / 256, 256>>>(d, (double *)0, n);
	cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost);
	cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
	cudaArray_t array;
	cudaMallocArray(&array, &desc, 64, 64);
	cudaExtent extent = make_cudaExtent(64, 64, 1);
	cudaStream_t s;
	cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, 0);
	cudaStreamDestroy(s);
	cudaFreeArray(array);
	double sum = 0;
	for (int i = 0; i < n; i++)
		sum += h[i];
	cudaFree(d);
	free(h);
	return sum > 0 && extent.width == 64 && prop.major > 0 ? 0 : 1;
}
