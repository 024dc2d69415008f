// Package tracer records what an unmodified CUDA program allocates, copies, launches and
// waits for, with eBPF uprobes on the CUDA runtime, the CUDA driver and the host allocators:
// library discovery, attaching, the ring-buffer reader, and writing the trace file.
package tracer
