/*
 * Echo's stand-in for cuBLAS's cublas_v2.h: the handle, status and operation types and the
 * calls sample and benchmark code makes most (level 1–3 for float and double, batched and
 * strided GEMM, GemmEx), declared only. A device buffer passed to one reaches no body: its pair
 * is declined, as with any library call.
 */
#ifndef CUBLAS_V2_H_
#define CUBLAS_V2_H_
#define CUBLAS_API_H_
#include "cuComplex.h"
#include "cuda_runtime_api.h"
#include "library_types.h"
#ifdef __cplusplus
extern "C" {
#endif
typedef enum {
	CUBLAS_STATUS_SUCCESS = 0,
	CUBLAS_STATUS_NOT_INITIALIZED = 1,
	CUBLAS_STATUS_ALLOC_FAILED = 3,
	CUBLAS_STATUS_INVALID_VALUE = 7,
	CUBLAS_STATUS_ARCH_MISMATCH = 8,
	CUBLAS_STATUS_MAPPING_ERROR = 11,
	CUBLAS_STATUS_EXECUTION_FAILED = 13,
	CUBLAS_STATUS_INTERNAL_ERROR = 14,
	CUBLAS_STATUS_NOT_SUPPORTED = 15,
	CUBLAS_STATUS_LICENSE_ERROR = 16
} cublasStatus_t;
typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2 } cublasOperation_t;
typedef enum { CUBLAS_FILL_MODE_LOWER = 0, CUBLAS_FILL_MODE_UPPER = 1 } cublasFillMode_t;
typedef enum { CUBLAS_DIAG_NON_UNIT = 0, CUBLAS_DIAG_UNIT = 1 } cublasDiagType_t;
typedef enum { CUBLAS_SIDE_LEFT = 0, CUBLAS_SIDE_RIGHT = 1 } cublasSideMode_t;
typedef enum { CUBLAS_POINTER_MODE_HOST = 0, CUBLAS_POINTER_MODE_DEVICE = 1 } cublasPointerMode_t;
typedef enum { CUBLAS_DEFAULT_MATH = 0, CUBLAS_TENSOR_OP_MATH = 1, CUBLAS_TF32_TENSOR_OP_MATH = 3 } cublasMath_t;
typedef enum { CUBLAS_GEMM_DEFAULT = -1, CUBLAS_GEMM_DEFAULT_TENSOR_OP = 99 } cublasGemmAlgo_t;
typedef enum {
	CUBLAS_COMPUTE_16F = 64,
	CUBLAS_COMPUTE_32F = 68,
	CUBLAS_COMPUTE_32F_FAST_TF32 = 77,
	CUBLAS_COMPUTE_64F = 70,
	CUBLAS_COMPUTE_32I = 72
} cublasComputeType_t;
typedef struct cublasContext *cublasHandle_t;
cublasStatus_t cublasCreate_v2(cublasHandle_t *handle);
cublasStatus_t cublasDestroy_v2(cublasHandle_t handle);
cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t streamId);
cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode);
cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t mode);
cublasStatus_t cublasSetVector(int n, int elemSize, const void *x, int incx, void *devicePtr, int incy);
cublasStatus_t cublasGetVector(int n, int elemSize, const void *x, int incx, void *y, int incy);
cublasStatus_t cublasSetMatrix(int rows, int cols, int elemSize, const void *A, int lda, void *B, int ldb);
cublasStatus_t cublasGetMatrix(int rows, int cols, int elemSize, const void *A, int lda, void *B, int ldb);
#define ECHO_CUBLAS_TYPED(T, P)                                                                                   \
	cublasStatus_t cublas##P##axpy_v2(cublasHandle_t h, int n, const T *alpha, const T *x, int incx, T *y, int incy); \
	cublasStatus_t cublas##P##scal_v2(cublasHandle_t h, int n, const T *alpha, T *x, int incx);                  \
	cublasStatus_t cublas##P##dot_v2(cublasHandle_t h, int n, const T *x, int incx, const T *y, int incy, T *r); \
	cublasStatus_t cublas##P##nrm2_v2(cublasHandle_t h, int n, const T *x, int incx, T *r);                      \
	cublasStatus_t cublas##P##copy_v2(cublasHandle_t h, int n, const T *x, int incx, T *y, int incy);            \
	cublasStatus_t cublas##P##gemv_v2(cublasHandle_t h, cublasOperation_t trans, int m, int n, const T *alpha,  \
					  const T *A, int lda, const T *x, int incx, const T *beta, T *y, int incy);  \
	cublasStatus_t cublas##P##gemm_v2(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,       \
					  int n, int k, const T *alpha, const T *A, int lda, const T *B, int ldb,    \
					  const T *beta, T *C, int ldc);                                             \
	cublasStatus_t cublas##P##gemmBatched(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,  \
					      int n, int k, const T *alpha, const T *const A[], int lda,             \
					      const T *const B[], int ldb, const T *beta, T *const C[], int ldc,     \
					      int batchCount);                                                       \
	cublasStatus_t cublas##P##gemmStridedBatched(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,  \
						     int m, int n, int k, const T *alpha, const T *A, int lda,       \
						     long long strideA, const T *B, int ldb, long long strideB,      \
						     const T *beta, T *C, int ldc, long long strideC, int batchCount); \
	cublasStatus_t cublas##P##trsm_v2(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,           \
					  cublasOperation_t trans, cublasDiagType_t diag, int m, int n,              \
					  const T *alpha, const T *A, int lda, T *B, int ldb);
ECHO_CUBLAS_TYPED(float, S)
ECHO_CUBLAS_TYPED(double, D)
ECHO_CUBLAS_TYPED(cuComplex, C)
ECHO_CUBLAS_TYPED(cuDoubleComplex, Z)
#undef ECHO_CUBLAS_TYPED
cublasStatus_t cublasIsamax_v2(cublasHandle_t h, int n, const float *x, int incx, int *result);
cublasStatus_t cublasSasum_v2(cublasHandle_t h, int n, const float *x, int incx, float *result);
cublasStatus_t cublasGemmEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
			    const void *alpha, const void *A, cudaDataType Atype, int lda, const void *B,
			    cudaDataType Btype, int ldb, const void *beta, void *C, cudaDataType Ctype, int ldc,
			    cublasComputeType_t computeType, cublasGemmAlgo_t algo);
cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
					  int k, const void *alpha, const void *A, cudaDataType Atype, int lda,
					  long long strideA, const void *B, cudaDataType Btype, int ldb, long long strideB,
					  const void *beta, void *C, cudaDataType Ctype, int ldc, long long strideC,
					  int batchCount, cublasComputeType_t computeType, cublasGemmAlgo_t algo);
cublasStatus_t cublasHgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
			   const void *alpha, const void *A, int lda, const void *B, int ldb, const void *beta, void *C,
			   int ldc);
#ifdef __cplusplus
}
#endif
#define cublasCreate cublasCreate_v2
#define cublasDestroy cublasDestroy_v2
#define cublasSetStream cublasSetStream_v2
#define cublasSetPointerMode cublasSetPointerMode_v2
#define cublasSaxpy cublasSaxpy_v2
#define cublasDaxpy cublasDaxpy_v2
#define cublasSscal cublasSscal_v2
#define cublasDscal cublasDscal_v2
#define cublasSdot cublasSdot_v2
#define cublasDdot cublasDdot_v2
#define cublasSnrm2 cublasSnrm2_v2
#define cublasDnrm2 cublasDnrm2_v2
#define cublasScopy cublasScopy_v2
#define cublasDcopy cublasDcopy_v2
#define cublasSgemv cublasSgemv_v2
#define cublasDgemv cublasDgemv_v2
#define cublasSgemm cublasSgemm_v2
#define cublasDgemm cublasDgemm_v2
#define cublasCgemm cublasCgemm_v2
#define cublasZgemm cublasZgemm_v2
#define cublasStrsm cublasStrsm_v2
#define cublasDtrsm cublasDtrsm_v2
#define cublasIsamax cublasIsamax_v2
#define cublasSasum cublasSasum_v2
#endif
