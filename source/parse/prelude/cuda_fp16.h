/*
 * Echo's stand-in for CUDA's cuda_fp16.h (and cuda_fp16.hpp): __half and __half2 with the
 * conversions, operators and intrinsics programs call, declared only. For C++ they are
 * classes that convert to and from float as CUDA's do, so `float f = h;` and `h * 2.0f` parse.
 * Only the parse matters.
 */
#ifndef __CUDA_FP16_H__
#define __CUDA_FP16_H__
#define ECHO_SOURCE_CUDA_FP16_H

#include "vector_types.h"
#include "echo_half_types.h"

ECHO_HALF_TYPE(__half, __half2, __half_raw, __half2_raw, half, half2, nv_half, nv_half2)
ECHO_HALF_FUNCTIONS(__half, __half2, half, )

#endif
