// Not a file clang can parse to its end (it copies, so the scan parses it): it includes a header
// by an absolute path no stand-in can replace, so it counts unparsable with clang's first error.
#include "/nonexistent/echo-scan-missing.h"

int main(void)
{
	float *p = undeclared_allocator(64);
	cudaMemcpy(p, p, 64, cudaMemcpyHostToHost);
	return p != 0;
}
