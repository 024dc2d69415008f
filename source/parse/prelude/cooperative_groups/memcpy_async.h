/* Echo's stand-in for CUDA's cooperative_groups/memcpy_async.h: cooperative_groups.h declares it. */
#include "../cooperative_groups.h"
