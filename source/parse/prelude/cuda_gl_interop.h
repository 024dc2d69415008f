/* Echo's stand-in for CUDA's cuda_gl_interop.h: the OpenGL interop calls, with GL's handles as
 * the unsigned integers they are (GLuint, GLenum), declared only. */
#ifndef __CUDA_GL_INTEROP_H__
#define __CUDA_GL_INTEROP_H__
#include "cuda_runtime_api.h"
#ifdef __cplusplus
extern "C" {
#endif
enum cudaGLDeviceList { cudaGLDeviceListAll = 1, cudaGLDeviceListCurrentFrame = 2, cudaGLDeviceListNextFrame = 3 };
cudaError_t cudaGLGetDevices(unsigned int *pCudaDeviceCount, int *pCudaDevices, unsigned int cudaDeviceCount,
			     enum cudaGLDeviceList deviceList);
cudaError_t cudaGraphicsGLRegisterImage(struct cudaGraphicsResource **resource, unsigned int image, unsigned int target,
					unsigned int flags);
cudaError_t cudaGraphicsGLRegisterBuffer(struct cudaGraphicsResource **resource, unsigned int buffer, unsigned int flags);
cudaError_t cudaGLSetGLDevice(int device);
cudaError_t cudaGLRegisterBufferObject(unsigned int bufObj);
cudaError_t cudaGLMapBufferObject(void **devPtr, unsigned int bufObj);
cudaError_t cudaGLUnmapBufferObject(unsigned int bufObj);
cudaError_t cudaGLUnregisterBufferObject(unsigned int bufObj);
#ifdef __cplusplus
}
#endif
#endif
