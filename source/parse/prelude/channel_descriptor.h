/* Echo's stand-in for CUDA's channel_descriptor.h: cuda_runtime.h declares what it would. */
#include "cuda_runtime.h"
