/* Echo's stand-in for CUDA's cooperative_groups/scan.h: cooperative_groups.h declares it. */
#include "../cooperative_groups.h"
