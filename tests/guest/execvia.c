/* execvia - exec a program in the ways promises.c checks:
 *
 *   execvia wait PROG [ARGS...]  say it runs, wait for SIGUSR1, execv PROG
 *   execvia dirfd DIR NAME       execveat(open(DIR, O_PATH), NAME, 0)
 *   execvia fd FILE              execveat(open(FILE, O_PATH), "", AT_EMPTY_PATH)
 *
 * It speaks the readiness protocol of ready.h and util.c's proc_spawn():
 * the pipe in DWTEST_READY_FD is kept across the exec, so the program it
 * runs (the sleeper) says "R" once its main() runs; `wait` says "R" first
 * itself, so a test sees both when this file starts running and when it
 * stopped being this process' program.  A failed exec is reported on the
 * pipe as 'E' and its errno, and execvia exits 127; a usage error exits 2.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ready.h"

extern char **environ;

/* Wait for SIGUSR1, with SIGUSR1 unblocked again after. */
static int wait_usr1(void)
{
	sigset_t usr1;
	int sig, fd = dw_ready_fd();

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	if (fd >= 0 && write(fd, "R", 1) != 1) {
		/* nobody listening: nothing to do */
	}
	if (sigwait(&usr1, &sig))
		return -1;
	return sigprocmask(SIG_UNBLOCK, &usr1, NULL);
}

static int usage(void)
{
	fprintf(stderr, "usage: execvia wait PROG [ARGS...] | dirfd DIR NAME | fd FILE\n");
	return 2;
}

int main(int argc, char **argv)
{
	char *prog_argv[] = { "prog", NULL };
	char msg[1 + sizeof(int)] = "E";
	int fd = -1, e, rfd;

	if (argc >= 3 && !strcmp(argv[1], "wait")) {
		if (wait_usr1() == 0)
			execv(argv[2], argv + 2);
	} else if (argc == 4 && !strcmp(argv[1], "dirfd")) {
		fd = open(argv[2], O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0)
			syscall(SYS_execveat, fd, argv[3], prog_argv, environ, 0);
	} else if (argc == 3 && !strcmp(argv[1], "fd")) {
		fd = open(argv[2], O_PATH | O_CLOEXEC);
		if (fd >= 0)
			syscall(SYS_execveat, fd, "", prog_argv, environ,
				AT_EMPTY_PATH);
	} else {
		return usage();
	}
	e = errno;
	fprintf(stderr, "execvia %s: %s\n", argv[1], strerror(e));
	rfd = dw_ready_fd();
	memcpy(msg + 1, &e, sizeof(e));
	if (rfd >= 0 && write(rfd, msg, sizeof(msg)) != (ssize_t)sizeof(msg)) {
		/* nobody listening */
	}
	return 127;
}
