/*
 * The shape cuda_fp16.h and cuda_bf16.h share: a two-byte float type and its pair, their raw
 * structs, the conversions to and from float (classes with converting constructors and
 * operators in C++, plain structs in C) and the arithmetic intrinsics, declared once as
 * macros for both. Echo's stand-in: declarations only, only the parse matters.
 */
#ifndef ECHO_SOURCE_HALF_TYPES_H
#define ECHO_SOURCE_HALF_TYPES_H

#define ECHO_HD __attribute__((host, device))
#define ECHO_D __attribute__((device))
#ifndef __cplusplus
#include <stdbool.h>
#endif

#ifdef __cplusplus
#define ECHO_HALF_TYPE(H, H2, RAW, RAW2, A, A2, B, B2)                                        \
	typedef struct RAW { unsigned short x; } RAW;                                          \
	typedef struct RAW2 { unsigned short x, y; } RAW2;                                     \
	struct __attribute__((aligned(2))) H {                                                 \
		unsigned short __x;                                                            \
		H() = default;                                                                 \
		ECHO_HD H(const RAW &);                                                        \
		ECHO_HD H(float);                                                              \
		ECHO_HD H(double);                                                             \
		ECHO_HD H(int);                                                                \
		ECHO_HD H(unsigned int);                                                       \
		ECHO_HD H(short);                                                              \
		ECHO_HD H(unsigned short);                                                     \
		ECHO_HD H(long long);                                                          \
		ECHO_HD H(unsigned long long);                                                 \
		ECHO_HD H &operator=(float);                                                   \
		ECHO_HD H &operator=(double);                                                  \
		ECHO_HD H &operator=(const RAW &);                                             \
		ECHO_HD operator float() const;                                                \
		ECHO_HD operator RAW() const;                                                  \
		ECHO_HD explicit operator bool() const;                                        \
		ECHO_HD explicit operator int() const;                                         \
		ECHO_HD explicit operator short() const;                                       \
		ECHO_HD explicit operator unsigned int() const;                                \
		ECHO_HD explicit operator unsigned short() const;                              \
		ECHO_HD explicit operator long long() const;                                   \
		ECHO_HD explicit operator unsigned long long() const;                          \
		ECHO_HD explicit operator char() const;                                        \
		ECHO_HD explicit operator signed char() const;                                 \
		ECHO_HD explicit operator unsigned char() const;                               \
	};                                                                                     \
	struct __attribute__((aligned(4))) H2 {                                                \
		H x, y;                                                                        \
		H2() = default;                                                                \
		ECHO_HD H2(const H &a, const H &b) : x(a), y(b) {}                             \
		ECHO_HD H2(const RAW2 &);                                                      \
		ECHO_HD H2 &operator=(const RAW2 &);                                           \
		ECHO_HD operator RAW2() const;                                                 \
	};                                                                                     \
	typedef H A;                                                                           \
	typedef H2 A2;                                                                         \
	typedef H B;                                                                           \
	typedef H2 B2;                                                                         \
	ECHO_HALF_OPS(H)                                                                       \
	ECHO_HALF_OPS(H2)                                                                      \
	ECHO_HD bool operator<(const H &, const H &);                                          \
	ECHO_HD bool operator>(const H &, const H &);                                          \
	ECHO_HD bool operator<=(const H &, const H &);                                         \
	ECHO_HD bool operator>=(const H &, const H &);                                         \
	ECHO_HD H operator++(H &, int);                                                        \
	ECHO_HD H &operator++(H &);                                                            \
	ECHO_HD H operator--(H &, int);                                                        \
	ECHO_HD H &operator--(H &);                                                            \
	ECHO_HD H operator+(const H &);
#define ECHO_HALF_OPS(H)                                                                       \
	ECHO_HD H operator+(const H &, const H &);                                             \
	ECHO_HD H operator-(const H &, const H &);                                             \
	ECHO_HD H operator*(const H &, const H &);                                             \
	ECHO_HD H operator/(const H &, const H &);                                             \
	ECHO_HD H operator-(const H &);                                                        \
	ECHO_HD H &operator+=(H &, const H &);                                                 \
	ECHO_HD H &operator-=(H &, const H &);                                                 \
	ECHO_HD H &operator*=(H &, const H &);                                                 \
	ECHO_HD H &operator/=(H &, const H &);                                                 \
	ECHO_HD bool operator==(const H &, const H &);                                         \
	ECHO_HD bool operator!=(const H &, const H &);
#else
#define ECHO_HALF_TYPE(H, H2, RAW, RAW2, A, A2, B, B2)                                        \
	typedef struct RAW { unsigned short x; } RAW;                                          \
	typedef struct RAW2 { unsigned short x, y; } RAW2;                                     \
	typedef struct __attribute__((aligned(2))) H { unsigned short __x; } H;                \
	typedef struct __attribute__((aligned(4))) H2 { H x, y; } H2;                          \
	typedef H A;                                                                           \
	typedef H2 A2;
#endif

/* The conversions and intrinsics, named by the type's word (half, bfloat16) and suffix. */
#define ECHO_HALF_FUNCTIONS(H, H2, W, S)                                                        \
	ECHO_HD H __float2##W(float);                                                          \
	ECHO_HD H __float2##W##_rn(float);                                                     \
	ECHO_HD H __float2##W##_rz(float);                                                     \
	ECHO_HD H __double2##W(double);                                                        \
	ECHO_HD float __##W##2float(H);                                                        \
	ECHO_HD H2 __float2##W##2_rn(float);                                                   \
	ECHO_HD H2 __floats2##W##2_rn(float, float);                                           \
	ECHO_HD H2 __float22##W##2_rn(float2);                                                 \
	ECHO_HD float2 __##W##22float2(H2);                                                    \
	ECHO_HD H2 __##W##2##W##2(H);                                                          \
	ECHO_HD float __low2float##S(H2);                                                      \
	ECHO_HD float __high2float##S(H2);                                                     \
	ECHO_HD H __low2##W(H2);                                                               \
	ECHO_HD H __high2##W(H2);                                                              \
	ECHO_HD H2 __lows2##W##2(H2, H2);                                                      \
	ECHO_HD H2 __highs2##W##2(H2, H2);                                                     \
	ECHO_HD H2 __low2##W##2(H2);                                                           \
	ECHO_HD H2 __high2##W##2(H2);                                                          \
	ECHO_HD H2 __halves2##W##2(H, H);                                                      \
	ECHO_HD H __int2##W##_rn(int);                                                         \
	ECHO_HD H __uint2##W##_rn(unsigned int);                                               \
	ECHO_HD H __short2##W##_rn(short);                                                     \
	ECHO_HD H __ushort2##W##_rn(unsigned short);                                           \
	ECHO_HD H __ll2##W##_rn(long long);                                                    \
	ECHO_HD int __##W##2int_rn(H);                                                         \
	ECHO_HD int __##W##2int_rz(H);                                                         \
	ECHO_HD unsigned int __##W##2uint_rn(H);                                               \
	ECHO_HD unsigned int __##W##2uint_rz(H);                                               \
	ECHO_HD short __##W##2short_rn(H);                                                     \
	ECHO_HD short __##W##2short_rz(H);                                                     \
	ECHO_HD unsigned short __##W##2ushort_rz(H);                                           \
	ECHO_HD long long __##W##2ll_rz(H);                                                    \
	ECHO_HD short __##W##_as_short(H);                                                     \
	ECHO_HD unsigned short __##W##_as_ushort(H);                                           \
	ECHO_HD H __short_as_##W(short);                                                       \
	ECHO_HD H __ushort_as_##W(unsigned short);                                             \
	ECHO_D H __hadd##S(H, H);                                                              \
	ECHO_D H __hsub##S(H, H);                                                              \
	ECHO_D H __hmul##S(H, H);                                                              \
	ECHO_D H __hdiv##S(H, H);                                                              \
	ECHO_D H __hfma##S(H, H, H);                                                           \
	ECHO_D H __hneg##S(H);                                                                 \
	ECHO_D H __habs##S(H);                                                                 \
	ECHO_D H __hmax##S(H, H);                                                              \
	ECHO_D H __hmin##S(H, H);                                                              \
	ECHO_D H __hadd_sat##S(H, H);                                                          \
	ECHO_D H __hmul_sat##S(H, H);                                                          \
	ECHO_D H __hfma_sat##S(H, H, H);                                                       \
	ECHO_D H __hfma_relu##S(H, H, H);                                                      \
	ECHO_D H2 __hadd2##S(H2, H2);                                                          \
	ECHO_D H2 __hsub2##S(H2, H2);                                                          \
	ECHO_D H2 __hmul2##S(H2, H2);                                                          \
	ECHO_D H2 __h2div##S(H2, H2);                                                          \
	ECHO_D H2 __hfma2##S(H2, H2, H2);                                                      \
	ECHO_D H2 __hneg2##S(H2);                                                              \
	ECHO_D H2 __habs2##S(H2);                                                              \
	ECHO_D H2 __hmax2##S(H2, H2);                                                          \
	ECHO_D H2 __hmin2##S(H2, H2);                                                          \
	ECHO_D H2 __hadd2_sat##S(H2, H2);                                                      \
	ECHO_D H2 __hfma2_relu##S(H2, H2, H2);                                                 \
	ECHO_D bool __heq##S(H, H);                                                            \
	ECHO_D bool __hne##S(H, H);                                                            \
	ECHO_D bool __hlt##S(H, H);                                                            \
	ECHO_D bool __hle##S(H, H);                                                            \
	ECHO_D bool __hgt##S(H, H);                                                            \
	ECHO_D bool __hge##S(H, H);                                                            \
	ECHO_D bool __hisnan##S(H);                                                            \
	ECHO_D int __hisinf##S(H);                                                             \
	ECHO_D H2 __heq2##S(H2, H2);                                                           \
	ECHO_D H2 __hlt2##S(H2, H2);                                                           \
	ECHO_D H2 __hgt2##S(H2, H2);                                                           \
	ECHO_D bool __hbeq2##S(H2, H2);                                                        \
	ECHO_HALF_OVERLOADS(H, H2)

/* Overloads and default arguments: C++ only. */
#ifdef __cplusplus
#define ECHO_HALF_OVERLOADS(H, H2)                                                             \
	ECHO_D H hsqrt(H);                                                                     \
	ECHO_D H hrsqrt(H);                                                                    \
	ECHO_D H hrcp(H);                                                                      \
	ECHO_D H hexp(H);                                                                      \
	ECHO_D H hexp2(H);                                                                     \
	ECHO_D H hlog(H);                                                                      \
	ECHO_D H hlog2(H);                                                                     \
	ECHO_D H hsin(H);                                                                      \
	ECHO_D H hcos(H);                                                                      \
	ECHO_D H htanh(H);                                                                     \
	ECHO_D H hfloor(H);                                                                    \
	ECHO_D H hceil(H);                                                                     \
	ECHO_D H htrunc(H);                                                                    \
	ECHO_D H hrint(H);                                                                     \
	ECHO_D H2 h2sqrt(H2);                                                                  \
	ECHO_D H2 h2rsqrt(H2);                                                                 \
	ECHO_D H2 h2exp(H2);                                                                   \
	ECHO_D H2 h2log(H2);                                                                   \
	ECHO_D H2 h2rcp(H2);                                                                   \
	ECHO_D H2 h2floor(H2);                                                                 \
	ECHO_D H __shfl_sync(unsigned, H, int, int = 32);                                      \
	ECHO_D H __shfl_xor_sync(unsigned, H, int, int = 32);                                  \
	ECHO_D H __shfl_down_sync(unsigned, H, unsigned, int = 32);                            \
	ECHO_D H __shfl_up_sync(unsigned, H, unsigned, int = 32);                              \
	ECHO_D H2 __shfl_sync(unsigned, H2, int, int = 32);                                    \
	ECHO_D H2 __shfl_xor_sync(unsigned, H2, int, int = 32);                                \
	ECHO_D H2 __shfl_down_sync(unsigned, H2, unsigned, int = 32);                          \
	ECHO_D H2 __shfl_up_sync(unsigned, H2, unsigned, int = 32);                            \
	ECHO_D H __ldg(const H *);                                                             \
	ECHO_D H2 __ldg(const H2 *);                                                           \
	ECHO_D H atomicAdd(H *, H);                                                            \
	ECHO_D H2 atomicAdd(H2 *, H2);
#else
#define ECHO_HALF_OVERLOADS(H, H2)
#endif


#endif
