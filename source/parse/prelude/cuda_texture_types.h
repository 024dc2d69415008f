/* Echo's stand-in for CUDA's cuda_texture_types.h: cuda_runtime.h declares what it would. */
#include "cuda_runtime.h"
