package trace

import "fmt"

// IsCUDA reports whether t is a call into the CUDA runtime or driver, whose Ret is a
// cudaError_t or CUresult: non-zero means the call failed and did nothing.
func (t EventType) IsCUDA() bool {
	return t.Known() && t >= EventCUDAMalloc && t < EventDlopen
}

// Failed reports whether e records a CUDA call that returned an error.
func (e *Event) Failed() bool { return e.Type.IsCUDA() && e.Ret != 0 }

// The error codes programs meet most, by name (CUDA 12 and 13 agree on these values).
var runtimeErrors = map[int32]string{
	1: "cudaErrorInvalidValue", 2: "cudaErrorMemoryAllocation", 3: "cudaErrorInitializationError",
	4: "cudaErrorCudartUnloading", 9: "cudaErrorInvalidConfiguration", 12: "cudaErrorInvalidPitchValue",
	13: "cudaErrorInvalidSymbol", 16: "cudaErrorInvalidHostPointer", 17: "cudaErrorInvalidDevicePointer",
	21: "cudaErrorInvalidMemcpyDirection", 35: "cudaErrorInsufficientDriver", 98: "cudaErrorInvalidDeviceFunction",
	100: "cudaErrorNoDevice", 101: "cudaErrorInvalidDevice", 209: "cudaErrorNoKernelImageForDevice",
	400: "cudaErrorInvalidResourceHandle", 700: "cudaErrorIllegalAddress", 712: "cudaErrorHostMemoryAlreadyRegistered",
	713: "cudaErrorHostMemoryNotRegistered", 719: "cudaErrorLaunchFailure", 801: "cudaErrorNotSupported",
	999: "cudaErrorUnknown",
}

var driverErrors = map[int32]string{
	1: "CUDA_ERROR_INVALID_VALUE", 2: "CUDA_ERROR_OUT_OF_MEMORY", 3: "CUDA_ERROR_NOT_INITIALIZED",
	4: "CUDA_ERROR_DEINITIALIZED", 100: "CUDA_ERROR_NO_DEVICE", 101: "CUDA_ERROR_INVALID_DEVICE",
	201: "CUDA_ERROR_INVALID_CONTEXT", 400: "CUDA_ERROR_INVALID_HANDLE", 700: "CUDA_ERROR_ILLEGAL_ADDRESS",
	719: "CUDA_ERROR_LAUNCH_FAILED", 999: "CUDA_ERROR_UNKNOWN",
}

// ErrorName names the error code a call of type t returned: cudaErrorInvalidValue for the
// runtime, CUDA_ERROR_INVALID_VALUE for the driver, the number where it is not a common one.
func ErrorName(t EventType, code int32) string {
	names, unknown := runtimeErrors, "cudaError %d"
	if t >= EventCUMemAlloc && t < EventDlopen {
		names, unknown = driverErrors, "CUresult %d"
	}
	if n, ok := names[code]; ok {
		return n
	}
	return fmt.Sprintf(unknown, code)
}
