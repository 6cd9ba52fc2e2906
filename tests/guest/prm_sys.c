/* prm_sys.c - the case context of `promises` and its system helpers (see
 * promises.h): what a case holds and how it is undone, the programs it
 * starts, forked children with a name, the PR_SET_MM_MAP stub, and audit
 * records from /dev/kmsg. */
#include "promises.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* --- the context ------------------------------------------------------- */

void ctx_init(struct ctx *c)
{
	memset(c, 0, sizeof(*c));
	for (int i = 0; i < CTX_PROCS; i++)
		c->procs[i].pid = c->procs[i].ready = c->procs[i].out = -1;
	for (int i = 0; i < CTX_FDS; i++)
		c->fds[i] = -1;
}

int ctx_fd(struct ctx *c, int fd)
{
	if (fd >= 0 && c->nfds < CTX_FDS)
		c->fds[c->nfds++] = fd;
	else if (fd >= 0)
		fprintf(stderr, "promises: more than %d fds in a case\n", CTX_FDS);
	return fd;
}

void ctx_close(struct ctx *c, int fd)
{
	for (int i = 0; i < c->nfds; i++)
		if (c->fds[i] == fd) {
			close(fd);
			c->fds[i] = -1;
		}
}

static void add_name(char (*list)[256], int *n, const char *s)
{
	if (*n < CTX_UNDO)
		snprintf(list[(*n)++], 256, "%s", s);
}

void ctx_mount(struct ctx *c, const char *dir)
{
	add_name(c->mounts, &c->nmounts, dir);
}

void ctx_unlink(struct ctx *c, const char *path)
{
	add_name(c->unlinks, &c->nunlinks, path);
}

void ctx_binfmt(struct ctx *c, const char *name)
{
	if (c->nbinfmt < CTX_UNDO)
		snprintf(c->binfmt[c->nbinfmt++], sizeof(c->binfmt[0]), "%s",
			 name);
}

struct mapping *ctx_map(struct ctx *c, const char *path, int prot,
			int *fd_out)
{
	bool shared = prot & PROT_WRITE;
	int fd = open(path, (shared ? O_RDWR : O_RDONLY) | O_CLOEXEC), e;
	struct stat st;
	void *addr;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || c->nmaps == CTX_MAPS) {
		e = c->nmaps == CTX_MAPS ? ENOSPC : errno;
		close(fd);
		errno = e;
		return NULL;
	}
	addr = mmap(NULL, (size_t)st.st_size, prot,
		    shared ? MAP_SHARED : MAP_PRIVATE, fd, 0);
	e = errno;
	if (fd_out && addr != MAP_FAILED)
		*fd_out = ctx_fd(c, fd);
	else
		close(fd);
	if (addr == MAP_FAILED) {
		errno = e;
		return NULL;
	}
	c->maps[c->nmaps] = (struct mapping){ addr, (size_t)st.st_size };
	return &c->maps[c->nmaps++];
}

void ctx_unmap(struct ctx *c, struct mapping *m)
{
	(void)c;
	if (m->addr)
		munmap(m->addr, m->len);
	m->addr = NULL;
}

void ctx_stop(struct ctx *c, struct proc *p)
{
	(void)c;
	proc_kill(p);
}

void ctx_cleanup(struct ctx *c)
{
	char why[256], path[320];

	for (int i = 0; i < c->nprocs; i++)
		proc_kill(&c->procs[i]);
	for (int i = 0; i < c->nmaps; i++)
		ctx_unmap(c, &c->maps[i]);
	for (int i = 0; i < c->nfds; i++)
		if (c->fds[i] >= 0)
			close(c->fds[i]);
	for (int i = 0; i < c->nbinfmt; i++) {
		snprintf(path, sizeof(path), "/proc/sys/fs/binfmt_misc/%s",
			 c->binfmt[i]);
		file_puts(path, "-1");
	}
	/* No rule may pin a mount of the case. */
	if (set_rules("", why, sizeof(why)))
		fprintf(stderr, "promises: cleanup: %s\n", why);
	for (int i = c->nmounts - 1; i >= 0; i--)
		umount2(c->mounts[i], MNT_DETACH);
	for (int i = 0; i < c->nunlinks; i++)
		unlink(c->unlinks[i]);
	ctx_init(c);
}

/* --- programs ---------------------------------------------------------- */

static struct proc *new_proc(struct ctx *c, char *why, size_t whylen)
{
	if (c->nprocs == CTX_PROCS) {
		snprintf(why, whylen, "more than %d processes in a case",
			 CTX_PROCS);
		return NULL;
	}
	return &c->procs[c->nprocs++];
}

struct proc *ctx_start(struct ctx *c, char *const argv[], const char *exe,
		       int *exec_err, char *why, size_t whylen)
{
	struct proc *p = new_proc(c, why, whylen);

	*exec_err = 0;
	if (!p)
		return NULL;
	if (proc_spawn(p, argv[0], argv, 0, -1)) {
		snprintf(why, whylen, "spawn %s: %s", argv[0], errtxt(errno));
		return NULL;
	}
	if (proc_wait_ready(p, exe, NULL, WAIT_MS, exec_err, why, whylen)) {
		proc_kill(p);
		return NULL;
	}
	return p;
}

struct proc *ctx_run(struct ctx *c, const char *path, char *why,
		     size_t whylen)
{
	char *argv[] = { (char *)path, NULL };
	int exec_err;

	return ctx_start(c, argv, path, &exec_err, why, whylen);
}

int proc_next_ready(struct proc *p, char *why, size_t whylen)
{
	char r = 0;
	ssize_t n = read_timeout(p->ready, &r, 1, WAIT_MS);

	if (n == 1 && r == 'R')
		return 0;
	snprintf(why, whylen, "pid %d: no second readiness signal within %d ms (%s)",
		 (int)p->pid, WAIT_MS,
		 n < 0 ? errtxt(errno) : n == 0 ? "it exited" : "bad byte");
	return -1;
}

/* --- named children ---------------------------------------------------- */

/* Reap pid within WAIT_MS (else kill it): its exit code, or -1 with why. */
static int child_exit_code(pid_t pid, char *why, size_t whylen)
{
	int st;

	if (reap_pid(pid, WAIT_MS, &st)) {
		kill(pid, SIGKILL);
		reap_pid(pid, WAIT_MS, NULL);
		snprintf(why, whylen, "child %d did not exit within %d ms",
			 (int)pid, WAIT_MS);
		return -1;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) == 255) {
		snprintf(why, whylen, "child %d died (wait status 0x%x)",
			 (int)pid, st);
		return -1;
	}
	return WEXITSTATUS(st);
}

int child_run(const char *comm, child_fn fn, const void *arg, char *out,
	      size_t outlen, int *err, pid_t *pid, char *why, size_t whylen)
{
	int op[2], code;

	out[0] = '\0';
	if (pipe2(op, O_CLOEXEC)) {
		snprintf(why, whylen, "pipe: %s", errtxt(errno));
		return -1;
	}
	fflush(NULL);
	*pid = fork();
	if (*pid == 0) {
		char buf[1024] = "";
		int e;

		close(op[0]);
		prctl(PR_SET_NAME, comm);
		e = fn(arg, buf, sizeof(buf));
		if (write(op[1], buf, strlen(buf)) < 0) {
			/* the parent sees nothing */
		}
		_exit(e >= 0 && e < 255 ? e : 255);
	}
	close(op[1]);
	if (*pid < 0) {
		close(op[0]);
		snprintf(why, whylen, "fork: %s", errtxt(errno));
		return -1;
	}
	read_all_timeout(op[0], out, outlen, WAIT_MS);
	close(op[0]);
	code = child_exit_code(*pid, why, whylen);
	if (code < 0)
		return -1;
	*err = code;
	return 0;
}

/* --- PR_SET_MM_MAP ----------------------------------------------------- */

/*
 * prctl(PR_SET_MM_EXE_FILE or PR_SET_MM_MAP) refuses (EBUSY) while the old
 * executable is still mapped, so the child runs a stub from an anonymous
 * executable page: a list of system calls, each with its six arguments,
 * run in order with each result stored back in the list, then pause()
 * forever.  The list lives in a shared page, so the parent reads the
 * results there; its last call writes a byte to a pipe to say it is done.
 */
struct sc {
	long nr, a[6], ret;
};

extern const char sc_stub[], sc_stub_end[];
__asm__(".text\n"
	"sc_stub:\n"
	"	mov %rdi, %r12\n"		/* struct sc *list */
	"	mov %rsi, %r13\n"		/* long n */
	"1:	test %r13, %r13\n"
	"	jz 2f\n"
	"	mov 0(%r12), %rax\n"
	"	mov 8(%r12), %rdi\n"
	"	mov 16(%r12), %rsi\n"
	"	mov 24(%r12), %rdx\n"
	"	mov 32(%r12), %r10\n"
	"	mov 40(%r12), %r8\n"
	"	mov 48(%r12), %r9\n"
	"	syscall\n"
	"	mov %rax, 56(%r12)\n"
	"	add $64, %r12\n"
	"	dec %r13\n"
	"	jmp 1b\n"
	"2:	mov $34, %eax\n"		/* pause */
	"	syscall\n"
	"	jmp 2b\n"
	"sc_stub_end:\n");

#define MAX_CALLS 40

struct mm_job {
	struct sc calls[MAX_CALLS];
	struct prctl_mm_map map;
	char done;
};

/* The fields of /proc/self/stat that PR_SET_MM_MAP takes (proc(5)). */
static int own_layout(struct prctl_mm_map *m)
{
	static char buf[4096];
	unsigned long long f[53] = { 0 };
	char *p;
	int i;

	if (read_file("/proc/self/stat", buf, sizeof(buf)))
		return -1;
	p = strrchr(buf, ')');
	if (!p)
		return -1;
	/* Field 3 (state) follows ") "; numbers from field 4 on. */
	p += 4;
	for (i = 4; i <= 52 && *p; i++) {
		f[i] = strtoull(p, &p, 10);
		while (*p == ' ')
			p++;
	}
	if (i <= 51) {
		errno = EPROTO;
		return -1;
	}
	*m = (struct prctl_mm_map){
		.start_code = f[26], .end_code = f[27], .start_stack = f[28],
		.start_data = f[45], .end_data = f[46], .start_brk = f[47],
		.brk = (unsigned long)sbrk(0), .arg_start = f[48],
		.arg_end = f[49], .env_start = f[50], .env_end = f[51],
	};
	return 0;
}

/* munmap calls for every mapping of our own file; their number or -1. */
static int unmap_calls(struct sc *calls, int max)
{
	char exe[PATH_MAX], line[PATH_MAX + 256], path[PATH_MAX];
	unsigned long start, end;
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0;

	if (len < 0 || !f) {
		if (f)
			fclose(f);
		return -1;
	}
	exe[len] = '\0';
	while (fgets(line, sizeof(line), f) && n < max)
		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %4095s", &start, &end,
			   path) == 3 && !strcmp(path, exe))
			calls[n++] = (struct sc){ SYS_munmap, { (long)start,
						  (long)(end - start) }, 0 };
	fclose(f);
	return n;
}

struct proc *mm_map_child(struct ctx *c, int exe_fd, int *err, char *why,
			  size_t whylen)
{
	size_t code = (size_t)(sc_stub_end - sc_stub);
	struct proc *p = new_proc(c, why, whylen);
	struct mm_job *job;
	void *page;
	struct proc *ret = NULL;
	int n, pp[2];
	char b;

	if (!p)
		return NULL;
	job = mmap(NULL, sizeof(*job), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (job == MAP_FAILED) {
		snprintf(why, whylen, "shared page: %s", errtxt(errno));
		return NULL;
	}
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED || code > 4096) {
		snprintf(why, whylen, "stub page: %s", errtxt(errno));
		goto out_job;
	}
	memcpy(page, sc_stub, code);
	n = unmap_calls(job->calls, MAX_CALLS - 2);
	if (n <= 0 || own_layout(&job->map) || pipe2(pp, O_CLOEXEC)) {
		snprintf(why, whylen, "our own mappings, layout or a pipe: %s",
			 errtxt(errno));
		goto out_page;
	}
	job->map.exe_fd = (unsigned int)exe_fd;
	job->calls[n++] = (struct sc){ SYS_prctl, { PR_SET_MM, PR_SET_MM_MAP,
				       (long)&job->map, sizeof(job->map) }, 0 };
	job->done = 'D';
	job->calls[n++] = (struct sc){ SYS_write, { pp[1], (long)&job->done, 1 },
				       0 };
	fflush(NULL);
	p->pid = fork();
	if (p->pid == 0)
		((void (*)(struct sc *, long))page)(job->calls, n);
	close(pp[1]);
	p->ready = pp[0]; /* closed with the process */
	if (p->pid < 0 || read_timeout(pp[0], &b, 1, WAIT_MS) != 1) {
		snprintf(why, whylen, "the PR_SET_MM_MAP child %s",
			 p->pid < 0 ? "could not fork" :
			 "did not finish its calls within 5 s");
		goto out_page;
	}
	for (int i = 0; i < n - 2; i++)
		if (job->calls[i].ret) {
			snprintf(why, whylen, "munmap of our own mapping: %s",
				 errtxt((int)-job->calls[i].ret));
			goto out_page;
		}
	*err = (int)-job->calls[n - 2].ret;
	ret = p;
out_page:
	munmap(page, 4096);
out_job:
	munmap(job, sizeof(*job));
	return ret;
}

/* --- the kernel log ---------------------------------------------------- */

int klog_open(char *why, size_t whylen)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0 || lseek(fd, 0, SEEK_END) < 0) {
		snprintf(why, whylen, "open /dev/kmsg at its end: %s",
			 errtxt(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* The body of an AVC record of pid in one /dev/kmsg record, or NULL. */
static const char *avc_body(char *rec, pid_t pid)
{
	static const char head[] = "audit: type=1400 audit(";
	char key[32];
	char *text = strchr(rec, ';'), *body;

	if (!text)
		return NULL;
	text++;
	text[strcspn(text, "\n")] = '\0';
	if (strncmp(text, head, sizeof(head) - 1))
		return NULL;
	body = strstr(text, "): ");
	if (!body)
		return NULL;
	body += 3;
	snprintf(key, sizeof(key), " pid=%d ", (int)pid);
	return strstr(body, key) ? body : NULL;
}

/* The next record, waiting until deadline (us): its length, or -1 with
 * errno (ETIMEDOUT).  Records overwritten meanwhile are skipped. */
static ssize_t kmsg_next(int fd, char *rec, size_t len, long long deadline)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t n;

	while ((n = read(fd, rec, len - 1)) < 0) {
		long long left = (deadline - now_us()) / 1000;

		if (errno != EAGAIN && errno != EPIPE && errno != EINTR)
			return -1;
		if (errno == EAGAIN && left <= 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		if (errno == EAGAIN)
			poll(&pfd, 1, left > 100 ? 100 : (int)left);
	}
	rec[n] = '\0';
	return n;
}

int klog_record(int fd, pid_t pid, int timeout_ms, char *body, size_t len,
		char *why, size_t whylen)
{
	long long deadline = now_us() + (long long)timeout_ms * 1000;
	char rec[8192];
	const char *b;

	while (kmsg_next(fd, rec, sizeof(rec), deadline) >= 0) {
		b = avc_body(rec, pid);
		if (b) {
			snprintf(body, len, "%s", b);
			return 0;
		}
	}
	if (errno == ETIMEDOUT)
		snprintf(why, whylen,
			 "no AVC record of pid %d in /dev/kmsg within %d ms",
			 (int)pid, timeout_ms);
	else
		snprintf(why, whylen, "read /dev/kmsg: %s", errtxt(errno));
	return -1;
}
