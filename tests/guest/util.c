/* util.c - process, file and time helpers for dwtest (see util.h). */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int remaining_ms(long long deadline)
{
	long long left = deadline - now_us();

	return left <= 0 ? 0 : (int)((left + 999) / 1000);
}

const char *errname(int err)
{
	static char buf[4][24];
	static int slot;
	const char *n;

	if (err == 0)
		return "ok";
	n = strerrorname_np(err);
	if (n)
		return n;
	slot = (slot + 1) % 4;
	snprintf(buf[slot], sizeof(buf[slot]), "E%d", err);
	return buf[slot];
}

const char *errtxt(int err)
{
	static char buf[4][128];
	static int slot;

	if (err == 0)
		return "success";
	slot = (slot + 1) % 4;
	snprintf(buf[slot], sizeof(buf[slot]), "%s (%s)", strerror(err),
		 errname(err));
	return buf[slot];
}

ssize_t read_timeout(int fd, void *buf, size_t len, int timeout_ms)
{
	long long deadline = now_us() + (long long)timeout_ms * 1000;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	for (;;) {
		int r = poll(&pfd, 1, remaining_ms(deadline));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		ssize_t n = read(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		return n;
	}
}

size_t read_all_timeout(int fd, char *buf, size_t len, int timeout_ms)
{
	long long deadline = now_us() + (long long)timeout_ms * 1000;
	size_t got = 0;
	char sink[512];

	for (;;) {
		int left = remaining_ms(deadline);
		char *dst = got + 1 < len ? buf + got : sink;
		size_t room = got + 1 < len ? len - 1 - got : sizeof(sink);
		ssize_t n = read_timeout(fd, dst, room, left);

		if (n <= 0)
			break;
		if (dst != sink)
			got += (size_t)n;
		if (left == 0)
			break;
	}
	if (len)
		buf[got] = '\0';
	return got;
}

void one_line(char *s)
{
	size_t n;

	for (char *p = s; *p; p++)
		if (*p == '\n' || *p == '\r' || *p == '\t')
			*p = ' ';
	n = strlen(s);
	while (n && s[n - 1] == ' ')
		s[--n] = '\0';
}

/* Create path as a brand-new inode (unlink first) and return the fd. */
static int create_fresh(const char *path, mode_t mode)
{
	int fd;

	if (unlink(path) && errno != ENOENT)
		return -1;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (fd >= 0 && fchmod(fd, mode)) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* Close fd; keep the first error. */
static int finish_fd(int fd, int err)
{
	if (close(fd) && !err)
		err = errno;
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

int copy_fresh(const char *src, const char *dst, mode_t mode)
{
	int in, out, err = 0;
	struct stat st;

	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -1;
	if (fstat(in, &st)) {
		err = errno;
		close(in);
		errno = err;
		return -1;
	}
	out = create_fresh(dst, mode);
	if (out < 0) {
		err = errno;
		close(in);
		errno = err;
		return -1;
	}
	for (off_t left = st.st_size; left > 0;) {
		ssize_t n = sendfile(out, in, NULL, (size_t)left);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? errno : EIO;
			break;
		}
		left -= n;
	}
	close(in);
	return finish_fd(out, err);
}

static int write_fd_all(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t n = write(fd, data, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? errno : EIO;
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

int write_file(const char *path, const char *data, mode_t mode)
{
	int fd = create_fresh(path, mode);

	if (fd < 0)
		return -1;
	return finish_fd(fd, write_fd_all(fd, data, strlen(data)));
}

int make_blob(const char *path, size_t size)
{
	char chunk[1024];
	int fd, err = 0;

	for (size_t i = 0; i < sizeof(chunk); i++)
		chunk[i] = (char)(0xc3 ^ (i & 0xff)); /* arbitrary, never run */
	fd = create_fresh(path, 0644);
	if (fd < 0)
		return -1;
	for (size_t done = 0; done < size && !err; done += sizeof(chunk)) {
		size_t n = size - done < sizeof(chunk) ? size - done : sizeof(chunk);

		err = write_fd_all(fd, chunk, n);
	}
	return finish_fd(fd, err);
}

int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t got = 0;
	int err = 0;

	if (fd < 0)
		return -1;
	while (got + 1 < len) {
		ssize_t n = read(fd, buf + got, len - 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err = errno;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	return finish_fd(fd, err);
}

int mkdir_p(const char *path, mode_t mode)
{
	char tmp[PATH_MAX];

	if (snprintf(tmp, sizeof(tmp), "%s", path) >= (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (char *p = tmp + 1;; p++) {
		if (*p == '/' || *p == '\0') {
			char c = *p;

			*p = '\0';
			if (mkdir(tmp, mode) && errno != EEXIST)
				return -1;
			*p = c;
			if (c == '\0')
				return 0;
		}
	}
}

static int rm_one(const char *path, const struct stat *sb, int type,
		  struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	if (type == FTW_DP)
		return rmdir(path) ? -1 : 0;
	return unlink(path) ? -1 : 0;
}

int rm_rf(const char *path)
{
	if (nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS) && errno != ENOENT)
		return -1;
	return 0;
}

int file_contains(const char *path, const char *needle)
{
	static char buf[1 << 16];

	if (read_file(path, buf, sizeof(buf)))
		return -1;
	return strstr(buf, needle) != NULL;
}

int probe_open(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* --- processes --------------------------------------------------------- */

static void close_pair(int fds[2])
{
	for (int i = 0; i < 2; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* Create pipe a (and b unless NULL), flush stdio and fork.  On failure the
 * pipes are closed and -1 returned with errno set. */
static pid_t pipes_and_fork(int a[2], int b[2])
{
	pid_t pid;

	if (pipe2(a, O_CLOEXEC))
		return -1;
	if (b && pipe2(b, O_CLOEXEC)) {
		close_pair(a);
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close_pair(a);
		if (b)
			close_pair(b);
		errno = e;
	}
	return pid;
}

int proc_spawn(struct proc *p, const char *path, char *const argv[], int flags,
	       int gate_fd)
{
	int rp[2], op[2] = { -1, -1 };
	pid_t pid;

	p->pid = -1;
	p->ready = p->out = -1;
	pid = pipes_and_fork(rp, (flags & SPAWN_CAPTURE_OUT) ? op : NULL);
	if (pid < 0)
		return -1;
	if (pid == 0) {
		char env[16], msg[1 + sizeof(int)];
		int e;

		dup2(op[1] >= 0 ? op[1] : STDERR_FILENO, STDOUT_FILENO);
		if (op[1] >= 0 && (flags & SPAWN_MERGE_ERR)) {
			int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);

			dup2(op[1], STDERR_FILENO);
			if (nul >= 0)
				dup2(nul, STDIN_FILENO);
		}
		signal(SIGPIPE, SIG_DFL); /* the driver ignores it */
		fcntl(rp[1], F_SETFD, 0);
		snprintf(env, sizeof(env), "%d", rp[1]);
		setenv("DWTEST_READY_FD", env, 1);
		if (gate_fd >= 0) {
			char c;

			while (read(gate_fd, &c, 1) < 0 && errno == EINTR)
				;
		}
		if (strchr(path, '/'))
			execv(path, argv);
		else
			execvp(path, argv);
		e = errno;
		msg[0] = 'E';
		memcpy(msg + 1, &e, sizeof(e));
		if (write(rp[1], msg, sizeof(msg)) < 0) {
			/* parent gone */
		}
		_exit(127);
	}
	close(rp[1]);
	if (op[1] >= 0)
		close(op[1]);
	p->pid = pid;
	p->ready = rp[0];
	p->out = op[0];
	return 0;
}

int wait_exe(pid_t pid, const char *exe, const char *maps_needle,
	     int timeout_ms, char *why, size_t whylen)
{
	long long deadline = now_us() + (long long)timeout_ms * 1000;
	char link[64], maps[64], got[PATH_MAX];
	int exe_ok = 0;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	got[0] = '\0';
	for (long us = 200;; us = us < 10000 ? us * 2 : us) {
		if (!exe_ok) {
			ssize_t n = readlink(link, got, sizeof(got) - 1);

			got[n > 0 ? n : 0] = '\0';
			exe_ok = n > 0 && strcmp(got, exe) == 0;
		}
		if (exe_ok && (!maps_needle || file_contains(maps, maps_needle) == 1))
			return 0;
		if (now_us() >= deadline)
			break;
		sleep_us(us);
	}
	if (!exe_ok)
		snprintf(why, whylen, "%s reads '%s', not '%s' after %d ms", link,
			 got, exe, timeout_ms);
	else
		snprintf(why, whylen, "%s has no '%s' after %d ms", maps,
			 maps_needle, timeout_ms);
	errno = ETIMEDOUT;
	return -1;
}

int proc_wait_ready(struct proc *p, const char *exe, const char *maps_needle,
		    int timeout_ms, int *exec_err, char *why, size_t whylen)
{
	long long deadline = now_us() + (long long)timeout_ms * 1000;
	char c;
	ssize_t n;

	*exec_err = 0;
	n = read_timeout(p->ready, &c, 1, timeout_ms);
	if (n == 1 && c == 'E') {
		int e = EIO;

		if (read_timeout(p->ready, &e, sizeof(e), 1000) != sizeof(e))
			e = EIO;
		*exec_err = e;
		snprintf(why, whylen, "execve %s: %s", exe, errtxt(e));
		reap_pid(p->pid, WAIT_MS, NULL);
		p->pid = -1;
		errno = e;
		return -1;
	}
	if (n != 1 || c != 'R') {
		int st = 0;

		if (n == 0 && reap_pid(p->pid, 1000, &st) == 0) {
			p->pid = -1;
			snprintf(why, whylen, "%s exited (wait status 0x%x) before ready",
				 exe, st);
		} else {
			snprintf(why, whylen, "%s: no readiness signal within %d ms",
				 exe, timeout_ms);
		}
		errno = ETIMEDOUT;
		return -1;
	}
	return wait_exe(p->pid, exe, maps_needle, remaining_ms(deadline), why,
			whylen);
}

int spawn_ready(struct proc *p, const char *path, const char *exe,
		const char *maps_needle, int *exec_err, char *why, size_t whylen)
{
	char *argv[] = { (char *)path, NULL };

	*exec_err = 0;
	if (proc_spawn(p, path, argv, 0, -1)) {
		snprintf(why, whylen, "spawn %s: %s", path, errtxt(errno));
		return -1;
	}
	if (proc_wait_ready(p, exe, maps_needle, WAIT_MS, exec_err, why, whylen)) {
		proc_kill(p);
		return -1;
	}
	return 0;
}

int start_copy(struct proc *p, const char *src, const char *path, char *why,
	       size_t whylen)
{
	int exec_err;

	p->pid = p->ready = p->out = -1;
	if (copy_fresh(src, path, 0755)) {
		snprintf(why, whylen, "copy %s to %s: %s", src, path,
			 errtxt(errno));
		return -1;
	}
	return spawn_ready(p, path, path, NULL, &exec_err, why, whylen);
}

int reap_pid(pid_t pid, int timeout_ms, int *status)
{
	long long deadline = now_us() + (long long)timeout_ms * 1000;
	int st;

	for (long us = 100;; us = us < 20000 ? us * 2 : us) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid) {
			if (status)
				*status = st;
			return 0;
		}
		if (r < 0 && errno != EINTR)
			return -1;
		if (now_us() >= deadline) {
			errno = ETIMEDOUT;
			return -1;
		}
		sleep_us(us);
	}
}

void reap_all(int timeout_ms)
{
	long long deadline = now_us() + (long long)timeout_ms * 1000;

	for (;;) {
		pid_t r = waitpid(-1, NULL, WNOHANG);

		if (r > 0)
			continue;
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || now_us() >= deadline)
			return;
		sleep_us(1000);
	}
}

/* SIGKILL and reap *pid (if > 0), then set it to -1. */
static void kill_reap(pid_t *pid)
{
	if (*pid <= 0)
		return;
	kill(*pid, SIGKILL);
	if (reap_pid(*pid, WAIT_MS, NULL))
		fprintf(stderr, "dwtest: could not reap pid %d: %s\n", (int)*pid,
			errtxt(errno));
	*pid = -1;
}

void proc_kill(struct proc *p)
{
	kill_reap(&p->pid);
	if (p->ready >= 0)
		close(p->ready);
	if (p->out >= 0)
		close(p->out);
	p->ready = p->out = -1;
}

int run_cmd(char *const argv[], int timeout_ms, char *out, size_t outlen,
	    int *status)
{
	long long deadline = now_us() + (long long)timeout_ms * 1000;
	struct proc p;
	int e = 0;
	char msg[1 + sizeof(int)];

	out[0] = '\0';
	if (proc_spawn(&p, argv[0], argv, SPAWN_CAPTURE_OUT | SPAWN_MERGE_ERR, -1))
		return -1;
	read_all_timeout(p.out, out, outlen, timeout_ms);
	one_line(out);
	if (read_timeout(p.ready, msg, sizeof(msg), remaining_ms(deadline)) ==
	    (ssize_t)sizeof(msg) && msg[0] == 'E') {
		memcpy(&e, msg + 1, sizeof(e));
	} else if (reap_pid(p.pid, remaining_ms(deadline), status) == 0) {
		p.pid = -1;
	} else {
		e = ETIMEDOUT;
	}
	proc_kill(&p);
	if (e) {
		errno = e;
		return -1;
	}
	return 0;
}

/* --- forked helpers ---------------------------------------------------- */

static void close_other_fds(int a, int b)
{
	unsigned int lo = 3;
	int keep[2] = { a < b ? a : b, a < b ? b : a };

	for (int i = 0; i < 2; i++) {
		if (keep[i] > (int)lo)
			close_range(lo, (unsigned int)keep[i] - 1, 0);
		lo = (unsigned int)keep[i] + 1;
	}
	close_range(lo, ~0U, 0);
}

int helper_start(struct helper *h, helper_fn fn, void *arg)
{
	int cp[2], rp[2];
	pid_t pid;

	h->pid = -1;
	h->cmd = h->res = -1;
	pid = pipes_and_fork(cp, rp);
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close_other_fds(cp[0], rp[1]);
		fn(cp[0], rp[1], arg);
		_exit(0);
	}
	close(cp[0]);
	close(rp[1]);
	h->pid = pid;
	h->cmd = cp[1];
	h->res = rp[0];
	return 0;
}

int helper_send(struct helper *h, char c)
{
	return write(h->cmd, &c, 1) == 1 ? 0 : -1;
}

int send_ints(int fd, const int *vals, int n)
{
	size_t len = sizeof(int) * (size_t)n;

	return write(fd, vals, len) == (ssize_t)len ? 0 : -1;
}

int helper_recv(struct helper *h, int *vals, int n, int timeout_ms)
{
	size_t len = sizeof(int) * (size_t)n;
	ssize_t got = read_timeout(h->res, vals, len, timeout_ms);

	if (got == (ssize_t)len)
		return 0;
	if (got >= 0)
		errno = EPIPE; /* helper died (or short write) */
	return -1;
}

void helper_stop(struct helper *h)
{
	if (h->cmd >= 0)
		close(h->cmd);
	if (h->res >= 0)
		close(h->res);
	h->cmd = h->res = -1;
	kill_reap(&h->pid);
}
