/* runas UID CMD [ARGS...] - drop to UID (groups, gid and uid, so every
 * capability is gone) and execvp CMD.  Exit 127 with a message on failure. */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long id;
	char *end;

	if (argc < 3) {
		fprintf(stderr, "usage: runas UID CMD [ARGS...]\n");
		return 127;
	}
	errno = 0;
	id = strtoul(argv[1], &end, 10);
	if (errno || end == argv[1] || *end || id > 0xfffffffeUL) {
		fprintf(stderr, "runas: bad UID '%s'\n", argv[1]);
		return 127;
	}
	if (setgroups(0, NULL)) {
		fprintf(stderr, "runas: setgroups: %s\n", strerror(errno));
		return 127;
	}
	if (setgid((gid_t)id)) {
		fprintf(stderr, "runas: setgid(%lu): %s\n", id, strerror(errno));
		return 127;
	}
	if (setuid((uid_t)id)) {
		fprintf(stderr, "runas: setuid(%lu): %s\n", id, strerror(errno));
		return 127;
	}
	execvp(argv[2], argv + 2);
	fprintf(stderr, "runas: exec %s: %s\n", argv[2], strerror(errno));
	return 127;
}
