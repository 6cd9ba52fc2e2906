/* ready.h - shared by the tiny guest helper programs (sleeper, forker,
 * dynsleep, dlsleep).
 *
 * dwtest starts them with DWTEST_READY_FD=<n> in the environment, <n> being
 * the write end of a pipe.  Once main() runs (and whatever the program must do
 * first is done) the program writes one 'R' to it, so dwtest knows the file is
 * really executing.  Without the variable nothing is written, so the programs
 * are safe to run by hand.
 */
#ifndef DWTEST_READY_H
#define DWTEST_READY_H

#include <stdlib.h>
#include <unistd.h>

/* The readiness pipe from DWTEST_READY_FD, or -1 without one. */
static inline int dw_ready_fd(void)
{
	const char *s = getenv("DWTEST_READY_FD");
	char *end;
	long fd;

	if (!s || !*s)
		return -1;
	fd = strtol(s, &end, 10);
	if (*end || fd < 3 || fd > 65535)
		return -1;
	return (int)fd;
}

static inline void dw_signal_ready(void)
{
	int fd = dw_ready_fd();

	if (fd < 0)
		return;
	if (write(fd, "R", 1) != 1) {
		/* nobody listening: nothing to do */
	}
	close(fd);
	unsetenv("DWTEST_READY_FD");
}

static inline _Noreturn void dw_sleep_forever(void)
{
	for (;;)
		pause();
}

#endif
