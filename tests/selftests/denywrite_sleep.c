// SPDX-License-Identifier: GPL-2.0
/*
 * The program the denywrite selftests run: given a descriptor's number, it
 * says on that descriptor that it runs; then it sleeps until killed.
 * Without one it writes nothing: a descriptor it inherited is not its to
 * write.  Linked dynamically, so that its exec maps an ELF interpreter and
 * the C library.
 */

#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc > 1) {
		int fd = atoi(argv[1]);

		if (write(fd, "R", 1) == 1)
			close(fd);
	}
	for (;;)
		pause();
}
