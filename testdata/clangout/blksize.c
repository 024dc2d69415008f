/*
 * blksize: prints the st_blksize fstat(2) gives for standard output, as LLVM asks it before
 * sizing its output buffer. With libechoclangout preloaded and standard output a pipe it is
 * 1 MiB; otherwise what the kernel says (a pipe's page size).
 */
#include <stdio.h>
#include <sys/stat.h>

int main(void)
{
	struct stat st;
	if (fstat(1, &st) != 0) {
		perror("fstat");
		return 1;
	}
	printf("%ld\n", (long)st.st_blksize);
	return 0;
}
