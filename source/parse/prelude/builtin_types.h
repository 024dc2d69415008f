/* Echo's stand-in for CUDA's builtin_types.h: the runtime's types and the vector types. */
#include "driver_types.h"
#include "vector_types.h"
