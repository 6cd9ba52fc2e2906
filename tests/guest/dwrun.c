/* dwrun GROUP TIMEOUT COMMAND [ARGS...] - run one test program of a guest
 * suite and say how it ended.
 *
 * COMMAND runs in a process group of its own, with DWTEST_GROUP=GROUP in
 * its environment and stdin from /dev/null.  Its stdout comes back through
 * a pipe and is copied to ours line by line, so that a program killed in
 * the middle of a line cannot glue its last words to the EXIT line (a last
 * line without a newline gets one).  Its stderr is ours.
 *
 * When COMMAND exits, or TIMEOUT seconds after it started, whatever is
 * left of its process group is killed and every child is reaped (dwrun is
 * a subreaper), and dwrun prints
 *
 *     STAT GROUP seconds S
 *     EXIT GROUP STATUS
 *
 * STATUS is the exit code (0-255), "signal:SIGNAME" when a signal killed
 * it, "timeout" when it still ran after TIMEOUT seconds, or
 * "not-started:ERRNAME" when it could not be executed.  Only 0 is a
 * success; scripts/report.py checks it.  dwrun itself exits 0, or 2 on a
 * usage error (then it prints nothing on stdout).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DRAIN_MS 1000 /* how long to wait for output after the exit */

struct relay {
	int fd;            /* read end of the child's stdout, -1 at EOF */
	char buf[1 << 16];
	size_t have;
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void write_all(const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(STDOUT_FILENO, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

/* Copy the complete lines in r->buf; keep a partial tail unless it fills
 * the buffer or flush is set (then it is ended with a newline). */
static void relay_lines(struct relay *r, int flush)
{
	char *nl = memrchr(r->buf, '\n', r->have);
	size_t done = nl ? (size_t)(nl - r->buf) + 1 : 0;

	if (!nl && (flush || r->have == sizeof(r->buf)) && r->have) {
		write_all(r->buf, r->have);
		write_all("\n", 1);
		done = r->have;
	} else if (done) {
		write_all(r->buf, done);
	}
	memmove(r->buf, r->buf + done, r->have - done);
	r->have -= done;
	if (flush && r->have) {
		write_all(r->buf, r->have);
		write_all("\n", 1);
		r->have = 0;
	}
}

/* Wait up to timeout_ms for output and copy it; closes r->fd at EOF. */
static void relay_poll(struct relay *r, int timeout_ms)
{
	struct pollfd pfd = { .fd = r->fd, .events = POLLIN };
	ssize_t n;

	if (r->fd < 0) {
		if (timeout_ms > 0)
			poll(NULL, 0, timeout_ms);
		return;
	}
	if (poll(&pfd, 1, timeout_ms) <= 0)
		return;
	n = read(r->fd, r->buf + r->have, sizeof(r->buf) - r->have);
	if (n < 0 && errno == EINTR)
		return;
	if (n <= 0) {
		close(r->fd);
		r->fd = -1;
		return;
	}
	r->have += (size_t)n;
	relay_lines(r, 0);
}

/* In the child: run the command; on failure send errno on err_fd. */
static _Noreturn void child(const char *group, int out_fd, int err_fd,
			    char **cmd)
{
	int nul = open("/dev/null", O_RDONLY);
	int e;

	setpgid(0, 0);
	if (nul >= 0)
		dup2(nul, STDIN_FILENO);
	dup2(out_fd, STDOUT_FILENO);
	signal(SIGPIPE, SIG_DFL);
	setenv("DWTEST_GROUP", group, 1);
	execvp(cmd[0], cmd);
	e = errno;
	if (write(err_fd, &e, sizeof(e)) < 0) {
		/* the parent is gone: nothing to report to */
	}
	_exit(127);
}

/* The errno of a failed exec, 0 once the exec happened (EOF). */
static int exec_error(int err_fd)
{
	int e = 0;
	ssize_t n;

	do
		n = read(err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(err_fd);
	return n == (ssize_t)sizeof(e) ? e : 0;
}

static void status_text(char *buf, size_t len, int st)
{
	if (WIFEXITED(st)) {
		snprintf(buf, len, "%d", WEXITSTATUS(st));
	} else if (WIFSIGNALED(st)) {
		const char *name = sigabbrev_np(WTERMSIG(st));

		if (name)
			snprintf(buf, len, "signal:SIG%s", name);
		else
			snprintf(buf, len, "signal:%d", WTERMSIG(st));
	} else {
		snprintf(buf, len, "wait-status:0x%x", st);
	}
}

/* Kill what is left of the group, reap every child we have. */
static void cleanup(const char *group, pid_t pgid, struct relay *r)
{
	long long until;

	if (kill(-pgid, 0) == 0)
		fprintf(stderr, "dwrun: %s: killing processes it left behind\n",
			group);
	kill(-pgid, SIGKILL);
	until = now_ms() + DRAIN_MS;
	while (r->fd >= 0 && now_ms() < until)
		relay_poll(r, 50);
	relay_lines(r, 1);
	if (r->fd >= 0) {
		fprintf(stderr, "dwrun: %s: its stdout is still open elsewhere\n",
			group);
		close(r->fd);
		r->fd = -1;
	}
	until = now_ms() + DRAIN_MS;
	for (;;) {
		pid_t w = waitpid(-1, NULL, WNOHANG);

		if (w < 0 && errno != EINTR)
			break; /* ECHILD: all reaped */
		if (w == 0 && now_ms() >= until) {
			fprintf(stderr, "dwrun: %s: a child outside its process group still runs\n",
				group);
			break;
		}
		if (w == 0)
			poll(NULL, 0, 10);
	}
}

static int usage(void)
{
	fprintf(stderr, "usage: dwrun GROUP TIMEOUT-SECONDS COMMAND [ARGS...]\n");
	return 2;
}

int main(int argc, char **argv)
{
	static struct relay r;
	char status[64] = "timeout", *end;
	int out[2], errp[2], st, e;
	long long start, deadline;
	long limit;
	pid_t pid;

	if (argc < 4)
		return usage();
	errno = 0;
	limit = strtol(argv[2], &end, 10);
	if (errno || *end || limit <= 0 || limit > INT_MAX / 1000 || !*argv[1] ||
	    strpbrk(argv[1], " \t\n"))
		return usage();
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (pipe2(out, O_CLOEXEC) || pipe2(errp, O_CLOEXEC)) {
		perror("dwrun: pipe");
		return 2;
	}
	fflush(NULL);
	start = now_ms();
	deadline = start + limit * 1000;
	pid = fork();
	if (pid < 0) {
		snprintf(status, sizeof(status), "not-started:%s",
			 strerrorname_np(errno));
	} else if (pid == 0) {
		child(argv[1], out[1], errp[1], argv + 3);
	}
	close(out[1]);
	close(errp[1]);
	r.fd = out[0];
	if (pid > 0) {
		setpgid(pid, pid);
		e = exec_error(errp[0]);
		if (e)
			snprintf(status, sizeof(status), "not-started:%s",
				 strerrorname_np(e) ? strerrorname_np(e) : "?");
		for (;;) {
			pid_t w = waitpid(pid, &st, WNOHANG);

			if (w == pid) {
				if (!e)
					status_text(status, sizeof(status), st);
				break;
			}
			if (now_ms() >= deadline) {
				fprintf(stderr, "dwrun: %s: timed out after %ld s\n",
					argv[1], limit);
				break; /* status stays "timeout" */
			}
			relay_poll(&r, 50);
		}
		cleanup(argv[1], pid, &r);
	} else {
		close(errp[0]);
		close(r.fd);
	}
	printf("STAT %s seconds %.1f\nEXIT %s %s\n", argv[1],
	       (double)(now_ms() - start) / 1000.0, argv[1], status);
	return 0;
}
