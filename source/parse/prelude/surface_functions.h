/* Echo's stand-in for CUDA's surface_functions.h: cuda_runtime.h declares what it would. */
#include "cuda_runtime.h"
