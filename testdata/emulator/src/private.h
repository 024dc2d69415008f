/*
 * What libcudart.so.12 exports for the emulated driver (libcuda.so.1) alone: the runtime's
 * own operations, entered below its public API. The driver must not call the public entry
 * points (a tracer would see runtime calls inside driver calls, which never happens with
 * the real libraries), and when the runtime routes a call through the driver
 * (CUDA_EMU_DRIVER=1) the driver's way back in must not route again. One more entry,
 * emu_drv_copy_stats, is for the emulator's selftest: it shares the prefix so the export
 * list keeps one private name space.
 */
#ifndef ECHO_EMU_PRIVATE_H
#define ECHO_EMU_PRIVATE_H

#include "cuda_runtime_api.h"

#define EMU_PRIVATE __attribute__((visibility("default")))

enum emu_drv_mem { EMU_DRV_DEVICE, EMU_DRV_PINNED, EMU_DRV_MANAGED };

#ifdef __cplusplus
extern "C" {
#endif

/* cudaSuccess, or cudaErrorNoDevice when the emulator reports no device. */
cudaError_t emu_drv_ready(void);
int emu_drv_version(void);
int emu_drv_device_count(void);
cudaError_t emu_drv_alloc(void **out, size_t bytes, enum emu_drv_mem kind);
cudaError_t emu_drv_free(void *p, enum emu_drv_mem kind);
/* A whole copy of kind on stream (async) or the legacy stream (synchronous), with the
 * runtime's blocking rules. */
cudaError_t emu_drv_copy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
			 cudaStream_t stream, int async);
cudaError_t emu_drv_device_sync(void);
cudaError_t emu_drv_stream_sync(cudaStream_t stream);
/* A stream the driver creates is one of the runtime's: flags are cudaStreamNonBlocking or 0. */
cudaError_t emu_drv_stream_create(cudaStream_t *stream, unsigned int flags);
cudaError_t emu_drv_stream_destroy(cudaStream_t stream);
/* A launch of the registered kernel func (cuLaunchKernel's CUfunction is that pointer). */
cudaError_t emu_drv_launch(const void *func, dim3 grid, dim3 block, void **args, cudaStream_t stream);

/* Copies staged through a bounce buffer because their host side is pageable (src/stage.c),
 * counted since the process started, whichever API (runtime or driver) issued them. */
struct emu_drv_copy_stats {
	unsigned long long staged_copies;
	unsigned long long staged_chunks; /* bounce-buffer round trips */
	unsigned long long staged_bytes;
	unsigned long long chunk_bytes; /* the bounce buffer's size */
};
void emu_drv_copy_stats(struct emu_drv_copy_stats *out);

#ifdef __cplusplus
}
#endif

#endif
