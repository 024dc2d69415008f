/*
 * Echo's stand-in for CUDA's vector_types.h (the prelude includes it; a program may too):
 * char1 … double4 with CUDA's alignments. Only the parse matters.
 */
#ifndef ECHO_SOURCE_VECTOR_TYPES_H
#define ECHO_SOURCE_VECTOR_TYPES_H

#define ECHO_VECTOR_TYPES(T, N)                                                      \
	typedef struct N##1 { T x; } N##1;                                           \
	typedef struct __attribute__((aligned(2 * sizeof(T)))) N##2 { T x, y; } N##2; \
	typedef struct N##3 { T x, y, z; } N##3;                                     \
	typedef struct __attribute__((aligned(4 * sizeof(T) > 16 ? 16 : 4 * sizeof(T)))) N##4 { T x, y, z, w; } N##4;
ECHO_VECTOR_TYPES(signed char, char)
ECHO_VECTOR_TYPES(unsigned char, uchar)
ECHO_VECTOR_TYPES(short, short)
ECHO_VECTOR_TYPES(unsigned short, ushort)
ECHO_VECTOR_TYPES(int, int)
ECHO_VECTOR_TYPES(unsigned int, uint)
ECHO_VECTOR_TYPES(long, long)
ECHO_VECTOR_TYPES(unsigned long, ulong)
ECHO_VECTOR_TYPES(long long, longlong)
ECHO_VECTOR_TYPES(unsigned long long, ulonglong)
ECHO_VECTOR_TYPES(float, float)
ECHO_VECTOR_TYPES(double, double)
#undef ECHO_VECTOR_TYPES

#endif
