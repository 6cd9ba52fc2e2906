/* SPDX-License-Identifier: GPL-2.0 */
/*
 * denywrite selftests: helpers
 *
 * The tests run as root with denywrite active.  Each sets the mode and the
 * rules it needs through /sys/kernel/security/denywrite/ and puts back what
 * it found.  The programs they run are copies of this test program, which
 * sleeps when called with "--sleep FD" and says on FD that it runs.
 */

#ifndef _DENYWRITE_SELFTEST_COMMON_H
#define _DENYWRITE_SELFTEST_COMMON_H

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define SFS "/sys/kernel/security/denywrite/"
#define DIR_ "/tmp/dwself"
#define NOBODY 65534
/* How long a program may take to start, or a child to answer. */
#define WAIT_MS 10000

/* Write @len bytes of @buf to the securityfs file @name: 0 or an errno. */
static inline int sfs_write(const char *name, const char *buf, size_t len)
{
	char path[128];
	ssize_t n;
	int fd, err = 0;

	snprintf(path, sizeof(path), SFS "%s", name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	n = write(fd, buf, len);
	if (n < 0)
		err = errno;
	else if ((size_t)n != len)
		err = EIO;
	close(fd);
	return err;
}

static inline int sfs_puts(const char *name, const char *s)
{
	return sfs_write(name, s, strlen(s));
}

/* Read the securityfs file @name into @buf: its length, or -errno. */
static inline ssize_t sfs_read(const char *name, char *buf, size_t size)
{
	char path[128];
	ssize_t n, len = 0;
	int fd;

	snprintf(path, sizeof(path), SFS "%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	close(fd);
	if (n < 0)
		return -errno;
	buf[len] = '\0';
	return len;
}

/* The value of "KEY N" in the stats file, or -1. */
static inline long long stat_value(const char *key)
{
	char buf[1024], *p;
	size_t klen = strlen(key);

	if (sfs_read("stats", buf, sizeof(buf)) < 0)
		return -1;
	for (p = buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, key, klen) && p[klen] == ' ')
			return strtoll(p + klen + 1, NULL, 10);
	return -1;
}

/* Mode off drops every hold, so that a test starts with none of its own. */
static inline int policy_set(const char *mode, const char *rules)
{
	return sfs_puts("mode", "off") ?: sfs_puts("rules", *rules ? rules : "\n") ?:
	       sfs_puts("mode", mode);
}

/* errno of opening @path with @flags (0: it opened, and is closed). */
static inline int open_err(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* Copy this program to @path, mode @mode: 0 or an errno. */
static inline int copy_self(const char *path, mode_t mode)
{
	char buf[65536];
	ssize_t n;
	int in, out, err = 0;

	in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return errno;
	unlink(path);
	out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (out < 0) {
		err = errno;
		close(in);
		return err;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n) {
			err = errno ?: EIO;
			break;
		}
	if (n < 0)
		err = errno;
	if (fchmod(out, mode) && !err)
		err = errno;
	close(in);
	if (close(out) && !err)
		err = errno;
	return err;
}

/* Wait up to @ms for a byte on @fd: 1 if one came, 0 on EOF or timeout. */
static inline int wait_byte(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char c;

	if (poll(&p, 1, ms) != 1)
		return 0;
	return read(fd, &c, 1) == 1;
}

/*
 * A started program: its pid, or 0 if it never ran; then err is the errno
 * its exec failed with.
 */
struct proc {
	pid_t pid;
	int err;
};

static inline void proc_stop(struct proc *p)
{
	if (p->pid > 0) {
		kill(p->pid, SIGKILL);
		waitpid(p->pid, NULL, 0);
	}
	p->pid = 0;
}

/*
 * Run @path (a copy of this program) with execveat(@dirfd, @path, @flags),
 * or execve() when @dirfd is AT_FDCWD and @flags 0, and wait until it says
 * it runs.  The exec's errno comes back in the child's exit status.
 */
static inline struct proc run_at(int dirfd, const char *path, int flags)
{
	struct proc p = { 0, 0 };
	static char *const argv[] = { "dwself-prog", "--sleep", "3", NULL };
	static char *const envp[] = { NULL };
	int pipefd[2], status;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC)) {
		p.err = errno;
		return p;
	}
	pid = fork();
	if (pid < 0) {
		p.err = errno;
		return p;
	}
	if (!pid) {
		close(pipefd[0]);
		if (dup2(pipefd[1], 3) < 0)
			_exit(errno);
		syscall(SYS_execveat, dirfd, path, argv, envp, flags);
		_exit(errno);
	}
	close(pipefd[1]);
	if (wait_byte(pipefd[0], WAIT_MS)) {
		p.pid = pid;
	} else {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		p.err = WIFEXITED(status) ? WEXITSTATUS(status) : ETIMEDOUT;
	}
	close(pipefd[0]);
	return p;
}

static inline struct proc run(const char *path)
{
	return run_at(AT_FDCWD, path, 0);
}

/* What a program started by run() does: say so on fd 3, and sleep. */
static inline int sleeper(void)
{
	if (write(3, "R", 1) != 1)
		return 1;
	close(3);
	for (;;)
		pause();
}

/*
 * A child that runs @fn(@arg) as uid and gid @uid, reports its result
 * through a pipe, and then sleeps, keeping what @fn opened or mapped, until
 * stopped with child_stop().
 */
struct child {
	pid_t pid;
	int result;
};

static inline struct child child_as(uid_t uid, int (*fn)(void *), void *arg)
{
	struct child c = { 0, -1 };
	int pipefd[2], status;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC))
		return c;
	pid = fork();
	if (pid < 0)
		return c;
	if (!pid) {
		int r;

		close(pipefd[0]);
		if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
		    setresuid(uid, uid, uid))
			_exit(1);
		r = fn(arg);
		if (write(pipefd[1], &r, sizeof(r)) != sizeof(r))
			_exit(1);
		for (;;)
			pause();
	}
	close(pipefd[1]);
	{
		struct pollfd pfd = { .fd = pipefd[0], .events = POLLIN };

		if (poll(&pfd, 1, WAIT_MS) == 1 &&
		    read(pipefd[0], &c.result, sizeof(c.result)) ==
		    sizeof(c.result)) {
			c.pid = pid;
		} else {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
		}
	}
	close(pipefd[0]);
	return c;
}

static inline void child_stop(struct child *c)
{
	if (c->pid > 0) {
		kill(c->pid, SIGKILL);
		waitpid(c->pid, NULL, 0);
	}
	c->pid = 0;
}

#endif /* _DENYWRITE_SELFTEST_COMMON_H */
