// Not a file clang can parse to its end: it includes a header by an absolute path no stand-in
// can replace, so the scan counts it unparsable with clang's first error.
#include "/nonexistent/echo-scan-missing.h"

int main(void)
{
	float *p = undeclared_allocator(64);
	return p != 0;
}
