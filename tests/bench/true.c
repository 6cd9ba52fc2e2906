/* dwb-true (static) and dwb-true-dyn (dynamic, ld.so + libc): do nothing,
 * exit 0.  What fork+exec+wait and the configure workload run.
 *
 * "dwb-true --hold FILE...": map each FILE executable (PROT_EXEC, as ld.so
 * maps a library), write "held" on stdout and wait until killed: the
 * long-running background processes of make bench-distro, which run the
 * same programs and map the same files as the operations it times.
 * Exit 1 if a FILE cannot be mapped, 2 on other arguments. */
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int hold(int n, char **files)
{
	int i, fd;

	for (i = 0; i < n; i++) {
		fd = open(files[i], O_RDONLY);
		if (fd < 0 || mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE,
				   fd, 0) == MAP_FAILED) {
			write(2, "dwb-true: cannot map ", 21);
			write(2, files[i], strlen(files[i]));
			write(2, "\n", 1);
			return 1;
		}
		close(fd);
	}
	if (write(1, "held\n", 5) != 5)
		return 1;
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	if (argc == 1)
		return 0;
	if (strcmp(argv[1], "--hold"))
		return 2;
	return hold(argc - 2, argv + 2);
}
