/* Host code only: no device buffer, so no pattern. */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
	int *v = malloc(16 * sizeof(int));
	for (int i = 0; i < 16; i++)
		v[i] = i * i;
	printf("%d\n", v[15]);
	free(v);
	return 0;
}
