package trace

import "fmt"

// EventType says which API call an Event records: enum echo_event_type of bpf/events.h.
// Every value is below 0x100, which is how a reader tells an event record from the other
// record types (FORMAT.md).
type EventType uint32

// The event types, with the values of bpf/events.h.
const (
	// host allocators (libc, libstdc++), filtered by size in the kernel
	EventMalloc        EventType = 1
	EventCalloc        EventType = 2
	EventRealloc       EventType = 3
	EventPosixMemalign EventType = 4
	EventAlignedAlloc  EventType = 5
	EventFree          EventType = 6
	EventNewArray      EventType = 7 // operator new[]
	EventDeleteArray   EventType = 8 // operator delete[]

	// CUDA runtime: memory
	EventCUDAMalloc         EventType = 16
	EventCUDAMallocHost     EventType = 17
	EventCUDAHostAlloc      EventType = 18
	EventCUDAMallocManaged  EventType = 19
	EventCUDAHostRegister   EventType = 20
	EventCUDAFree           EventType = 21
	EventCUDAFreeHost       EventType = 22
	EventCUDAHostUnregister EventType = 23

	// CUDA runtime: copies and sets
	EventCUDAMemcpy        EventType = 32
	EventCUDAMemcpyAsync   EventType = 33
	EventCUDAMemcpy2D      EventType = 34
	EventCUDAMemcpy2DAsync EventType = 35
	EventCUDAMemset        EventType = 36
	EventCUDAMemsetAsync   EventType = 37

	// CUDA runtime: work and ordering
	EventCUDALaunchKernel      EventType = 48
	EventCUDAStreamCreate      EventType = 49
	EventCUDAStreamDestroy     EventType = 50
	EventCUDAStreamSynchronize EventType = 51
	EventCUDADeviceSynchronize EventType = 52
	EventCUDAEventRecord       EventType = 53
	EventCUDAEventSynchronize  EventType = 54
	EventCUDAStreamWaitEvent   EventType = 55

	// CUDA driver API, recorded only when no runtime call is under way on the thread
	EventCUMemAlloc          EventType = 64
	EventCUMemAllocHost      EventType = 65
	EventCUMemHostAlloc      EventType = 66
	EventCUMemAllocManaged   EventType = 67
	EventCUMemFree           EventType = 68
	EventCUMemFreeHost       EventType = 69
	EventCUMemcpyHtoD        EventType = 72
	EventCUMemcpyDtoH        EventType = 73
	EventCUMemcpyDtoD        EventType = 74
	EventCUMemcpyHtoDAsync   EventType = 75
	EventCUMemcpyDtoHAsync   EventType = 76
	EventCUMemcpyDtoDAsync   EventType = 77
	EventCULaunchKernel      EventType = 80
	EventCUStreamSynchronize EventType = 81
	EventCUCtxSynchronize    EventType = 82

	// the dynamic loader changed the process's libraries (at start, dlopen, dlclose): the
	// tracer reads them again and writes a module record for each new one
	EventDlopen EventType = 96
)

// eventNames are the API names a user knows, indexed by type; "" marks a value events.h
// does not define.
var eventNames = [...]string{
	EventMalloc:        "malloc",
	EventCalloc:        "calloc",
	EventRealloc:       "realloc",
	EventPosixMemalign: "posix_memalign",
	EventAlignedAlloc:  "aligned_alloc",
	EventFree:          "free",
	EventNewArray:      "operator new[]",
	EventDeleteArray:   "operator delete[]",

	EventCUDAMalloc:         "cudaMalloc",
	EventCUDAMallocHost:     "cudaMallocHost",
	EventCUDAHostAlloc:      "cudaHostAlloc",
	EventCUDAMallocManaged:  "cudaMallocManaged",
	EventCUDAHostRegister:   "cudaHostRegister",
	EventCUDAFree:           "cudaFree",
	EventCUDAFreeHost:       "cudaFreeHost",
	EventCUDAHostUnregister: "cudaHostUnregister",

	EventCUDAMemcpy:        "cudaMemcpy",
	EventCUDAMemcpyAsync:   "cudaMemcpyAsync",
	EventCUDAMemcpy2D:      "cudaMemcpy2D",
	EventCUDAMemcpy2DAsync: "cudaMemcpy2DAsync",
	EventCUDAMemset:        "cudaMemset",
	EventCUDAMemsetAsync:   "cudaMemsetAsync",

	EventCUDALaunchKernel:      "cudaLaunchKernel",
	EventCUDAStreamCreate:      "cudaStreamCreate",
	EventCUDAStreamDestroy:     "cudaStreamDestroy",
	EventCUDAStreamSynchronize: "cudaStreamSynchronize",
	EventCUDADeviceSynchronize: "cudaDeviceSynchronize",
	EventCUDAEventRecord:       "cudaEventRecord",
	EventCUDAEventSynchronize:  "cudaEventSynchronize",
	EventCUDAStreamWaitEvent:   "cudaStreamWaitEvent",

	EventCUMemAlloc:          "cuMemAlloc_v2",
	EventCUMemAllocHost:      "cuMemAllocHost_v2",
	EventCUMemHostAlloc:      "cuMemHostAlloc",
	EventCUMemAllocManaged:   "cuMemAllocManaged",
	EventCUMemFree:           "cuMemFree_v2",
	EventCUMemFreeHost:       "cuMemFreeHost",
	EventCUMemcpyHtoD:        "cuMemcpyHtoD_v2",
	EventCUMemcpyDtoH:        "cuMemcpyDtoH_v2",
	EventCUMemcpyDtoD:        "cuMemcpyDtoD_v2",
	EventCUMemcpyHtoDAsync:   "cuMemcpyHtoDAsync_v2",
	EventCUMemcpyDtoHAsync:   "cuMemcpyDtoHAsync_v2",
	EventCUMemcpyDtoDAsync:   "cuMemcpyDtoDAsync_v2",
	EventCULaunchKernel:      "cuLaunchKernel",
	EventCUStreamSynchronize: "cuStreamSynchronize",
	EventCUCtxSynchronize:    "cuCtxSynchronize",

	EventDlopen: "dlopen",
}

// String is the name of the API call, as a user would write it; "event(N)" for a value
// events.h does not define.
func (t EventType) String() string {
	if t.Known() {
		return eventNames[t]
	}
	return fmt.Sprintf("event(%d)", uint32(t))
}

// Known reports whether bpf/events.h defines t.
func (t EventType) Known() bool {
	return uint64(t) < uint64(len(eventNames)) && eventNames[t] != ""
}

// IsCopy reports whether t is a memory copy of the runtime (cudaMemcpy and its async and 2D
// forms) or of the driver (cuMemcpy*).
func (t EventType) IsCopy() bool {
	switch t {
	case EventCUDAMemcpy, EventCUDAMemcpyAsync, EventCUDAMemcpy2D, EventCUDAMemcpy2DAsync,
		EventCUMemcpyHtoD, EventCUMemcpyDtoH, EventCUMemcpyDtoD,
		EventCUMemcpyHtoDAsync, EventCUMemcpyDtoHAsync, EventCUMemcpyDtoDAsync:
		return true
	}
	return false
}

// IsHostAlloc reports whether t is a host allocator: the malloc family and operator new[].
func (t EventType) IsHostAlloc() bool {
	switch t {
	case EventMalloc, EventCalloc, EventRealloc, EventPosixMemalign, EventAlignedAlloc,
		EventNewArray:
		return true
	}
	return false
}

// IsDeviceAlloc reports whether t hands out memory through CUDA, runtime or driver: device,
// managed, pinned and registered host memory alike. IsDeviceMemory says which of them place
// the memory on the device.
func (t EventType) IsDeviceAlloc() bool {
	switch t {
	case EventCUDAMalloc, EventCUDAMallocHost, EventCUDAHostAlloc, EventCUDAMallocManaged,
		EventCUDAHostRegister,
		EventCUMemAlloc, EventCUMemAllocHost, EventCUMemHostAlloc, EventCUMemAllocManaged:
		return true
	}
	return false
}

// IsDeviceMemory reports whether t allocates memory a copy treats as device memory:
// cudaMalloc, cuMemAlloc and, since the program copies to it as to a device buffer, managed
// memory. Pinned and registered memory is host memory.
func (t EventType) IsDeviceMemory() bool {
	switch t {
	case EventCUDAMalloc, EventCUDAMallocManaged, EventCUMemAlloc, EventCUMemAllocManaged:
		return true
	}
	return false
}

// IsFree reports whether t releases memory: free, operator delete[], and the CUDA frees and
// unregister.
func (t EventType) IsFree() bool {
	switch t {
	case EventFree, EventDeleteArray, EventCUDAFree, EventCUDAFreeHost, EventCUDAHostUnregister,
		EventCUMemFree, EventCUMemFreeHost:
		return true
	}
	return false
}

// The values of cudaMemcpyKind, which copy events carry in Kind (driver copies carry the
// equivalent value).
const (
	KindHostToHost     uint32 = 0
	KindHostToDevice   uint32 = 1
	KindDeviceToHost   uint32 = 2
	KindDeviceToDevice uint32 = 3
	KindDefault        uint32 = 4 // the runtime infers the direction from the pointers
)

// Direction names a cudaMemcpyKind: "h2h", "h2d", "d2h", "d2d" or "default"; "kind(N)"
// for a value the runtime rejects.
func Direction(kind uint32) string {
	switch kind {
	case KindHostToHost:
		return "h2h"
	case KindHostToDevice:
		return "h2d"
	case KindDeviceToHost:
		return "d2h"
	case KindDeviceToDevice:
		return "d2d"
	case KindDefault:
		return "default"
	}
	return fmt.Sprintf("kind(%d)", kind)
}
