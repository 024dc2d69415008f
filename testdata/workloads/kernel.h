/*
 * One kernel source for two targets. Under nvcc a kernel is a __global__ function and FOR_ALL
 * is a grid-stride loop; for the emulator (testdata/emulator) it is a host function with the
 * emulator's calling convention, registered with its argument sizes before main, and FOR_ALL
 * walks every element once. Launches go through cudaLaunchKernel in both, so the host code
 * and the API calls a tracer sees are the same.
 */
#ifndef ECHO_WORKLOAD_KERNEL_H
#define ECHO_WORKLOAD_KERNEL_H

#include <cuda_runtime.h>

#ifdef __CUDACC__

#define FOR_ALL(i, n) \
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (size_t)(n); \
	     i += (size_t)gridDim.x * blockDim.x)
#define KERNEL2(name, T1, a1, T2, a2) static __global__ void name(T1 a1, T2 a2)
#define KERNEL3(name, T1, a1, T2, a2, T3, a3) static __global__ void name(T1 a1, T2 a2, T3 a3)
#define KERNEL4(name, T1, a1, T2, a2, T3, a3, T4, a4) \
	static __global__ void name(T1 a1, T2 a2, T3 a3, T4 a4)
#define KERNEL5(name, T1, a1, T2, a2, T3, a3, T4, a4, T5, a5) \
	static __global__ void name(T1 a1, T2 a2, T3 a3, T4 a4, T5 a5)

#else

#define FOR_ALL(i, n) for (size_t i = 0; i < (size_t)(n); i++)

#define EMU_REGISTER(name, n, ...)                                                   \
	static void name(dim3, dim3, void **);                                       \
	__attribute__((constructor)) static void name##_register(void)               \
	{                                                                            \
		static const size_t sizes[] = {__VA_ARGS__};                         \
		emuRegisterKernel((const void *)name, #name, n, sizes);              \
	}
#define EMU_ARG(T, i) (*(T *)args[i])

#define KERNEL2(name, T1, a1, T2, a2)                                                \
	static void name##_body(T1, T2);                                             \
	EMU_REGISTER(name, 2, sizeof(T1), sizeof(T2))                                \
	static void name(dim3, dim3, void **args)                                    \
	{                                                                            \
		name##_body(EMU_ARG(T1, 0), EMU_ARG(T2, 1));                         \
	}                                                                            \
	static void name##_body(T1 a1, T2 a2)
#define KERNEL3(name, T1, a1, T2, a2, T3, a3)                                        \
	static void name##_body(T1, T2, T3);                                         \
	EMU_REGISTER(name, 3, sizeof(T1), sizeof(T2), sizeof(T3))                    \
	static void name(dim3, dim3, void **args)                                    \
	{                                                                            \
		name##_body(EMU_ARG(T1, 0), EMU_ARG(T2, 1), EMU_ARG(T3, 2));         \
	}                                                                            \
	static void name##_body(T1 a1, T2 a2, T3 a3)
#define KERNEL4(name, T1, a1, T2, a2, T3, a3, T4, a4)                                \
	static void name##_body(T1, T2, T3, T4);                                     \
	EMU_REGISTER(name, 4, sizeof(T1), sizeof(T2), sizeof(T3), sizeof(T4))        \
	static void name(dim3, dim3, void **args)                                    \
	{                                                                            \
		name##_body(EMU_ARG(T1, 0), EMU_ARG(T2, 1), EMU_ARG(T3, 2),          \
			    EMU_ARG(T4, 3));                                         \
	}                                                                            \
	static void name##_body(T1 a1, T2 a2, T3 a3, T4 a4)
#define KERNEL5(name, T1, a1, T2, a2, T3, a3, T4, a4, T5, a5)                        \
	static void name##_body(T1, T2, T3, T4, T5);                                 \
	EMU_REGISTER(name, 5, sizeof(T1), sizeof(T2), sizeof(T3), sizeof(T4),        \
		     sizeof(T5))                                                     \
	static void name(dim3, dim3, void **args)                                    \
	{                                                                            \
		name##_body(EMU_ARG(T1, 0), EMU_ARG(T2, 1), EMU_ARG(T3, 2),          \
			    EMU_ARG(T4, 3), EMU_ARG(T5, 4));                         \
	}                                                                            \
	static void name##_body(T1 a1, T2 a2, T3 a3, T4 a4, T5 a5)

#endif

/* An element-wise kernel over n floats, out[i] = expr: expr reads in[i] (and out[i], for a
 * kernel that adds into its output). */
#define MAP_KERNEL(name, expr)                                                      \
	KERNEL3(name, const float *, in, float *, out, size_t, n)                    \
	{                                                                            \
		FOR_ALL(i, n)                                                        \
		out[i] = (expr);                                                     \
	}

/* The light map of the stream-like workloads: each output element is its input after work
 * steps of v * A + B. */
#define SCALE_KERNEL(A, B)                                                          \
	KERNEL4(scale, const float *, in, float *, out, size_t, n, int, work)        \
	{                                                                            \
		FOR_ALL(i, n)                                                        \
		{                                                                    \
			float v = in[i];                                             \
			for (int k = 0; k < work; k++)                               \
				v = v * (A) + (B);                                   \
			out[i] = v;                                                  \
		}                                                                    \
	}

#endif
