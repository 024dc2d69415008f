/* Kernel registration and launch: host functions run on the stream's worker thread. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#define MAX_KERNELS 1024

struct kernel {
	const void *func;
	const char *name;
	int nargs;
	size_t sizes[EMU_MAX_KERNEL_ARGS];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct kernel kernels[MAX_KERNELS];
static int nkernels;

static struct kernel *find(const void *func)
{
	for (int i = 0; i < nkernels; i++)
		if (kernels[i].func == func)
			return &kernels[i];
	return NULL;
}

EMU_API cudaError_t emuRegisterKernel(const void *func, const char *name, int nargs,
				      const size_t *argSizes)
{
	if (!func || nargs < 0 || nargs > EMU_MAX_KERNEL_ARGS || (nargs && !argSizes))
		return emu_fail(cudaErrorInvalidValue);
	cudaError_t err = cudaSuccess;
	pthread_mutex_lock(&lock);
	struct kernel *k = find(func);
	if (!k && nkernels < MAX_KERNELS)
		k = &kernels[nkernels++];
	if (k) {
		k->func = func;
		k->name = name;
		k->nargs = nargs;
		memcpy(k->sizes, argSizes, (size_t)nargs * sizeof k->sizes[0]);
	} else {
		err = cudaErrorMemoryAllocation;
	}
	pthread_mutex_unlock(&lock);
	return emu_fail(err);
}

static bool valid_config(dim3 grid, dim3 block)
{
	if (!grid.x || !grid.y || !grid.z || !block.x || !block.y || !block.z)
		return false;
	if (grid.x > 0x7fffffffU || grid.y > 65535 || grid.z > 65535)
		return false;
	return (unsigned long long)block.x * block.y * block.z <= 1024 && block.z <= 64;
}

/* The slowdown knobs: a kernel is as slow as the slowest memory any pointer argument of it
 * points into. Only ranges the runtime knows count: a plain integer argument is never
 * mistaken for a pointer into pageable memory. */
static double slowdown_for(const struct kernel *k, void *const *argv)
{
	const struct emu_knobs *kn = emu_knobs();
	double factor = 1.0;
	for (int i = 0; i < k->nargs; i++) {
		if (k->sizes[i] != sizeof(void *))
			continue;
		void *p;
		memcpy(&p, argv[i], sizeof p);
		enum emu_mem kind = emu_lookup(p).kind;
		double f = 1.0;
		if (kind == EMU_MEM_MANAGED)
			f = kn->managed_slowdown;
		else if (kind == EMU_MEM_PINNED || kind == EMU_MEM_REGISTERED)
			f = kn->host_slowdown;
		if (f > factor)
			factor = f;
	}
	return factor;
}

static bool registered(const void *func)
{
	pthread_mutex_lock(&lock);
	bool found = find(func) != NULL;
	pthread_mutex_unlock(&lock);
	return found;
}

/* A launch through the runtime goes through the driver's cuLaunchKernel when the runtime
 * routes through it (CUDA_EMU_DRIVER=1), as the real runtime's does, once the runtime has
 * checked what it alone knows (its kernels, and the errors it names for them). */
static cudaError_t runtime_launch(const void *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem,
				  cudaStream_t stream)
{
	const struct emu_driver *drv = emu_driver();
	if (drv && !valid_config(gridDim, blockDim))
		return emu_fail(cudaErrorInvalidConfiguration);
	if (drv && !registered(func))
		return emu_fail(cudaErrorInvalidDeviceFunction);
	if (drv)
		return emu_from_driver(drv->launch_kernel((CUfunction)(uintptr_t)func, gridDim.x, gridDim.y, gridDim.z,
							   blockDim.x, blockDim.y, blockDim.z, (unsigned)sharedMem,
							   (CUstream)stream, args, NULL));
	return emu_launch(func, gridDim, blockDim, args, stream);
}

EMU_API cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
				     size_t sharedMem, cudaStream_t stream)
{
	return runtime_launch(func, gridDim, blockDim, args, sharedMem, stream);
}

/* --default-stream per-thread's: stream 0 is the calling thread's default stream. */
EMU_API cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim, void **args,
					  size_t sharedMem, cudaStream_t stream)
{
	(void)sharedMem;
	return emu_launch(func, gridDim, blockDim, args, stream ? stream : cudaStreamPerThread);
}

/* nvcc 13's lowering of <<<>>>: a kernel's handle is its host function here, and its launch
 * reaches the launch without passing cudaLaunchKernel's symbol, as in the real runtime. */
EMU_API cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *func)
{
	if (!kernel)
		return emu_fail(cudaErrorInvalidValue);
	*kernel = (cudaKernel_t)(uintptr_t)func;
	return emu_ok();
}

EMU_API cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
				       size_t sharedMem, cudaStream_t stream)
{
	return runtime_launch((const void *)kernel, gridDim, blockDim, args, sharedMem, stream);
}

EMU_API cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
					    size_t sharedMem, cudaStream_t stream)
{
	(void)sharedMem;
	return emu_launch((const void *)kernel, gridDim, blockDim, args, stream ? stream : cudaStreamPerThread);
}

cudaError_t emu_launch(const void *func, dim3 gridDim, dim3 blockDim, void **args, cudaStream_t stream)
{
	cudaError_t err = emu_ok();
	if (err)
		return err;
	if (!valid_config(gridDim, blockDim))
		return emu_fail(cudaErrorInvalidConfiguration);
	pthread_mutex_lock(&lock);
	struct kernel *found = find(func);
	struct kernel k = found ? *found : (struct kernel){0};
	pthread_mutex_unlock(&lock);
	if (!found)
		return emu_fail(cudaErrorInvalidDeviceFunction);
	if (k.nargs && !args)
		return emu_fail(cudaErrorInvalidValue);
	struct emu_stream *s = emu_stream_resolve(stream);
	if (!s)
		return emu_fail(cudaErrorInvalidResourceHandle);

	/* Copy the argument values now, as the real runtime does at launch. */
	size_t offs[EMU_MAX_KERNEL_ARGS], total = 0;
	for (int i = 0; i < k.nargs; i++) {
		offs[i] = total;
		total += (k.sizes[i] + 15) / 16 * 16;
	}
	struct emu_op *op = emu_op_new(OP_KERNEL);
	unsigned char *buf = total ? malloc(total) : NULL;
	if (!op || (total && !buf)) {
		free(op);
		free(buf);
		return emu_fail(cudaErrorMemoryAllocation);
	}
	for (int i = 0; i < k.nargs; i++) {
		memcpy(buf + offs[i], args[i], k.sizes[i]);
		op->u.kernel.argv[i] = buf + offs[i];
	}
	op->u.kernel.fn = (void (*)(dim3, dim3, void **))(uintptr_t)func;
	op->u.kernel.grid = gridDim;
	op->u.kernel.block = blockDim;
	op->u.kernel.argbuf = buf;
	op->u.kernel.slowdown = slowdown_for(&k, op->u.kernel.argv);
	emu_enqueue(s, op);
	return cudaSuccess;
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void emu_sleep_us(unsigned long us)
{
	struct timespec t = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000};
	while (nanosleep(&t, &t) != 0)
		;
}

static void sleep_s(double s)
{
	struct timespec t = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
	while (nanosleep(&t, &t) != 0)
		;
}

void emu_kernel_run(struct emu_op *op)
{
	unsigned long delay = emu_knobs()->kernel_delay_us;
	if (delay)
		sleep_s((double)delay / 1e6);
	double start = now_s();
	op->u.kernel.fn(op->u.kernel.grid, op->u.kernel.block, op->u.kernel.argv);
	if (op->u.kernel.slowdown > 1.0)
		sleep_s((now_s() - start) * (op->u.kernel.slowdown - 1.0));
	double least = (double)emu_knobs()->kernel_min_us / 1e6, took = now_s() - start;
	if (took < least)
		sleep_s(least - took);
	free(op->u.kernel.argbuf);
}
