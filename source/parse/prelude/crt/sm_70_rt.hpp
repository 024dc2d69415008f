/* Echo's stand-in for CUDA's crt/sm_70_rt.hpp, which clang's __clang_cuda_intrinsics.h
 * includes: the __match_*_sync overloads over its __match32/__match64 builtins. */
#ifndef ECHO_SOURCE_SM_70_RT_HPP
#define ECHO_SOURCE_SM_70_RT_HPP
__device__ unsigned int __match_any_sync(unsigned mask, unsigned value);
__device__ unsigned int __match_any_sync(unsigned mask, int value);
__device__ unsigned int __match_any_sync(unsigned mask, unsigned long value);
__device__ unsigned int __match_any_sync(unsigned mask, long value);
__device__ unsigned int __match_any_sync(unsigned mask, unsigned long long value);
__device__ unsigned int __match_any_sync(unsigned mask, long long value);
__device__ unsigned int __match_any_sync(unsigned mask, float value);
__device__ unsigned int __match_any_sync(unsigned mask, double value);
__device__ unsigned int __match_all_sync(unsigned mask, unsigned value, int *pred);
__device__ unsigned int __match_all_sync(unsigned mask, int value, int *pred);
__device__ unsigned int __match_all_sync(unsigned mask, unsigned long long value, int *pred);
__device__ unsigned int __match_all_sync(unsigned mask, long long value, int *pred);
__device__ unsigned int __match_all_sync(unsigned mask, float value, int *pred);
__device__ unsigned int __match_all_sync(unsigned mask, double value, int *pred);
#endif
