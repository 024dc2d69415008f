/*
 * Echo's stand-in for cuFFT's cufft.h: plans, transform types and the execute calls, declared
 * only. A device buffer passed to one reaches no body: its pair is declined.
 */
#ifndef _CUFFT_H_
#define _CUFFT_H_
#include "cuComplex.h"
#include "cuda_runtime_api.h"
#ifdef __cplusplus
extern "C" {
#endif
typedef enum cufftResult_t {
	CUFFT_SUCCESS = 0x0,
	CUFFT_INVALID_PLAN = 0x1,
	CUFFT_ALLOC_FAILED = 0x2,
	CUFFT_INVALID_TYPE = 0x3,
	CUFFT_INVALID_VALUE = 0x4,
	CUFFT_INTERNAL_ERROR = 0x5,
	CUFFT_EXEC_FAILED = 0x6,
	CUFFT_SETUP_FAILED = 0x7,
	CUFFT_INVALID_SIZE = 0x8,
	CUFFT_UNALIGNED_DATA = 0x9,
	CUFFT_INCOMPLETE_PARAMETER_LIST = 0xA,
	CUFFT_INVALID_DEVICE = 0xB,
	CUFFT_PARSE_ERROR = 0xC,
	CUFFT_NO_WORKSPACE = 0xD,
	CUFFT_NOT_IMPLEMENTED = 0xE,
	CUFFT_LICENSE_ERROR = 0x0F,
	CUFFT_NOT_SUPPORTED = 0x10
} cufftResult;
typedef int cufftHandle;
typedef float cufftReal;
typedef double cufftDoubleReal;
typedef cuComplex cufftComplex;
typedef cuDoubleComplex cufftDoubleComplex;
typedef enum cufftType_t {
	CUFFT_R2C = 0x2a,
	CUFFT_C2R = 0x2c,
	CUFFT_C2C = 0x29,
	CUFFT_D2Z = 0x6a,
	CUFFT_Z2D = 0x6c,
	CUFFT_Z2Z = 0x69
} cufftType;
#define CUFFT_FORWARD -1
#define CUFFT_INVERSE 1
cufftResult cufftPlan1d(cufftHandle *plan, int nx, cufftType type, int batch);
cufftResult cufftPlan2d(cufftHandle *plan, int nx, int ny, cufftType type);
cufftResult cufftPlan3d(cufftHandle *plan, int nx, int ny, int nz, cufftType type);
cufftResult cufftPlanMany(cufftHandle *plan, int rank, int *n, int *inembed, int istride, int idist, int *onembed,
			  int ostride, int odist, cufftType type, int batch);
cufftResult cufftCreate(cufftHandle *handle);
cufftResult cufftMakePlan1d(cufftHandle plan, int nx, cufftType type, int batch, size_t *workSize);
cufftResult cufftExecC2C(cufftHandle plan, cufftComplex *idata, cufftComplex *odata, int direction);
cufftResult cufftExecR2C(cufftHandle plan, cufftReal *idata, cufftComplex *odata);
cufftResult cufftExecC2R(cufftHandle plan, cufftComplex *idata, cufftReal *odata);
cufftResult cufftExecZ2Z(cufftHandle plan, cufftDoubleComplex *idata, cufftDoubleComplex *odata, int direction);
cufftResult cufftExecD2Z(cufftHandle plan, cufftDoubleReal *idata, cufftDoubleComplex *odata);
cufftResult cufftExecZ2D(cufftHandle plan, cufftDoubleComplex *idata, cufftDoubleReal *odata);
cufftResult cufftSetStream(cufftHandle plan, cudaStream_t stream);
cufftResult cufftDestroy(cufftHandle plan);
cufftResult cufftGetVersion(int *version);
#ifdef __cplusplus
}
#endif
#endif
