/* hello.c: what gcc builds in the guest under an "all" rule. */
#include <stdio.h>

int main(void)
{
	printf("hello from gcc\n");
	return 0;
}
