// SPDX-License-Identifier: GPL-2.0
/*
 * The program the denywrite selftests run: it says on descriptor 3 that it
 * runs, and then sleeps until killed.  Linked dynamically, so that its
 * exec maps an ELF interpreter and the C library.
 */

#include <unistd.h>

int main(void)
{
	/* Descriptor 3 may be closed: the program runs all the same. */
	if (write(3, "R", 1) == 1)
		close(3);
	for (;;)
		pause();
}
