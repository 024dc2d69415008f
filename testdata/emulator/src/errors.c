/* Error names and strings, and the per-thread last error behind cudaGetLastError. */
#include "internal.h"

static __thread cudaError_t last_error = cudaSuccess;

cudaError_t emu_fail(cudaError_t err)
{
	if (err != cudaSuccess)
		last_error = err;
	return err;
}

cudaError_t emu_ok(void)
{
	return emu_knobs()->device_count > 0 ? cudaSuccess : emu_fail(cudaErrorNoDevice);
}

EMU_API cudaError_t cudaGetLastError(void)
{
	cudaError_t err = last_error;
	last_error = cudaSuccess;
	return err;
}

EMU_API cudaError_t cudaPeekAtLastError(void)
{
	return last_error;
}

static const struct {
	cudaError_t code;
	const char *name, *text;
} errors[] = {
	{cudaSuccess, "cudaSuccess", "no error"},
	{cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
	{cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
	{cudaErrorInitializationError, "cudaErrorInitializationError", "initialization error"},
	{cudaErrorCudartUnloading, "cudaErrorCudartUnloading", "driver shutting down"},
	{cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration",
	 "invalid configuration argument"},
	{cudaErrorInvalidPitchValue, "cudaErrorInvalidPitchValue", "invalid pitch argument"},
	{cudaErrorInvalidSymbol, "cudaErrorInvalidSymbol", "invalid device symbol"},
	{cudaErrorInvalidHostPointer, "cudaErrorInvalidHostPointer", "invalid host pointer"},
	{cudaErrorInvalidDevicePointer, "cudaErrorInvalidDevicePointer", "invalid device pointer"},
	{cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection",
	 "invalid copy direction for memcpy"},
	{cudaErrorInvalidDeviceFunction, "cudaErrorInvalidDeviceFunction",
	 "invalid device function"},
	{cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
	{cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
	{cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle",
	 "invalid resource handle"},
	{cudaErrorNotReady, "cudaErrorNotReady", "device not ready"},
	{cudaErrorIllegalAddress, "cudaErrorIllegalAddress",
	 "an illegal memory access was encountered"},
	{cudaErrorHostMemoryAlreadyRegistered, "cudaErrorHostMemoryAlreadyRegistered",
	 "part or all of the requested memory range is already mapped"},
	{cudaErrorHostMemoryNotRegistered, "cudaErrorHostMemoryNotRegistered",
	 "pointer does not correspond to a registered memory region"},
	{cudaErrorLaunchFailure, "cudaErrorLaunchFailure", "unspecified launch failure"},
	{cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported"},
	{cudaErrorUnknown, "cudaErrorUnknown", "unknown error"},
};

EMU_API const char *cudaGetErrorName(cudaError_t error)
{
	for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
		if (errors[i].code == error)
			return errors[i].name;
	return "cudaErrorUnknown";
}

EMU_API const char *cudaGetErrorString(cudaError_t error)
{
	for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
		if (errors[i].code == error)
			return errors[i].text;
	return "unrecognized error code";
}
