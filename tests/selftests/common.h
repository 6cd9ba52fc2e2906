/* SPDX-License-Identifier: GPL-2.0 */
/*
 * denywrite selftests: helpers
 *
 * The tests run as root with denywrite active, and are skipped when it is
 * not.  Each sets the mode and the rules it needs through
 * /sys/kernel/security/denywrite/ and puts back what it found, and works in
 * a directory of its own that mkdtemp() makes.  The programs they run are
 * copies of denywrite_sleep, found next to the test program, which says on
 * the descriptor its argument names that it runs (run() gives it 3), and
 * sleeps until killed.
 */

#ifndef _DENYWRITE_SELFTEST_COMMON_H
#define _DENYWRITE_SELFTEST_COMMON_H

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <limits.h>
#include <linux/loop.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest.h"

#define SFS "/sys/kernel/security/denywrite/"
#define SLEEP_PROG "denywrite_sleep"
#define NOBODY 65534
/* How long a program may take to start, or a child to answer. */
#define WAIT_MS 10000

/*
 * Why denywrite is not active on this kernel (not in the list of active
 * LSMs, or no securityfs directory), or NULL if it is.
 */
static inline const char *denywrite_inactive(void)
{
	char buf[512], *tok, *save;
	bool listed = false;
	struct stat st;
	ssize_t n;
	int fd;

	fd = open("/sys/kernel/security/lsm", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return "denywrite is not active: no /sys/kernel/security/lsm";
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return "denywrite is not active: /sys/kernel/security/lsm unreadable";
	buf[n] = '\0';
	for (tok = strtok_r(buf, ",\n", &save); tok && !listed;
	     tok = strtok_r(NULL, ",\n", &save))
		listed = !strcmp(tok, "denywrite");
	if (!listed)
		return "denywrite is not active: not in /sys/kernel/security/lsm";
	if (stat(SFS, &st) || !S_ISDIR(st.st_mode))
		return "denywrite is not active: no " SFS;
	return NULL;
}

/*
 * printf() into one of eight static buffers, for the paths and rules a
 * test builds from its directory: the result lasts for seven more calls.
 */
static inline __printf(1, 2) const char *strf(const char *fmt, ...)
{
	static char bufs[8][PATH_MAX + 64];
	static unsigned int next;
	char *buf = bufs[next++ % 8];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(bufs[0]), fmt, ap);
	va_end(ap);
	return buf;
}

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

/* Copy the file @from to @to, mode @mode: 0 or an errno. */
static inline int copy_file(const char *from, const char *to, mode_t mode)
{
	char buf[65536];
	ssize_t n;
	int in, out, err = 0;

	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return errno;
	unlink(to);
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
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

/*
 * The path of denywrite_sleep, in the directory of this test program, in
 * @buf: 0 if it is there and may be run, else -1 (and errno).
 */
static inline int sleep_prog_path(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);
	char *slash;

	if (n < 0)
		return -1;
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	if (!slash ||
	    snprintf(slash + 1, size - (slash + 1 - buf), SLEEP_PROG) !=
	    sizeof(SLEEP_PROG) - 1) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return access(buf, X_OK);
}

/*
 * Make a new directory for a test, under $TMPDIR or /tmp, in @buf: 0, or
 * -1 (and errno).  Mode 0755, not mkdtemp()'s 0700: the tests that act as
 * another user reach the files in it.
 */
static inline int make_test_dir(char *buf, size_t size)
{
	const char *tmp = getenv("TMPDIR");

	if (!tmp || !*tmp)
		tmp = "/tmp";
	if ((size_t)snprintf(buf, size, "%s/dwself.XXXXXX", tmp) >= size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (!mkdtemp(buf))
		return -1;
	return chmod(buf, 0755);
}

static int remove_one(const char *path, const struct stat *st, int type,
		      struct FTW *ftw)
{
	remove(path);
	return 0;
}

/*
 * Remove the tree @dir, without crossing into a filesystem mounted in it
 * (what is mounted there must have been unmounted first).
 */
static inline int remove_tree(const char *dir)
{
	return nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

/*
 * Bind the file @img to a free loop device, with the LO_FLAGS_* @flags:
 * the device's descriptor (its node in @dev), or -1.
 */
static inline int loop_attach(const char *img, unsigned int flags, char *dev,
			      size_t size)
{
	struct loop_config lc = { .info.lo_flags = flags };
	int ctl, n, loop = -1;

	lc.fd = open(img, (flags & LO_FLAGS_READ_ONLY ? O_RDONLY : O_RDWR) |
			  O_CLOEXEC);
	if (lc.fd < 0)
		return -1;
	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	n = ctl < 0 ? -1 : ioctl(ctl, LOOP_CTL_GET_FREE);
	if (ctl >= 0)
		close(ctl);
	if (n >= 0) {
		snprintf(dev, size, "/dev/loop%d", n);
		loop = open(dev, O_RDWR | O_CLOEXEC);
	}
	if (loop >= 0 && ioctl(loop, LOOP_CONFIGURE, &lc)) {
		close(loop);
		loop = -1;
	}
	close(lc.fd);
	return loop;
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
 * Run @path (a copy of denywrite_sleep) with execveat(@dirfd, @path, @flags),
 * or execve() when @dirfd is AT_FDCWD and @flags 0, and wait until it says
 * it runs.  The exec's errno comes back in the child's exit status.
 */
static inline struct proc run_at(int dirfd, const char *path, int flags)
{
	struct proc p = { 0, 0 };
	static char *const argv[] = { SLEEP_PROG, "3", NULL };
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
