/* Echo's stand-in for CUDA's cuComplex.h: the complex types and their arithmetic, declared. */
#ifndef CU_COMPLEX_H_
#define CU_COMPLEX_H_
#include "vector_types.h"
typedef float2 cuFloatComplex;
typedef double2 cuDoubleComplex;
typedef cuFloatComplex cuComplex;
#define ECHO_HD __attribute__((host, device))
#ifdef __cplusplus
extern "C" {
#endif
/* The arithmetic of one precision: R the real type, C the complex one, S the names' suffix. */
#define ECHO_COMPLEX_FUNCTIONS(R, C, S)     \
	ECHO_HD R cuCreal##S(C x);          \
	ECHO_HD R cuCimag##S(C x);          \
	ECHO_HD C make_##C(R r, R i);       \
	ECHO_HD C cuConj##S(C x);           \
	ECHO_HD C cuCadd##S(C x, C y);      \
	ECHO_HD C cuCsub##S(C x, C y);      \
	ECHO_HD C cuCmul##S(C x, C y);      \
	ECHO_HD C cuCdiv##S(C x, C y);      \
	ECHO_HD R cuCabs##S(C x);
ECHO_COMPLEX_FUNCTIONS(float, cuFloatComplex, f)
ECHO_COMPLEX_FUNCTIONS(double, cuDoubleComplex, )
#undef ECHO_COMPLEX_FUNCTIONS
ECHO_HD cuComplex make_cuComplex(float x, float y);
ECHO_HD cuDoubleComplex cuComplexFloatToDouble(cuFloatComplex c);
ECHO_HD cuFloatComplex cuComplexDoubleToFloat(cuDoubleComplex c);
ECHO_HD cuComplex cuCfmaf(cuComplex x, cuComplex y, cuComplex d);
ECHO_HD cuDoubleComplex cuCfma(cuDoubleComplex x, cuDoubleComplex y, cuDoubleComplex d);
#ifdef __cplusplus
}
#endif
#undef ECHO_HD
#endif
