/*
 * Echo's fallback for the helper_cuda.h of NVIDIA's CUDA samples, used only when the tree
 * being parsed does not carry its own (its Common/ directory is found first): the error
 * checks and device queries sample-derived programs call, declared in the shape the samples
 * give them. Written for Echo from the samples' documented interface; only the parse matters.
 */
#ifndef ECHO_FALLBACK_HELPER_CUDA_H
#define ECHO_FALLBACK_HELPER_CUDA_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include "helper_string.h"

#ifndef EXIT_WAIVED
#define EXIT_WAIVED 2
#endif
#ifndef MAX
#define MAX(a, b) (a > b ? a : b)
#endif
#ifndef MIN
#define MIN(a, b) (a < b ? a : b)
#endif

const char *_cudaGetErrorEnum(cudaError_t error);
#ifdef __cplusplus
template <typename T> void check(T result, char const *const func, const char *const file, int const line);
#define checkCudaErrors(val) check((val), #val, __FILE__, __LINE__)
#endif
void __getLastCudaError(const char *errorMessage, const char *file, const int line);
void __printLastCudaError(const char *errorMessage, const char *file, const int line);
#define getLastCudaError(msg) __getLastCudaError(msg, __FILE__, __LINE__)
#define printLastCudaError(msg) __printLastCudaError(msg, __FILE__, __LINE__)
int _ConvertSMVer2Cores(int major, int minor);
const char *_ConvertSMVer2ArchName(int major, int minor);
int gpuDeviceInit(int devID);
int gpuGetMaxGflopsDeviceId(void);
int findCudaDevice(int argc, const char **argv);
int findIntegratedGPU(void);
bool checkCudaCapabilities(int major_version, int minor_version);

#endif
