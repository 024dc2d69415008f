/*
 * Echo's stand-in for CUDA's cuda_bf16.h: __nv_bfloat16 and __nv_bfloat162, shaped like
 * __half (echo_half_types.h), with the bfloat16 spellings of the conversions. Declarations
 * only.
 */
#ifndef __CUDA_BF16_H__
#define __CUDA_BF16_H__

#include "vector_types.h"
#include "cuda_fp16.h"
#include "echo_half_types.h"

ECHO_HALF_TYPE(__nv_bfloat16, __nv_bfloat162, __nv_bfloat16_raw, __nv_bfloat162_raw, nv_bfloat16, nv_bfloat162,
	       bf16_echo_unused1, bf16_echo_unused2)
ECHO_HALF_FUNCTIONS(__nv_bfloat16, __nv_bfloat162, bfloat16, _bf16)

#endif
