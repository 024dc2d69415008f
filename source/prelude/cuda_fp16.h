/*
 * Echo's stand-in for CUDA's cuda_fp16.h: __half as an opaque two-byte value and the
 * conversions and arithmetic programs call most, declared only. Only the parse matters.
 */
#ifndef ECHO_SOURCE_CUDA_FP16_H
#define ECHO_SOURCE_CUDA_FP16_H

#include "vector_types.h"

typedef struct __attribute__((aligned(2))) __half { unsigned short __x; } __half;
typedef struct __attribute__((aligned(4))) __half2 { __half x, y; } __half2;
typedef __half half;
typedef __half2 half2;

#define ECHO_HD __attribute__((host, device))
ECHO_HD __half __float2half(float);
ECHO_HD __half __float2half_rn(float);
ECHO_HD float __half2float(__half);
ECHO_HD __half2 __float2half2_rn(float);
ECHO_HD __half2 __floats2half2_rn(float, float);
ECHO_HD __half2 __halves2half2(__half, __half);
ECHO_HD float2 __half22float2(__half2);
ECHO_HD float __low2float(__half2);
ECHO_HD float __high2float(__half2);
ECHO_HD __half __int2half_rn(int);
ECHO_HD int __half2int_rn(__half);
__attribute__((device)) __half __hadd(__half, __half);
__attribute__((device)) __half __hsub(__half, __half);
__attribute__((device)) __half __hmul(__half, __half);
__attribute__((device)) __half __hdiv(__half, __half);
__attribute__((device)) __half __hfma(__half, __half, __half);
__attribute__((device)) __half2 __hadd2(__half2, __half2);
__attribute__((device)) __half2 __hmul2(__half2, __half2);
__attribute__((device)) __half2 __hfma2(__half2, __half2, __half2);
__attribute__((device)) bool __hlt(__half, __half);
__attribute__((device)) bool __hgt(__half, __half);
#ifdef __cplusplus
/* cuda_fp16.hpp's operators, for C++. */
#define ECHO_HALF_OPS(H)                                                      \
	ECHO_HD H operator+(const H &, const H &);                           \
	ECHO_HD H operator-(const H &, const H &);                           \
	ECHO_HD H operator*(const H &, const H &);                           \
	ECHO_HD H operator/(const H &, const H &);                           \
	ECHO_HD H operator-(const H &);                                      \
	ECHO_HD H &operator+=(H &, const H &);                               \
	ECHO_HD H &operator-=(H &, const H &);                               \
	ECHO_HD H &operator*=(H &, const H &);                               \
	ECHO_HD H &operator/=(H &, const H &);                               \
	ECHO_HD bool operator==(const H &, const H &);                       \
	ECHO_HD bool operator!=(const H &, const H &);
ECHO_HALF_OPS(__half)
ECHO_HALF_OPS(__half2)
#undef ECHO_HALF_OPS
ECHO_HD bool operator<(const __half &, const __half &);
ECHO_HD bool operator>(const __half &, const __half &);
ECHO_HD bool operator<=(const __half &, const __half &);
ECHO_HD bool operator>=(const __half &, const __half &);
#endif
#undef ECHO_HD

#endif
