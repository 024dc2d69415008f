// Rodinia's habit: the program #includes its kernel file, which holds the host function with
// the pattern and uses a type this file defines first. kernel_part.cu is no translation unit
// of its own: the scan analyses it inside this file's parse.
#include <cuda_runtime.h>
#include <stdlib.h>

typedef float real;

#include "kernel_part.cu"

int main(void)
{
	return run_part(1 << 12) > 0 ? 0 : 1;
}
