// Not a program clang can parse: the scan counts it unparsable with clang's first error.
int main(void)
{
	float *p = undeclared_allocator(64);
	return p != 0;
}
