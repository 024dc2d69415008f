/* Echo's stand-in for CUDA's device_types.h: driver_types.h declares what it would. */
#include "driver_types.h"
