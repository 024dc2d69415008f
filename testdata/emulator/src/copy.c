/*
 * cudaMemcpy, cudaMemcpy2D, cudaMemset and their async forms: checked against the
 * allocation table, queued on a stream, and waited for where the real runtime blocks.
 */
#include "internal.h"

/* Resolves cudaMemcpyDefault through the allocation table and checks that the device side
 * of an explicit kind is memory the device can reach. */
static cudaError_t resolve_kind(enum cudaMemcpyKind kind, struct emu_range dst,
				struct emu_range src, enum cudaMemcpyKind *out)
{
	bool dst_dev = !emu_is_host_kind(dst.kind), src_dev = !emu_is_host_kind(src.kind);
	switch (kind) {
	case cudaMemcpyDefault:
		*out = src_dev ? (dst_dev ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost)
			       : (dst_dev ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost);
		return cudaSuccess;
	case cudaMemcpyHostToHost:
		break;
	case cudaMemcpyHostToDevice:
		if (!emu_device_accessible(dst.kind))
			return cudaErrorInvalidValue;
		break;
	case cudaMemcpyDeviceToHost:
		if (!emu_device_accessible(src.kind))
			return cudaErrorInvalidValue;
		break;
	case cudaMemcpyDeviceToDevice:
		if (!emu_device_accessible(dst.kind) || !emu_device_accessible(src.kind))
			return cudaErrorInvalidValue;
		break;
	default:
		return cudaErrorInvalidMemcpyDirection;
	}
	*out = kind;
	return cudaSuccess;
}

/* "API synchronization behavior": cudaMemcpy returns once the copy is done unless it is
 * device to device; cudaMemcpyAsync blocks only where pageable memory must be staged, and
 * host to host is always synchronous. */
static bool blocks_host(bool async, enum cudaMemcpyKind kind, struct emu_range dst,
			struct emu_range src)
{
	if (kind == cudaMemcpyHostToHost)
		return true;
	if (!async)
		return kind != cudaMemcpyDeviceToDevice;
	return dst.kind == EMU_MEM_PAGEABLE || src.kind == EMU_MEM_PAGEABLE;
}

cudaError_t emu_copy(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
		     size_t height, enum cudaMemcpyKind kind, cudaStream_t stream, bool async, bool two_d)
{
	cudaError_t err = emu_ok();
	if (err)
		return err;
	if (two_d && (width > dpitch || width > spitch))
		return emu_fail(cudaErrorInvalidPitchValue);
	if (width == 0 || height == 0)
		return (unsigned)kind > cudaMemcpyDefault ? emu_fail(cudaErrorInvalidMemcpyDirection)
							  : cudaSuccess;
	if (!dst || !src)
		return emu_fail(cudaErrorInvalidValue);
	struct emu_range dr = emu_lookup(dst), sr = emu_lookup(src);
	enum cudaMemcpyKind resolved;
	err = resolve_kind(kind, dr, sr, &resolved);
	if (err)
		return emu_fail(err);
	if (!emu_range_holds(dr, dst, (height - 1) * dpitch + width) ||
	    !emu_range_holds(sr, src, (height - 1) * spitch + width))
		return emu_fail(cudaErrorInvalidValue);
	struct emu_stream *s = emu_stream_resolve(async ? stream : cudaStreamLegacy);
	if (!s)
		return emu_fail(cudaErrorInvalidResourceHandle);
	struct emu_op *op = emu_op_new(two_d ? OP_COPY2D : OP_COPY);
	if (!op)
		return emu_fail(cudaErrorMemoryAllocation);
	if (two_d) {
		op->u.copy2d.dst = dst;
		op->u.copy2d.dpitch = dpitch;
		op->u.copy2d.src = src;
		op->u.copy2d.spitch = spitch;
		op->u.copy2d.width = width;
		op->u.copy2d.height = height;
	} else {
		op->u.copy.dst = dst;
		op->u.copy.src = src;
		op->u.copy.count = width;
		op->u.copy.link = resolved == cudaMemcpyHostToDevice || resolved == cudaMemcpyDeviceToHost;
		/* The real runtime stages a pageable host side through pinned memory (stage.c);
		 * pinned, registered and managed host sides are copied directly. */
		op->u.copy.staged = (resolved == cudaMemcpyHostToDevice && sr.kind == EMU_MEM_PAGEABLE) ||
				    (resolved == cudaMemcpyDeviceToHost && dr.kind == EMU_MEM_PAGEABLE);
	}
	uint64_t target = emu_enqueue(s, op);
	if (blocks_host(async, resolved, dr, sr))
		emu_wait_stream(s, target);
	return cudaSuccess;
}

EMU_API cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
	const struct emu_driver *drv = emu_driver();
	if (drv && kind == cudaMemcpyHostToDevice)
		return emu_from_driver(drv->memcpy_htod((CUdeviceptr)dst, src, count));
	if (drv && kind == cudaMemcpyDeviceToHost)
		return emu_from_driver(drv->memcpy_dtoh(dst, (CUdeviceptr)src, count));
	if (drv && kind == cudaMemcpyDeviceToDevice)
		return emu_from_driver(drv->memcpy_dtod((CUdeviceptr)dst, (CUdeviceptr)src, count));
	return emu_copy(dst, count, src, count, count, 1, kind, NULL, false, false);
}

EMU_API cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count,
				    enum cudaMemcpyKind kind, cudaStream_t stream)
{
	return emu_copy(dst, count, src, count, count, 1, kind, stream, true, false);
}

/* What a program built with --default-stream per-thread calls for cudaMemcpy: the copy on
 * the calling thread's default stream. */
EMU_API cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
	return emu_copy(dst, count, src, count, count, 1, kind, cudaStreamPerThread, false, false);
}

EMU_API cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch,
				 size_t width, size_t height, enum cudaMemcpyKind kind)
{
	return emu_copy(dst, dpitch, src, spitch, width, height, kind, NULL, false, true);
}

EMU_API cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
				      size_t width, size_t height, enum cudaMemcpyKind kind,
				      cudaStream_t stream)
{
	return emu_copy(dst, dpitch, src, spitch, width, height, kind, stream, true, true);
}

/* cudaMemset is asynchronous to the host except on pinned host memory; cudaMemsetAsync
 * always is. */
static cudaError_t set(void *dst, int value, size_t count, cudaStream_t stream, bool async)
{
	cudaError_t err = emu_ok();
	if (err)
		return err;
	if (count == 0)
		return cudaSuccess;
	struct emu_range r = emu_lookup(dst);
	if (!dst || !emu_device_accessible(r.kind) || !emu_range_holds(r, dst, count))
		return emu_fail(cudaErrorInvalidValue);
	struct emu_stream *s = emu_stream_resolve(stream);
	if (!s)
		return emu_fail(cudaErrorInvalidResourceHandle);
	struct emu_op *op = emu_op_new(OP_MEMSET);
	if (!op)
		return emu_fail(cudaErrorMemoryAllocation);
	op->u.memset.dst = dst;
	op->u.memset.value = value;
	op->u.memset.count = count;
	uint64_t target = emu_enqueue(s, op);
	if (!async && (r.kind == EMU_MEM_PINNED || r.kind == EMU_MEM_REGISTERED))
		emu_wait_stream(s, target);
	return cudaSuccess;
}

EMU_API cudaError_t cudaMemset(void *devPtr, int value, size_t count)
{
	return set(devPtr, value, count, NULL, false);
}

EMU_API cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream)
{
	return set(devPtr, value, count, stream, true);
}
