/* util.h - process, file and time helpers for dwtest.  Every wait has a
 * timeout; functions return 0 on success, or -1 with errno set. */
#ifndef DWTEST_UTIL_H
#define DWTEST_UTIL_H

#include <stddef.h>
#include <sys/types.h>

#define WAIT_MS 5000 /* default timeout for any single wait */

long long now_us(void);
void sleep_us(long us);

/* "Text file busy (ETXTBSY)"; "success" for 0.  Returns a static buffer. */
const char *errtxt(int err);
/* "ETXTBSY"; "ok" for 0. */
const char *errname(int err);

/* Read up to len bytes, waiting at most timeout_ms for the first byte.
 * Returns bytes read (0 = EOF) or -1 (errno ETIMEDOUT on timeout). */
ssize_t read_timeout(int fd, void *buf, size_t len, int timeout_ms);
/* Read until EOF, len-1 bytes or timeout; always NUL-terminates. */
size_t read_all_timeout(int fd, char *buf, size_t len, int timeout_ms);

/* Files. */
int copy_fresh(const char *src, const char *dst, mode_t mode); /* new inode */
int make_blob(const char *path, size_t size);                   /* new inode */
int write_file(const char *path, const char *data, mode_t mode); /* new inode */
int read_file(const char *path, char *buf, size_t len);          /* NUL-terminated */
int mkdir_p(const char *path, mode_t mode);
int rm_rf(const char *path);
int file_contains(const char *path, const char *needle); /* 1, 0, or -1 */
int probe_open(const char *path, int flags); /* open+close: 0 or errno */
/* A line-safe copy of s (newlines and tabs become spaces, trimmed). */
void one_line(char *s);

/* Processes.  path is a path, or a name looked up in PATH.  The child's
 * stdout goes to stderr unless SPAWN_CAPTURE_OUT gives a pipe (p->out);
 * SPAWN_MERGE_ERR sends stderr there too (and stdin from /dev/null).  If
 * gate_fd >= 0 the child blocks reading one byte (or EOF) from it right
 * before execve.
 * The child gets DWTEST_READY_FD (see ready.h); a failed execve is reported
 * on the same pipe. */
#define SPAWN_CAPTURE_OUT 1
#define SPAWN_MERGE_ERR 2
struct proc {
	pid_t pid;
	int ready; /* read end of the readiness pipe, or -1 */
	int out;   /* read end of the stdout pipe, or -1 */
};
int proc_spawn(struct proc *p, const char *path, char *const argv[], int flags,
	       int gate_fd);
/* Wait until the child signals readiness, /proc/PID/exe reads `exe` and (if
 * maps_needle) /proc/PID/maps contains maps_needle.  On failure returns -1
 * and writes the reason to why; *exec_err is set to the execve errno when
 * the execve itself failed (else 0). */
int proc_wait_ready(struct proc *p, const char *exe, const char *maps_needle,
		    int timeout_ms, int *exec_err, char *why, size_t whylen);
int wait_exe(pid_t pid, const char *exe, const char *maps_needle,
	     int timeout_ms, char *why, size_t whylen);
void proc_kill(struct proc *p); /* SIGKILL, reap, close pipes; idempotent */
/* proc_spawn(path) + proc_wait_ready(exe, maps_needle, WAIT_MS); on failure
 * everything is killed and reaped, -1 returned, *exec_err and why set. */
int spawn_ready(struct proc *p, const char *path, const char *exe,
		const char *maps_needle, int *exec_err, char *why, size_t whylen);
/* copy_fresh(src, path, 0755) + spawn_ready(path, path, NULL). */
int start_copy(struct proc *p, const char *src, const char *path, char *why,
	       size_t whylen);
int reap_pid(pid_t pid, int timeout_ms, int *status);
/* Reap every child (we are a subreaper), waiting at most timeout_ms. */
void reap_all(int timeout_ms);

/* Run argv[0] (a path, or a name looked up in PATH) to completion: stdout+stderr go to out (one line,
 * NUL-terminated), *status gets the wait status.  -1 with errno if it could
 * not be executed (errno from execve) or timed out (ETIMEDOUT, then killed). */
int run_cmd(char *const argv[], int timeout_ms, char *out, size_t outlen,
	    int *status);

/* A forked child (no exec) running fn(cmd_fd, res_fd, arg): the parent
 * sends bytes on cmd and reads ints from res.  All other fds are closed in
 * the child before fn runs.  fn must not return (use _exit). */
struct helper {
	pid_t pid;
	int cmd; /* write end, parent side */
	int res; /* read end, parent side */
};
typedef void (*helper_fn)(int cmd_fd, int res_fd, void *arg);
int helper_start(struct helper *h, helper_fn fn, void *arg);
int helper_send(struct helper *h, char c);
/* Read n ints from the helper within timeout_ms (0 or -1 with errno). */
int helper_recv(struct helper *h, int *vals, int n, int timeout_ms);
int send_ints(int fd, const int *vals, int n); /* child side */
void helper_stop(struct helper *h); /* close cmd, SIGKILL, reap; idempotent */

#endif
