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
ECHO_HD float cuCrealf(cuFloatComplex x);
ECHO_HD float cuCimagf(cuFloatComplex x);
ECHO_HD cuFloatComplex make_cuFloatComplex(float r, float i);
ECHO_HD cuFloatComplex cuConjf(cuFloatComplex x);
ECHO_HD cuFloatComplex cuCaddf(cuFloatComplex x, cuFloatComplex y);
ECHO_HD cuFloatComplex cuCsubf(cuFloatComplex x, cuFloatComplex y);
ECHO_HD cuFloatComplex cuCmulf(cuFloatComplex x, cuFloatComplex y);
ECHO_HD cuFloatComplex cuCdivf(cuFloatComplex x, cuFloatComplex y);
ECHO_HD float cuCabsf(cuFloatComplex x);
ECHO_HD double cuCreal(cuDoubleComplex x);
ECHO_HD double cuCimag(cuDoubleComplex x);
ECHO_HD cuDoubleComplex make_cuDoubleComplex(double r, double i);
ECHO_HD cuDoubleComplex cuConj(cuDoubleComplex x);
ECHO_HD cuDoubleComplex cuCadd(cuDoubleComplex x, cuDoubleComplex y);
ECHO_HD cuDoubleComplex cuCsub(cuDoubleComplex x, cuDoubleComplex y);
ECHO_HD cuDoubleComplex cuCmul(cuDoubleComplex x, cuDoubleComplex y);
ECHO_HD cuDoubleComplex cuCdiv(cuDoubleComplex x, cuDoubleComplex y);
ECHO_HD double cuCabs(cuDoubleComplex x);
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
