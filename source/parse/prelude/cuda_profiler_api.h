/* Echo's stand-in for CUDA's cuda_profiler_api.h: cuda_runtime_api.h declares
 * cudaProfilerStart and cudaProfilerStop. */
#include "cuda_runtime_api.h"
