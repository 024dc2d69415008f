/* Echo's stand-in for CUDA's cuda_device_runtime_api.h: driver_types.h declares what it would. */
#include "driver_types.h"
