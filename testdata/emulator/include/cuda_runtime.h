/* The emulator's <cuda_runtime.h>: the runtime API plus the emulator's kernel convention. */
#ifndef ECHO_EMU_CUDA_RUNTIME_H
#define ECHO_EMU_CUDA_RUNTIME_H

#include "cuda_runtime_api.h"
#include "cuda_emulator.h"

#endif
