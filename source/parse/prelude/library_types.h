/* Echo's stand-in for CUDA's library_types.h: the data types the math libraries name. */
#ifndef __LIBRARY_TYPES_H__
#define __LIBRARY_TYPES_H__
typedef enum cudaDataType_t {
	CUDA_R_16F = 2,
	CUDA_C_16F = 6,
	CUDA_R_16BF = 14,
	CUDA_R_32F = 0,
	CUDA_C_32F = 4,
	CUDA_R_64F = 1,
	CUDA_C_64F = 5,
	CUDA_R_8I = 3,
	CUDA_R_8U = 8,
	CUDA_R_32I = 10,
	CUDA_R_32U = 12
} cudaDataType;
typedef enum libraryPropertyType_t { MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL } libraryPropertyType;
#endif
