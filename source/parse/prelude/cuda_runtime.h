/*
 * Echo's stand-in for CUDA's cuda_runtime.h, for parsing without a CUDA installation: the
 * runtime API (cuda_runtime_api.h), the vector types and their make_ functions, and for C++
 * what the real header adds there: the templates that take a T ** or a symbol without a cast,
 * channel descriptors, and the texture and surface reference templates with their fetch
 * functions (legacy, still common in older suites). Declarations only: only the parse matters.
 */
#ifndef __CUDA_RUNTIME_H__
#define __CUDA_RUNTIME_H__

#include "host_defines.h"
#include "driver_types.h"
#include "vector_types.h"
#include "cuda_runtime_api.h"
#include "vector_functions.h"
#include "driver_functions.h"

#ifdef __cplusplus
template <class T> cudaError_t cudaMalloc(T **devPtr, size_t size);
template <class T> cudaError_t cudaMallocHost(T **ptr, size_t size, unsigned int flags = 0);
cudaError_t cudaMallocHost(void **ptr, size_t size, unsigned int flags);
template <class T> cudaError_t cudaHostAlloc(T **ptr, size_t size, unsigned int flags);
template <class T> cudaError_t cudaHostGetDevicePointer(T **pDevice, void *pHost, unsigned int flags);
template <class T>
cudaError_t cudaMallocManaged(T **devPtr, size_t size, unsigned int flags = cudaMemAttachGlobal);
template <class T> cudaError_t cudaMallocPitch(T **devPtr, size_t *pitch, size_t width, size_t height);
template <class T> cudaError_t cudaMallocAsync(T **devPtr, size_t size, cudaStream_t stream);
cudaError_t cudaMallocAsync(void **ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream);
template <class T> cudaError_t cudaMallocAsync(T **ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream);
template <class T>
cudaError_t cudaMallocFromPoolAsync(T **ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream);
template <class T> cudaError_t cudaGetSymbolAddress(void **devPtr, const T &symbol);
template <class T> cudaError_t cudaGetSymbolSize(size_t *size, const T &symbol);
template <class T>
cudaError_t cudaMemcpyToSymbol(const T &symbol, const void *src, size_t count, size_t offset = 0,
			       enum cudaMemcpyKind kind = cudaMemcpyHostToDevice);
template <class T>
cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t count, size_t offset = 0,
				 enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost);
template <class T>
cudaError_t cudaMemcpyToSymbolAsync(const T &symbol, const void *src, size_t count, size_t offset = 0,
				    enum cudaMemcpyKind kind = cudaMemcpyHostToDevice, cudaStream_t stream = 0);
template <class T>
cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const T &symbol, size_t count, size_t offset = 0,
				      enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost, cudaStream_t stream = 0);
template <class T>
cudaError_t cudaLaunchKernel(T *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem = 0,
			     cudaStream_t stream = 0);
template <class T>
cudaError_t cudaLaunchCooperativeKernel(T *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem = 0,
					cudaStream_t stream = 0);
template <class K, class... A> cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t *config, K kernel, A &&...args);
template <class T> cudaError_t cudaFuncSetCacheConfig(T *func, enum cudaFuncCache cacheConfig);
template <class T> cudaError_t cudaFuncSetSharedMemConfig(T *func, enum cudaSharedMemConfig config);
template <class T> cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, T *func);
template <class T> cudaError_t cudaFuncSetAttribute(T *func, enum cudaFuncAttribute attr, int value);
template <class T>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, T func, int blockSize,
							  size_t dynamicSMemSize);
template <class T>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, T func, int blockSize,
								   size_t dynamicSMemSize, unsigned int flags);
template <class T>
cudaError_t cudaOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, T func, size_t dynamicSMemSize = 0,
					       int blockSizeLimit = 0);
template <class T, class F>
cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMem(int *minGridSize, int *blockSize, T func,
							   F blockSizeToDynamicSMemSize, int blockSizeLimit = 0);
template <class T> cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
						    cudaGraphNode_t *pErrorNode, char *pLogBuffer, size_t bufferSize);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph, cudaGraphNode_t *pErrorNode,
				 char *pLogBuffer, size_t bufferSize);
cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr, size_t length, unsigned int flags);

/* channel_descriptor.h */
template <class T> struct cudaChannelFormatDesc cudaCreateChannelDesc(void);
struct cudaChannelFormatDesc cudaCreateChannelDescHalf(void);
struct cudaChannelFormatDesc cudaCreateChannelDescHalf1(void);
struct cudaChannelFormatDesc cudaCreateChannelDescHalf2(void);
struct cudaChannelFormatDesc cudaCreateChannelDescHalf4(void);

/* cuda_texture_types.h and cuda_surface_types.h: the legacy references. */
template <class T, int texType = cudaTextureType1D, enum cudaTextureReadMode mode = cudaReadModeElementType>
struct texture : public textureReference {
	texture(int norm = 0, enum cudaTextureFilterMode fMode = cudaFilterModePoint,
		enum cudaTextureAddressMode aMode = cudaAddressModeClamp);
	texture(int norm, enum cudaTextureFilterMode fMode, enum cudaTextureAddressMode aMode,
		struct cudaChannelFormatDesc desc);
};
template <class T, int dim = 1> struct surface : public surfaceReference {
	surface(void);
	surface(struct cudaChannelFormatDesc desc);
};
template <class T, int dim, enum cudaTextureReadMode readMode>
cudaError_t cudaBindTexture(size_t *offset, const struct texture<T, dim, readMode> &tex, const void *devPtr,
			    const struct cudaChannelFormatDesc &desc, size_t size = ~(size_t)0);
template <class T, int dim, enum cudaTextureReadMode readMode>
cudaError_t cudaBindTexture(size_t *offset, const struct texture<T, dim, readMode> &tex, const void *devPtr,
			    size_t size = ~(size_t)0);
template <class T, int dim, enum cudaTextureReadMode readMode>
cudaError_t cudaBindTexture2D(size_t *offset, const struct texture<T, dim, readMode> &tex, const void *devPtr,
			      const struct cudaChannelFormatDesc &desc, size_t width, size_t height, size_t pitch);
template <class T, int dim, enum cudaTextureReadMode readMode>
cudaError_t cudaBindTexture2D(size_t *offset, const struct texture<T, dim, readMode> &tex, const void *devPtr,
			      size_t width, size_t height, size_t pitch);
template <class T, int dim, enum cudaTextureReadMode readMode>
cudaError_t cudaBindTextureToArray(const struct texture<T, dim, readMode> &tex, cudaArray_const_t array,
				   const struct cudaChannelFormatDesc &desc);
template <class T, int dim, enum cudaTextureReadMode readMode>
cudaError_t cudaBindTextureToArray(const struct texture<T, dim, readMode> &tex, cudaArray_const_t array);
template <class T, int dim, enum cudaTextureReadMode readMode>
cudaError_t cudaUnbindTexture(const struct texture<T, dim, readMode> &tex);
template <class T, int dim>
cudaError_t cudaBindSurfaceToArray(const struct surface<T, dim> &surf, cudaArray_const_t array);

/* Fetches: the reference kind and the object kind (texture_fetch_functions.h,
 * texture_indirect_functions.h, surface_functions.h). The result type is the element type,
 * or float for a normalized read: close enough for a parse. */
template <class T, int texType, enum cudaTextureReadMode mode>
__attribute__((device)) T tex1Dfetch(texture<T, texType, mode> t, int x);
template <class T, int texType, enum cudaTextureReadMode mode>
__attribute__((device)) T tex1D(texture<T, texType, mode> t, float x);
template <class T, int texType, enum cudaTextureReadMode mode>
__attribute__((device)) T tex2D(texture<T, texType, mode> t, float x, float y);
template <class T, int texType, enum cudaTextureReadMode mode>
__attribute__((device)) T tex3D(texture<T, texType, mode> t, float x, float y, float z);
template <class T, int texType, enum cudaTextureReadMode mode>
__attribute__((device)) T tex1DLayered(texture<T, texType, mode> t, float x, int layer);
template <class T, int texType, enum cudaTextureReadMode mode>
__attribute__((device)) T tex2DLayered(texture<T, texType, mode> t, float x, float y, int layer);
template <class T> __attribute__((device)) T tex1Dfetch(cudaTextureObject_t obj, int x);
template <class T> __attribute__((device)) T tex1D(cudaTextureObject_t obj, float x);
template <class T> __attribute__((device)) T tex2D(cudaTextureObject_t obj, float x, float y);
template <class T> __attribute__((device)) T tex3D(cudaTextureObject_t obj, float x, float y, float z);
template <class T> __attribute__((device)) T tex2DLayered(cudaTextureObject_t obj, float x, float y, int layer);
template <class T> __attribute__((device)) void tex1Dfetch(T *ret, cudaTextureObject_t obj, int x);
template <class T> __attribute__((device)) void tex2D(T *ret, cudaTextureObject_t obj, float x, float y);
template <class T>
__attribute__((device)) void surf2Dread(T *res, cudaSurfaceObject_t surfObject, int x, int y,
					enum cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap);
template <class T>
__attribute__((device)) T surf2Dread(cudaSurfaceObject_t surfObject, int x, int y,
				     enum cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap);
template <class T>
__attribute__((device)) void surf2Dwrite(T data, cudaSurfaceObject_t surfObject, int x, int y,
					 enum cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap);
template <class T>
__attribute__((device)) void surf1Dwrite(T data, cudaSurfaceObject_t surfObject, int x,
					 enum cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap);
template <class T>
__attribute__((device)) void surf3Dwrite(T data, cudaSurfaceObject_t surfObject, int x, int y, int z,
					 enum cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap);
template <class T, int dim>
__attribute__((device)) void surf2Dwrite(T data, surface<void, dim> s, int x, int y,
					 enum cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap);
template <class T, int dim>
__attribute__((device)) void surf2Dread(T *res, surface<void, dim> s, int x, int y,
					enum cudaSurfaceBoundaryMode boundaryMode = cudaBoundaryModeTrap);
#endif /* __cplusplus */

#endif
