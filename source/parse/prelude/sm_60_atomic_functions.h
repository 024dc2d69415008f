/* Echo's stand-in for CUDA's sm_60_atomic_functions.h: the prelude (echo_cuda_prelude.h) declares the device
 * functions of a .cu file; a C++ file that includes this gets the runtime. */
#include "cuda_runtime.h"
