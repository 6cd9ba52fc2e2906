/*
 * dwb-cc SOURCE OUTPUT - the "compiler" of the configure workload: reads
 * SOURCE, and writes OUTPUT, mode 0755, as a copy of dwb-true-dyn (found
 * next to itself), as a compiler and linker write a fresh conftest
 * executable that the script then runs.  Exit 1 on any failure.
 */
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int slurp(const char *path, char *buf, size_t len, ssize_t *got)
{
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	*got = read(fd, buf, len);
	close(fd);
	return *got < 0 ? -1 : 0;
}

static int emit(const char *path, const char *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	int rc;

	if (fd < 0)
		return -1;
	rc = write(fd, buf, len) == (ssize_t)len ? 0 : -1;
	return close(fd) || rc ? -1 : 0;
}

int main(int argc, char **argv)
{
	static char src[65536], exe[1 << 20];
	char self[4096], model[4200];
	ssize_t n, len;

	if (argc != 3) {
		fprintf(stderr, "usage: dwb-cc SOURCE OUTPUT\n");
		return 2;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 1;
	self[n] = 0;
	snprintf(model, sizeof(model), "%s/dwb-true-dyn", dirname(self));
	if (slurp(argv[1], src, sizeof(src), &n) || n == 0 ||
	    slurp(model, exe, sizeof(exe), &len) || len == 0 ||
	    emit(argv[2], exe, len)) {
		perror("dwb-cc");
		return 1;
	}
	return 0;
}
