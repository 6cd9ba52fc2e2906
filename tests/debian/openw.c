/*
 * dwaa-openw FILE - open FILE for writing (O_WRONLY, no O_CREAT), close it,
 * print "opened" or the error's name and text ("ETXTBSY Text file busy"),
 * exit 0 or 1.  The program that the Debian guest's AppArmor profile
 * confines (tests/debian/dwaa-openw.apparmor, loaded by suites.sh): which
 * LSM refuses the open shows in the errno, EACCES from AppArmor, ETXTBSY
 * from denywrite.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: dwaa-openw FILE\n");
		return 2;
	}
	fd = open(argv[1], O_WRONLY);
	if (fd < 0) {
		int e = errno;

		printf("%s %s\n", e == EACCES ? "EACCES" : e == ETXTBSY ? "ETXTBSY" :
		       e == EPERM ? "EPERM" : "errno", strerror(e));
		return 1;
	}
	close(fd);
	printf("opened\n");
	return 0;
}
