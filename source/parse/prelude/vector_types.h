/*
 * Echo's stand-in for CUDA's vector_types.h (the prelude includes it; a program may too):
 * char1 … double4 with CUDA's alignments, and dim3. Only the parse matters.
 */
#ifndef __VECTOR_TYPES_H__
#define __VECTOR_TYPES_H__
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

struct dim3 {
	unsigned int x, y, z;
#ifdef __cplusplus
	__attribute__((host, device)) constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
		: x(vx), y(vy), z(vz) {}
	__attribute__((host, device)) constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
	__attribute__((host, device)) constexpr operator uint3(void) const { return uint3{x, y, z}; }
#endif
};
typedef struct dim3 dim3;

#endif
