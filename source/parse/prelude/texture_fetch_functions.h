/* Echo's stand-in for CUDA's texture_fetch_functions.h: cuda_runtime.h declares what it would. */
#include "cuda_runtime.h"
