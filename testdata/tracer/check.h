/* CHECK ends the test program when a CUDA call fails: the runtime's cudaSuccess and the
 * driver's CUDA_SUCCESS are both 0. Include after the CUDA header and <stdio.h>, <stdlib.h>. */
#ifndef ECHO_TESTDATA_TRACER_CHECK_H
#define ECHO_TESTDATA_TRACER_CHECK_H

#define CHECK(call)                                                                       \
	do {                                                                              \
		if ((int)(call) != 0) {                                                   \
			fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #call); \
			exit(1);                                                          \
		}                                                                         \
	} while (0)

#endif
