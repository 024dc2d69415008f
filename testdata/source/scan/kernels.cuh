// Device helpers for kernels.cu: nothing here copies.
#pragma once

__device__ inline float clampf(float x) { return x < 0.0f ? 0.0f : x; }
