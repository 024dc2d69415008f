/* The entry points libcudart.so.12 keeps for the emulated driver (private.h). */
#include "internal.h"
#include "private.h"

static enum emu_mem kind_of(enum emu_drv_mem kind)
{
	switch (kind) {
	case EMU_DRV_PINNED:
		return EMU_MEM_PINNED;
	case EMU_DRV_MANAGED:
		return EMU_MEM_MANAGED;
	default:
		return EMU_MEM_DEVICE;
	}
}

EMU_PRIVATE cudaError_t emu_drv_ready(void)
{
	return emu_ok();
}

EMU_PRIVATE int emu_drv_version(void)
{
	return emu_knobs()->driver_version;
}

EMU_PRIVATE int emu_drv_device_count(void)
{
	return emu_knobs()->device_count;
}

EMU_PRIVATE cudaError_t emu_drv_alloc(void **out, size_t bytes, enum emu_drv_mem kind)
{
	return emu_allocate(out, bytes, kind_of(kind));
}

EMU_PRIVATE cudaError_t emu_drv_free(void *p, enum emu_drv_mem kind)
{
	return emu_release(p, kind == EMU_DRV_PINNED ? EMU_PINNED_KINDS : EMU_DEVICE_KINDS);
}

EMU_PRIVATE cudaError_t emu_drv_copy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
				     cudaStream_t stream, int async)
{
	return emu_copy(dst, bytes, src, bytes, bytes, 1, kind, stream, async != 0, false);
}

EMU_PRIVATE cudaError_t emu_drv_device_sync(void)
{
	return emu_device_synchronize();
}

EMU_PRIVATE cudaError_t emu_drv_stream_sync(cudaStream_t stream)
{
	return emu_stream_sync(stream);
}

EMU_PRIVATE cudaError_t emu_drv_stream_create(cudaStream_t *stream, unsigned int flags)
{
	return emu_stream_create(stream, flags);
}

EMU_PRIVATE cudaError_t emu_drv_stream_destroy(cudaStream_t stream)
{
	return emu_stream_destroy(stream);
}

EMU_PRIVATE void emu_drv_copy_stats(struct emu_drv_copy_stats *out)
{
	emu_stage_stats(out);
}

EMU_PRIVATE cudaError_t emu_drv_launch(const void *func, dim3 grid, dim3 block, void **args, cudaStream_t stream)
{
	return emu_launch(func, grid, block, args, stream);
}
