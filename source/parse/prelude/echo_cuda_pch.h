/*
 * What every .cu file is parsed with, precompiled once per set of flags: the CUDA prelude
 * (echo_cuda_prelude.h) and the C++ library's common headers (echo_cxx_std.h says why).
 */
#ifndef ECHO_SOURCE_CUDA_PCH_H
#define ECHO_SOURCE_CUDA_PCH_H

#include "echo_cuda_prelude.h"
#include "echo_cxx_std.h"

#endif
