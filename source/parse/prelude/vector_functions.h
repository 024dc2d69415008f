/*
 * Echo's stand-in for CUDA's vector_functions.h: make_float2 and the rest, declared (host and
 * device, as CUDA's are); never defined, since only the parse matters.
 */
#ifndef ECHO_SOURCE_VECTOR_FUNCTIONS_H
#define ECHO_SOURCE_VECTOR_FUNCTIONS_H

#include "vector_types.h"

#define ECHO_MAKE_VECTORS(T, N)                                                  \
	__attribute__((host, device)) N##1 make_##N##1(T x);                     \
	__attribute__((host, device)) N##2 make_##N##2(T x, T y);                \
	__attribute__((host, device)) N##3 make_##N##3(T x, T y, T z);           \
	__attribute__((host, device)) N##4 make_##N##4(T x, T y, T z, T w);
ECHO_MAKE_VECTORS(signed char, char)
ECHO_MAKE_VECTORS(unsigned char, uchar)
ECHO_MAKE_VECTORS(short, short)
ECHO_MAKE_VECTORS(unsigned short, ushort)
ECHO_MAKE_VECTORS(int, int)
ECHO_MAKE_VECTORS(unsigned int, uint)
ECHO_MAKE_VECTORS(long, long)
ECHO_MAKE_VECTORS(unsigned long, ulong)
ECHO_MAKE_VECTORS(long long, longlong)
ECHO_MAKE_VECTORS(unsigned long long, ulonglong)
ECHO_MAKE_VECTORS(float, float)
ECHO_MAKE_VECTORS(double, double)
#undef ECHO_MAKE_VECTORS

#endif
