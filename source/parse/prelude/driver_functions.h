/* Echo's stand-in for CUDA's driver_functions.h: the make_ functions of the runtime's structs. */
#ifndef __DRIVER_FUNCTIONS_H__
#define __DRIVER_FUNCTIONS_H__

#include "driver_types.h"

static __inline__ struct cudaPitchedPtr make_cudaPitchedPtr(void *d, size_t p, size_t xsz, size_t ysz)
{
	struct cudaPitchedPtr s = {d, p, xsz, ysz};
	return s;
}
static __inline__ struct cudaPos make_cudaPos(size_t x, size_t y, size_t z)
{
	struct cudaPos p = {x, y, z};
	return p;
}
static __inline__ struct cudaExtent make_cudaExtent(size_t w, size_t h, size_t d)
{
	struct cudaExtent e = {w, h, d};
	return e;
}

#endif
