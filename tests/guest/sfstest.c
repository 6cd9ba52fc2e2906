/* sfstest - tests the denywrite securityfs interface by direct write(2).
 *
 *   sfstest [--sfs DIR] [--only PREFIX[,PREFIX...]] [--seed N]
 *           [--fuzz-seconds S] [--fuzz-inputs N]
 *
 * Runs as root in the guest with denywrite active.  Every securityfs file
 * (mode, rules, add, del, query) is written with write(2), never through
 * denywritectl, and each check compares the errno and the policy (rules and
 * mode, byte for byte) before and after.  Every write happens in a forked
 * writer process that first takes on a context (uid 65534, no
 * CAP_MAC_ADMIN, a user namespace, a chroot...), so privileges never leak
 * from one check to the next.  Then come the audit records of policy
 * changes, concurrent writers, and a bounded, seeded fuzz loop
 * (sfsfuzz.c).  The policy and mode found at the start are restored at the
 * end, always (a check of its own).
 *
 * stdout: "PLAN sfs N", then exactly N lines "PASS name" / "FAIL name:
 * reason"; figures as "STAT sfs key value".  Diagnostics go to stderr.
 * Exit 0 iff nothing failed, 2 on a usage error.
 */
#include "sfs.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <linux/capability.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define JOB_TIMEOUT_MS 30000
#define KMSG_WAIT_MS 3000
#define NOBODY 65534

/* Notes appended to the reason of a check that tests new behaviour. */
#define NEW_OPENER " [new behaviour: opener's credentials, issue 7 s6]"
#define NEW_ABSOLUTE " [new behaviour: rules are named by absolute path, issue 18 s6]"
#define NEW_OBJECT " [new behaviour: del finds the rule by its object, issue 18 s6]"
#define NEW_AUDIT " [new behaviour: policy audit trail, issue 7 s6]"
#define NEW_LSM_FIELD " [new behaviour: lsm= field, issue 7 s6]"

/* ---- small helpers ------------------------------------------------------ */

static int say(char *why, size_t n, const char *what)
{
	snprintf(why, n, "%s: %s", what, errname(errno));
	return -1;
}

static int put(const char *path, const char *s, char *why, size_t n)
{
	int err = file_puts(path, s);

	if (!err)
		return 0;
	errno = err;
	return say(why, n, path);
}

/* "eacces" for EACCES. */
static const char *lower_errname(int err)
{
	static char buf[4][16];
	static int slot;
	const char *s = errname(err);
	size_t i;

	slot = (slot + 1) % 4;
	for (i = 0; s[i] && i + 1 < sizeof(buf[slot]); i++)
		buf[slot][i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
	buf[slot][i] = '\0';
	return buf[slot];
}

/* Wait up to ms for fd to become readable: 0, or -1 with errno. */
static int wait_readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r;

	do
		r = poll(&p, 1, ms);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		errno = ETIMEDOUT;
	return r > 0 ? 0 : -1;
}

/* How a child that did not report ended. */
static const char *child_end(pid_t pid, bool timed_out)
{
	static char buf[64];
	int st;

	if (timed_out)
		kill(pid, SIGKILL);
	if (waitpid(pid, &st, 0) != pid)
		return "could not be reaped";
	if (timed_out)
		return "timed out";
	if (WIFSIGNALED(st))
		snprintf(buf, sizeof(buf), "killed by signal %d", WTERMSIG(st));
	else
		snprintf(buf, sizeof(buf), "exited with %d without a report",
			 WEXITSTATUS(st));
	return buf;
}

/* ---- writer contexts ----------------------------------------------------- */

typedef int (*enter_fn)(char *why, size_t n);

static int become_nobody(char *why, size_t n)
{
	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
		return say(why, n, "drop to uid 65534");
	return 0;
}

/* Drop CAP_MAC_ADMIN from the bounding, ambient, effective, permitted and
 * inheritable sets (busybox has no capsh). */
static int drop_mac_admin(char *why, size_t n)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	const unsigned int bit = 1u << (CAP_MAC_ADMIN - 32);

	if (prctl(PR_CAPBSET_DROP, CAP_MAC_ADMIN, 0, 0, 0))
		return say(why, n, "PR_CAPBSET_DROP");
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0))
		return say(why, n, "PR_CAP_AMBIENT_CLEAR_ALL");
	if (syscall(SYS_capget, &h, d))
		return say(why, n, "capget");
	d[1].effective &= ~bit;
	d[1].permitted &= ~bit;
	d[1].inheritable &= ~bit;
	if (syscall(SYS_capset, &h, d))
		return say(why, n, "capset");
	if (syscall(SYS_capget, &h, d) || ((d[1].effective | d[1].permitted) & bit) ||
	    prctl(PR_CAPBSET_READ, CAP_MAC_ADMIN, 0, 0, 0) != 0) {
		snprintf(why, n, "CAP_MAC_ADMIN still held after dropping it");
		return -1;
	}
	return 0;
}

/* A new user namespace in which we are root (uid and gid 0 mapped to 0):
 * every capability there, none in the initial namespace. */
static int enter_userns(char *why, size_t n)
{
	if (unshare(CLONE_NEWUSER))
		return say(why, n, "unshare(CLONE_NEWUSER)");
	if (put("/proc/self/setgroups", "deny", why, n) ||
	    put("/proc/self/uid_map", "0 0 1", why, n) ||
	    put("/proc/self/gid_map", "0 0 1", why, n))
		return -1;
	if (getuid() != 0 || getgid() != 0) {
		snprintf(why, n, "not root in the new user namespace");
		return -1;
	}
	return 0;
}

static int enter_chroot(char *why, size_t n)
{
	if (chroot(TD "/root") || chdir("/"))
		return say(why, n, "chroot " TD "/root");
	return 0;
}

/* pivot_root into a fresh tmpfs in a new mount namespace.  The guest's /
 * is the initramfs (rootfs), which pivot_root refuses to move, so chroot
 * into an outer tmpfs first and pivot from there. */
static int enter_pivot_root(char *why, size_t n)
{
	if (unshare(CLONE_NEWNS))
		return say(why, n, "unshare(CLONE_NEWNS)");
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return say(why, n, "make / private");
	if (mount("sfsouter", TD "/pr", "tmpfs", 0, NULL))
		return say(why, n, "mount tmpfs on " TD "/pr");
	if (mkdir(TD "/pr/new", 0755))
		return say(why, n, "mkdir " TD "/pr/new");
	if (mount("sfsnew", TD "/pr/new", "tmpfs", 0, NULL))
		return say(why, n, "mount tmpfs on " TD "/pr/new");
	if (chroot(TD "/pr") || chdir("/new"))
		return say(why, n, "chroot " TD "/pr");
	if (syscall(SYS_pivot_root, ".", "."))
		return say(why, n, "pivot_root");
	if (umount2(".", MNT_DETACH) || chdir("/"))
		return say(why, n, "detach the old root");
	return 0;
}

enum ctx_id {
	C_ROOT,
	C_NOBODY,
	C_NOCAP,
	C_USERNS,
	C_NOBODY_AFTER_OPEN,
	C_OPENED_NOCAP,
	C_OPENED_USERNS,
	C_CHROOT,
	C_PIVOT,
};

/* A writer context: enter() runs before the open, opener() (if set) runs
 * in a helper process that opens the file and passes the fd over
 * SCM_RIGHTS to the writer, after() runs between open and write.  Rows
 * with matrix set are crossed with every file in the privilege matrix,
 * expecting open_err at open or write_err at write for privileged files. */
static const struct ctx {
	const char *name;
	enter_fn enter, opener, after;
	bool matrix;
	int open_err, write_err;
	const char *note;
} ctxs[] = {
	[C_ROOT] = { "as_root", .matrix = true },
	[C_NOBODY] = { "as_nobody", become_nobody, .matrix = true,
		       .open_err = EACCES },
	[C_NOCAP] = { "as_root_without_cap_mac_admin", drop_mac_admin,
		      .matrix = true, .write_err = EPERM },
	[C_USERNS] = { "as_root_in_user_namespace", enter_userns,
		       .matrix = true, .write_err = EPERM },
	[C_NOBODY_AFTER_OPEN] = { "as_nobody_on_fd_opened_by_root",
				  .after = become_nobody, .matrix = true,
				  .write_err = EPERM },
	[C_OPENED_NOCAP] = { "by_root_on_fd_opened_without_cap_mac_admin",
			     .opener = drop_mac_admin, .matrix = true,
			     .write_err = EPERM, .note = NEW_OPENER },
	[C_OPENED_USERNS] = { "by_root_on_fd_opened_in_user_namespace",
			      .opener = enter_userns, .matrix = true,
			      .write_err = EPERM, .note = NEW_OPENER },
	[C_CHROOT] = { "in_chroot", .after = enter_chroot },
	[C_PIVOT] = { "after_pivot_root", .after = enter_pivot_root },
};

/* ---- the writer process -------------------------------------------------- */

enum how { ONCE, PWRITE_AT_1, LSEEK_TO_1 };

struct job {
	const char *file;
	enum ctx_id ctx;
	enum how how;
	const char *pre; /* written first on the same fd, if set */
	size_t pre_len;
	const char *data;
	size_t len;
};

enum stage { ST_SETUP, ST_OPEN, ST_WRITTEN };

struct outcome {
	pid_t pid;         /* the writer */
	enum stage stage;  /* how far it got */
	int open_err;      /* ST_OPEN: errno of open */
	int pre_err;       /* errno of the first write, if any */
	int err;           /* errno of the checked write */
	long ret;          /* what the checked write returned */
	char why[240];     /* ST_SETUP: what went wrong */
};

struct helper_msg {
	int err; /* 0: fd attached; >0: errno of open; -1: setup failed */
	char why[200];
};

static int send_msg(int sock, const struct helper_msg *m, int fd)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct iovec iov = { (void *)m, sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (fd >= 0) {
		struct cmsghdr *c;

		mh.msg_control = u.buf;
		mh.msg_controllen = sizeof(u.buf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(fd));
	}
	return sendmsg(sock, &mh, 0) == (ssize_t)sizeof(*m) ? 0 : -1;
}

static int recv_msg(int sock, struct helper_msg *m)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct iovec iov = { m, sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = u.buf,
			     .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c;
	int fd = -1;

	if (recvmsg(sock, &mh, MSG_CMSG_CLOEXEC) != (ssize_t)sizeof(*m))
		return -1;
	c = CMSG_FIRSTHDR(&mh);
	if (c && c->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(c), sizeof(fd));
	return fd;
}

/* Open path for writing in a helper process that first runs enter, and
 * get the fd over SCM_RIGHTS.  Returns the fd, -1 with errno if the open
 * failed, -2 with why if anything else did. */
static int open_in_helper(enter_fn enter, const char *path, char *why,
			  size_t n)
{
	struct helper_msg m = { 0 };
	int sv[2], fd;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv)) {
		say(why, n, "socketpair");
		return -2;
	}
	pid = fork();
	if (pid < 0) {
		say(why, n, "fork");
		return -2;
	}
	if (pid == 0) {
		close(sv[0]);
		fd = -1;
		if (enter(m.why, sizeof(m.why)))
			m.err = -1;
		else if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
			m.err = errno;
		send_msg(sv[1], &m, fd);
		_exit(0);
	}
	close(sv[1]);
	if (wait_readable(sv[0], JOB_TIMEOUT_MS)) {
		snprintf(why, n, "opener process %s", child_end(pid, true));
		close(sv[0]);
		return -2;
	}
	fd = recv_msg(sv[0], &m);
	close(sv[0]);
	child_end(pid, false); /* it exits right after sending */
	if (fd >= 0)
		return fd;
	if (m.err > 0) {
		errno = m.err;
		return -1;
	}
	snprintf(why, n, "opener: %s", m.err ? m.why : "no fd received");
	return -2;
}

static int do_write(int fd, enum how how, const char *data, size_t len,
		    struct outcome *o)
{
	ssize_t r;

	if (how == LSEEK_TO_1 && lseek(fd, 1, SEEK_SET) != 1)
		return say(o->why, sizeof(o->why), "lseek to 1");
	r = how == PWRITE_AT_1 ? pwrite(fd, data, len, 1) : write(fd, data, len);
	o->ret = (long)r;
	return r < 0 ? errno : 0;
}

static _Noreturn void job_child(const struct job *j, int out)
{
	const struct ctx *c = &ctxs[j->ctx];
	const char *path = sfs_path(j->file);
	struct outcome o = { .pid = getpid(), .stage = ST_SETUP };
	int fd;

	if (c->enter && c->enter(o.why, sizeof(o.why)))
		goto report;
	fd = c->opener ? open_in_helper(c->opener, path, o.why, sizeof(o.why))
		       : open(path, O_WRONLY | O_CLOEXEC);
	if (fd == -2)
		goto report;
	o.stage = ST_OPEN;
	o.open_err = fd < 0 ? errno : 0;
	if (fd < 0)
		goto report;
	if (c->after && c->after(o.why, sizeof(o.why))) {
		o.stage = ST_SETUP;
		goto report;
	}
	if (j->pre) {
		ssize_t r = write(fd, j->pre, j->pre_len);

		o.pre_err = r < 0 ? errno : (size_t)r == j->pre_len ? 0 : EIO;
	}
	o.err = do_write(fd, j->how, j->data, j->len, &o);
	if (o.err < 0)
		goto report; /* lseek failed: why is set */
	o.stage = ST_WRITTEN;
report:
	if (write(out, &o, sizeof(o)) != (ssize_t)sizeof(o))
		_exit(1);
	_exit(0);
}

/* Run one job in a writer process: 0, or -1 with why set. */
static int run_job(const struct job *j, struct outcome *o, char *why,
		   size_t n)
{
	int p[2];
	pid_t pid;
	ssize_t got;

	if (pipe2(p, O_CLOEXEC))
		return say(why, n, "pipe");
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return say(why, n, "fork");
	if (pid == 0) {
		close(p[0]);
		job_child(j, p[1]);
	}
	close(p[1]);
	got = read_timeout(p[0], o, sizeof(*o), JOB_TIMEOUT_MS);
	close(p[0]);
	if (got != (ssize_t)sizeof(*o)) {
		snprintf(why, n, "writer process %s", child_end(pid, got < 0));
		return -1;
	}
	child_end(pid, false);
	return 0;
}

/* ---- one check: a write, its errno, the policy after --------------------- */

struct expect {
	int open_err;          /* errno expected from open, 0: it opens */
	bool has_pre;
	int pre_err;           /* errno expected from the first write */
	int err;               /* errno expected from the checked write */
	const char *rules;     /* rules after; NULL: as before */
	size_t rules_len;
	const char *mode;      /* mode after; NULL: as before */
	const char *note;      /* appended to a FAIL reason */
};

/* Rules and mode as the checks expect them at their start. */
static int ensure_baseline(const char *mode, char *why, size_t n)
{
	struct policy p;
	char want_mode[16];
	int err;

	snprintf(want_mode, sizeof(want_mode), "%s\n", mode);
	if (policy_read(&p, why, n))
		return -1;
	err = text_is(&p.rules, BASE_RULES, strlen(BASE_RULES)) &&
	      text_is(&p.mode, want_mode, strlen(want_mode)) ? 0 :
	      policy_write(BASE_RULES, strlen(BASE_RULES), mode, why, n);
	policy_free(&p);
	return err ? -1 : 0;
}

/* Why the outcome is not the expected one, or NULL. */
static const char *judge_errnos(const struct outcome *o, const struct job *j,
				const struct expect *e)
{
	static char buf[300];

	if (o->stage == ST_SETUP)
		snprintf(buf, sizeof(buf), "setup: %s", o->why);
	else if (o->stage == ST_OPEN && o->open_err != e->open_err)
		snprintf(buf, sizeof(buf), "open gave %s, expected %s",
			 errname(o->open_err), errname(e->open_err));
	else if (o->stage == ST_OPEN)
		return NULL; /* refused at open as expected: nothing written */
	else if (e->open_err)
		snprintf(buf, sizeof(buf), "open succeeded, expected %s",
			 errname(e->open_err));
	else if (e->has_pre && o->pre_err != e->pre_err)
		snprintf(buf, sizeof(buf), "first write gave %s, expected %s",
			 errname(o->pre_err), errname(e->pre_err));
	else if (o->err != e->err)
		snprintf(buf, sizeof(buf), "write gave %s, expected %s",
			 errname(o->err), errname(e->err));
	else if (!o->err && o->ret != (long)j->len)
		snprintf(buf, sizeof(buf), "write returned %ld of %zu bytes",
			 o->ret, j->len);
	else
		return NULL;
	return buf;
}

/* Run job j after resetting to the baseline, print one line for name:
 * the errnos and the policy after must be as e says. */
static void check_write(const char *name, const struct job *j,
			const struct expect *e)
{
	const char *note = e->note ? e->note : "", *bad, *diff;
	struct policy before, after;
	struct outcome o;
	char why[300];

	if (ensure_baseline(BASE_MODE, why, sizeof(why)) ||
	    policy_read(&before, why, sizeof(why))) {
		fail(name, "baseline: %s%s", why, note);
		return;
	}
	if (run_job(j, &o, why, sizeof(why)) ||
	    policy_read(&after, why, sizeof(why))) {
		fail(name, "%s%s", why, note);
		policy_free(&before);
		return;
	}
	bad = judge_errnos(&o, j, e);
	diff = policy_diff(&after, e->rules ? e->rules : before.rules.p,
			   e->rules ? e->rules_len : before.rules.len,
			   e->mode ? e->mode : before.mode.p);
	if (bad || diff)
		fail(name, "%s%s%s%s", bad ? bad : "", bad && diff ? "; " : "",
		     diff ? diff : "", note);
	else
		pass(name);
	policy_free(&before);
	policy_free(&after);
}

/* ---- the privilege matrix: every context against every writable file ----- */

static const struct mfile {
	const char *name;
	bool privileged;  /* needs CAP_MAC_ADMIN; query does not */
	const char *data; /* a valid change from the baseline */
	const char *rules, *mode; /* after it, if accepted */
} mfiles[] = {
	{ "mode", true, "audit", NULL, "audit\n" },
	{ "rules", true, "exec /\n", "exec /\n", NULL },
	{ "add", true, "all " TD "/a", BASE_RULES "all " TD "/a\n", NULL },
	{ "del", true, TD "/lib", "exec /\n", NULL },
	{ "query", false, "/", NULL, NULL },
};

static void matrix_expect(const struct ctx *c, const struct mfile *f,
			  struct expect *e)
{
	*e = (struct expect){ .note = f->privileged ? c->note : NULL };
	if (f->privileged) {
		e->open_err = c->open_err;
		e->err = c->write_err;
	}
	if (!e->open_err && !e->err && f->rules) {
		e->rules = f->rules;
		e->rules_len = strlen(f->rules);
	}
	if (!e->open_err && !e->err)
		e->mode = f->mode;
}

static void matrix_name(char *buf, size_t n, const struct ctx *c,
			const struct mfile *f, const struct expect *e)
{
	const char *what = e->open_err ? lower_errname(e->open_err) :
			   e->err ? lower_errname(e->err) : "accepted";

	snprintf(buf, n, "%s_write_%s_%s%s_policy_%s", f->name, c->name, what,
		 e->open_err ? "_at_open" : "",
		 e->rules || e->mode ? "changed" : "unchanged");
}

/* One row of the privilege matrix: a context crossed with a file. */
struct mrow {
	const char *name; /* first, as in every table of checks */
	const struct ctx *c;
	const struct mfile *f;
};

static struct mrow mrows[ARRAY_SIZE(ctxs) * ARRAY_SIZE(mfiles)];

/* Fill mrows; returns the number of rows. */
static size_t matrix_build(void)
{
	char name[160];
	struct expect e;
	size_t n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(ctxs); i++)
		for (size_t k = 0; ctxs[i].matrix && k < ARRAY_SIZE(mfiles); k++) {
			struct mrow *m = &mrows[n++];

			m->c = &ctxs[i];
			m->f = &mfiles[k];
			matrix_expect(m->c, m->f, &e);
			matrix_name(name, sizeof(name), m->c, m->f, &e);
			m->name = strdup(name);
		}
	return n;
}

static void matrix_check(const void *row)
{
	const struct mrow *m = row;
	struct job j = { .file = m->f->name,
			 .ctx = (enum ctx_id)(m->c - ctxs),
			 .data = m->f->data, .len = strlen(m->f->data) };
	struct expect e;

	matrix_expect(m->c, m->f, &e);
	check_write(m->name, &j, &e);
}

/* ---- the case table: syntax, limits, offsets, lookups ------------------- */

/* A generated input: data to write and the rules expected if accepted. */
struct input {
	char *data;
	size_t len;
	char *rules; /* NULL: the rules must not change */
};

#define MANY_FMT TD "/many/%04d"
#define MANY 1025

/* "exec /\n", then a line of blanks (skipped), size bytes in all. */
static void gen_blank_padded(struct input *in, size_t size)
{
	in->data = malloc(size);
	memset(in->data, ' ', size);
	memcpy(in->data, "exec /\n", 7);
	in->data[size - 1] = '\n';
	in->len = size;
	in->rules = size <= 65536 ? strdup("exec /\n") : NULL;
}

static void gen_65536_bytes(struct input *in)
{
	gen_blank_padded(in, 65536);
}

static void gen_65537_bytes(struct input *in)
{
	gen_blank_padded(in, 65537);
}

static int many_made; /* directories TD/many/NNNN made so far */

/* Make the directories TD/many/0000 to count - 1, once: they cost about
 * as much as all other checks on a debug kernel, so only the checks that
 * need them do. */
static void many_make(int count)
{
	char path[64];

	if (!many_made && mkdir(TD "/many", 0755))
		fprintf(stderr, "sfstest: mkdir " TD "/many: %s\n", strerror(errno));
	for (; many_made < count; many_made++) {
		snprintf(path, sizeof(path), MANY_FMT, many_made);
		if (mkdir(path, 0755)) {
			fprintf(stderr, "sfstest: mkdir %s: %s\n", path,
				strerror(errno));
			break;
		}
	}
}

/* count rules, one per directory of TD/many, in canonical form. */
static void gen_rules(struct input *in, int count)
{
	size_t cap = (size_t)count * 40, o = 0;

	many_make(count);
	in->data = malloc(cap);
	for (int i = 0; i < count; i++)
		o += (size_t)snprintf(in->data + o, cap - o, "exec " MANY_FMT "\n", i);
	in->len = o;
	in->rules = count <= 1024 ? strndup(in->data, o) : NULL;
}

static void gen_1024_rules(struct input *in)
{
	gen_rules(in, 1024);
}

static void gen_1025_rules(struct input *in)
{
	gen_rules(in, MANY);
}

static void gen_long_path(struct input *in)
{
	size_t size = 5 + 4096 + 1;

	in->data = malloc(size);
	memcpy(in->data, "lib /", 5);
	memset(in->data + 5, 'a', 4096);
	in->data[size - 1] = '\n';
	in->len = size;
	in->rules = NULL;
}

#define DATA(s) .data = s, .len = sizeof(s) - 1
#define PRE(s, e) .pre = s, .pre_len = sizeof(s) - 1, .pre_err = e
#define RULES(s) .rules = s, .rules_len = sizeof(s) - 1

static const struct wcase {
	const char *name;
	const char *file;
	enum ctx_id ctx;
	enum how how;
	const char *pre;
	size_t pre_len;
	int pre_err;
	const char *data;
	size_t len;
	void (*gen)(struct input *in); /* instead of data and rules */
	int err;
	const char *rules; /* after; NULL: as before */
	size_t rules_len;
	const char *mode;  /* after; NULL: as before */
	const char *note;
} wcases[] = {
	/* mode */
	{ "mode_write_audit_accepted_mode_changed", "mode", DATA("audit"),
	  .mode = "audit\n" },
	{ "mode_write_with_trailing_newline_accepted_mode_changed", "mode",
	  DATA("off\n"), .mode = "off\n" },
	{ "mode_write_unknown_mode_einval_policy_unchanged", "mode",
	  DATA("permissive"), .err = EINVAL },
	{ "mode_write_uppercase_mode_einval_policy_unchanged", "mode",
	  DATA("AUDIT"), .err = EINVAL },
	{ "mode_write_empty_accepted_nothing_changed", "mode", DATA("") },
	{ "mode_write_two_trailing_newlines_einval_policy_unchanged", "mode",
	  DATA("audit\n\n"), .err = EINVAL },
	{ "mode_write_trailing_blank_einval_policy_unchanged", "mode",
	  DATA("audit "), .err = EINVAL },
	{ "mode_write_nul_inside_einval_policy_unchanged", "mode",
	  DATA("aud\0it"), .err = EINVAL },
	{ "mode_write_nul_after_mode_einval_policy_unchanged", "mode",
	  DATA("audit\0"), .err = EINVAL },
	{ "mode_write_17_bytes_einval_policy_unchanged", "mode",
	  DATA("enforce enforce e"), .err = EINVAL },
	{ "mode_pwrite_at_offset_1_einval_policy_unchanged", "mode",
	  .how = PWRITE_AT_1, DATA("audit"), .err = EINVAL },
	{ "mode_second_write_on_same_fd_einval_first_kept", "mode",
	  PRE("audit", 0), DATA("off"), .err = EINVAL, .mode = "audit\n" },

	/* rules */
	{ "rules_write_replaces_whole_set_accepted", "rules",
	  DATA("all " TD "/a\nexec /\n"), RULES("all " TD "/a\nexec /\n") },
	{ "rules_write_shows_canonical_paths_accepted", "rules",
	  DATA("exec //\nlib " TD "/link\nall " TD "/a/../b\n"),
	  RULES("exec /\nlib " TD "/a\nall " TD "/b\n") },
	{ "rules_write_skips_blank_lines_accepted", "rules",
	  DATA("\n \t\nall " TD "/a\n\n"), RULES("all " TD "/a\n") },
	{ "rules_write_newline_alone_clears_set_accepted", "rules", DATA("\n"),
	  RULES("") },
	{ "rules_write_ignore_writers_option_accepted", "rules",
	  DATA("exec,ignore-writers " TD "/a\nlib,ignore-writers " TD "/b\n"),
	  RULES("exec,ignore-writers " TD "/a\nlib,ignore-writers " TD "/b\n") },
	{ "rules_write_unknown_scope_einval_policy_unchanged", "rules",
	  DATA("exec /\nwrite " TD "/a\n"), .err = EINVAL },
	{ "rules_write_missing_path_einval_policy_unchanged", "rules",
	  DATA("exec /\nexec\n"), .err = EINVAL },
	{ "rules_write_empty_path_einval_policy_unchanged", "rules",
	  DATA("exec \n"), .err = EINVAL },
	{ "rules_write_relative_path_einval_policy_unchanged", "rules",
	  DATA("exec tmp\n"), .err = EINVAL },
	{ "rules_write_bad_option_einval_policy_unchanged", "rules",
	  DATA("exec,ignore " TD "/a\n"), .err = EINVAL },
	{ "rules_write_trailing_blank_einval_policy_unchanged", "rules",
	  DATA("exec / \n"), .err = EINVAL },
	{ "rules_write_control_character_einval_policy_unchanged", "rules",
	  DATA("lib " TD "/a\177\n"), .err = EINVAL },
	{ "rules_write_carriage_return_einval_policy_unchanged", "rules",
	  DATA("exec /\r\n"), .err = EINVAL },
	{ "rules_write_nul_inside_einval_policy_unchanged", "rules",
	  DATA("exec /\0\nlib " TD "/a\n"), .err = EINVAL },
	{ "rules_write_two_rules_for_one_object_einval_policy_unchanged",
	  "rules", DATA("exec /\nlib /\n"), .err = EINVAL },
	{ "rules_write_one_object_via_symlink_einval_policy_unchanged", "rules",
	  DATA("lib " TD "/a\nexec " TD "/link\n"), .err = EINVAL },
	{ "rules_write_missing_path_enoent_policy_unchanged", "rules",
	  DATA("exec /\nlib " TD "/missing\n"), .err = ENOENT },
	{ "rules_write_path_through_file_enotdir_policy_unchanged", "rules",
	  DATA("lib " TD "/file/x\n"), .err = ENOTDIR },
	{ "rules_write_symlink_loop_eloop_policy_unchanged", "rules",
	  DATA("lib " TD "/loop\n"), .err = ELOOP },
	{ "rules_write_path_of_4096_bytes_enametoolong_policy_unchanged",
	  "rules", .gen = gen_long_path, .err = ENAMETOOLONG },
	{ "rules_write_65537_bytes_e2big_policy_unchanged", "rules",
	  .gen = gen_65537_bytes, .err = E2BIG },
	{ "rules_write_65536_bytes_accepted", "rules", .gen = gen_65536_bytes },
	{ "rules_write_1025_rules_e2big_policy_unchanged", "rules",
	  .gen = gen_1025_rules, .err = E2BIG },
	{ "rules_write_1024_rules_accepted", "rules", .gen = gen_1024_rules },
	/* seq_open() clears FMODE_PWRITE: pwrite is ESPIPE before any check. */
	{ "rules_pwrite_at_offset_1_espipe_policy_unchanged", "rules",
	  .how = PWRITE_AT_1, DATA("exec /\n"), .err = ESPIPE },
	{ "rules_write_after_lseek_to_1_einval_policy_unchanged", "rules",
	  .how = LSEEK_TO_1, DATA("exec /\n"), .err = EINVAL },
	{ "rules_second_write_on_same_fd_einval_first_kept", "rules",
	  PRE("exec /\n", 0), DATA("all " TD "/a\n"), .err = EINVAL,
	  RULES("exec /\n") },
	{ "rules_write_split_in_two_writes_einval_policy_unchanged", "rules",
	  PRE("exec /\nli", EINVAL), DATA("b " TD "/lib\n"), .err = EINVAL },

	/* add */
	{ "add_rule_accepted_appended", "add", DATA("all " TD "/a"),
	  RULES(BASE_RULES "all " TD "/a\n") },
	{ "add_rule_with_trailing_newline_accepted_appended", "add",
	  DATA("exec,ignore-writers " TD "/b\n"),
	  RULES(BASE_RULES "exec,ignore-writers " TD "/b\n") },
	{ "add_missing_path_enoent_policy_unchanged", "add",
	  DATA("lib " TD "/missing"), .err = ENOENT },
	{ "add_path_through_file_enotdir_policy_unchanged", "add",
	  DATA("lib " TD "/file/x"), .err = ENOTDIR },
	{ "add_existing_rule_eexist_policy_unchanged", "add", DATA("exec /"),
	  .err = EEXIST },
	{ "add_same_object_other_scope_eexist_policy_unchanged", "add",
	  DATA("all " TD "/lib"), .err = EEXIST },
	{ "add_same_object_via_symlink_eexist_policy_unchanged", "add",
	  DATA("exec " TD "/liblink"), .err = EEXIST },
	{ "add_same_object_via_dotdot_eexist_policy_unchanged", "add",
	  DATA("exec /tmp/.."), .err = EEXIST },
	{ "add_slash_in_chroot_names_chroot_directory_accepted_appended", "add",
	  .ctx = C_CHROOT, DATA("exec /"),
	  RULES(BASE_RULES "exec " TD "/root\n"), .note = NEW_ABSOLUTE },
	/* The rule names TD/pr, the new root, and goes with its tmpfs when
	 * the writer and its mount namespace are gone. */
	{ "add_slash_after_pivot_root_names_new_root_accepted_gone_with_it", "add",
	  .ctx = C_PIVOT, DATA("exec /"), RULES(BASE_RULES),
	  .note = NEW_ABSOLUTE },
	{ "add_unknown_scope_einval_policy_unchanged", "add",
	  DATA("write " TD "/a"), .err = EINVAL },
	{ "add_missing_path_einval_policy_unchanged", "add", DATA("lib"),
	  .err = EINVAL },
	{ "add_relative_path_einval_policy_unchanged", "add", DATA("lib tmp"),
	  .err = EINVAL },
	{ "add_bad_option_einval_policy_unchanged", "add",
	  DATA("lib,ignore-writer " TD "/a"), .err = EINVAL },
	{ "add_trailing_blank_einval_policy_unchanged", "add",
	  DATA("lib " TD "/a "), .err = EINVAL },
	{ "add_control_character_einval_policy_unchanged", "add",
	  DATA("lib " TD "/a\001"), .err = EINVAL },
	{ "add_two_lines_einval_policy_unchanged", "add",
	  DATA("lib " TD "/a\nexec " TD "/b"), .err = EINVAL },
	{ "add_nul_inside_einval_policy_unchanged", "add",
	  DATA("lib " TD "/a\0"), .err = EINVAL },
	{ "add_pwrite_at_offset_1_einval_policy_unchanged", "add",
	  .how = PWRITE_AT_1, DATA("all " TD "/a"), .err = EINVAL },
	{ "add_second_write_on_same_fd_einval_first_kept", "add",
	  PRE("all " TD "/a", 0), DATA("lib " TD "/b"), .err = EINVAL,
	  RULES(BASE_RULES "all " TD "/a\n") },

	/* del */
	{ "del_rule_accepted_removed", "del", DATA(TD "/lib"),
	  RULES("exec /\n") },
	{ "del_with_trailing_newline_accepted_removed", "del", DATA("/\n"),
	  RULES("lib " TD "/lib\n") },
	{ "del_absent_rule_enoent_policy_unchanged", "del", DATA(TD "/a"),
	  .err = ENOENT },
	{ "del_other_path_to_ruled_object_accepted_removed", "del",
	  DATA(TD "/./lib"), RULES("exec /\n"), .note = NEW_OBJECT },
	{ "del_rule_line_instead_of_path_enoent_policy_unchanged", "del",
	  DATA("lib " TD "/lib"), .err = ENOENT },
	{ "del_write_empty_accepted_nothing_changed", "del", DATA("") },
	{ "del_nul_inside_einval_policy_unchanged", "del", DATA(TD "/lib\0"),
	  .err = EINVAL },
	{ "del_pwrite_at_offset_1_einval_policy_unchanged", "del",
	  .how = PWRITE_AT_1, DATA(TD "/lib"), .err = EINVAL },
	{ "del_second_write_on_same_fd_einval_first_kept", "del",
	  PRE(TD "/lib", 0), DATA("/"), .err = EINVAL, RULES("exec /\n") },

	/* query */
	{ "query_write_path_accepted_policy_unchanged", "query", DATA("/") },
	{ "query_write_missing_path_enoent_policy_unchanged", "query",
	  DATA(TD "/missing"), .err = ENOENT },
	{ "query_write_empty_path_enoent_policy_unchanged", "query", DATA(""),
	  .err = ENOENT },
	{ "query_write_nul_inside_einval_policy_unchanged", "query",
	  DATA("/\0"), .err = EINVAL },
	{ "query_pwrite_at_offset_1_einval_policy_unchanged", "query",
	  .how = PWRITE_AT_1, DATA("/"), .err = EINVAL },
};

static void wcase_check(const void *row)
{
	const struct wcase *c = row;
	struct input in = { (char *)c->data, c->len, (char *)c->rules };
	struct job j = { .file = c->file, .ctx = c->ctx, .how = c->how,
			 .pre = c->pre, .pre_len = c->pre_len };
	struct expect e = { .has_pre = c->pre, .pre_err = c->pre_err,
			    .err = c->err, .mode = c->mode, .note = c->note };

	if (c->gen)
		c->gen(&in);
	j.data = in.data;
	j.len = in.len;
	e.rules = in.rules;
	e.rules_len = c->gen && in.rules ? strlen(in.rules) : c->rules_len;
	check_write(c->name, &j, &e);
	if (c->gen) {
		free(in.data);
		free(in.rules);
	}
}

/* ---- the kernel log ------------------------------------------------------- */

#define PRINTK_RATELIMIT "/proc/sys/kernel/printk_ratelimit"
static char saved_ratelimit[32];

/* Audit records reach the kernel log through printk_ratelimit() when no
 * audit daemon runs: lift the limit while records are checked. */
static void ratelimit_off(void)
{
	struct text t;

	if (saved_ratelimit[0] || text_read(PRINTK_RATELIMIT, &t)) {
		if (!saved_ratelimit[0])
			fprintf(stderr, "sfstest: cannot read " PRINTK_RATELIMIT "\n");
		return;
	}
	snprintf(saved_ratelimit, sizeof(saved_ratelimit), "%s", t.p);
	text_free(&t);
	if (file_puts(PRINTK_RATELIMIT, "0"))
		fprintf(stderr, "sfstest: cannot lift the printk rate limit\n");
}

static void ratelimit_restore(void)
{
	if (saved_ratelimit[0] && file_puts(PRINTK_RATELIMIT, saved_ratelimit))
		fprintf(stderr, "sfstest: cannot restore the printk rate limit\n");
	saved_ratelimit[0] = '\0';
}

static int kmsg_mark(char *why, size_t n)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return say(why, n, "open /dev/kmsg");
	if (lseek(fd, 0, SEEK_END) < 0) {
		say(why, n, "seek /dev/kmsg");
		close(fd);
		return -1;
	}
	return fd;
}

/* The value of key= in an audit record body (quoted values whole), or
 * NULL. */
static const char *field(const char *body, const char *key)
{
	static char val[4][512];
	static int slot;
	size_t klen = strlen(key), n;

	for (const char *p = body; (p = strstr(p, key)); p++) {
		if ((p != body && p[-1] != ' ') || p[klen] != '=')
			continue;
		p += klen + 1;
		n = *p == '"' ? strcspn(p + 1, "\"") + 2 : strcspn(p, " \n");
		slot = (slot + 1) % 4;
		snprintf(val[slot], sizeof(val[slot]), "%.*s", (int)n, p);
		return val[slot];
	}
	return NULL;
}

/* Records "audit: type=TYPE audit(...): BODY" whose key field is val:
 * wait for the first one (up to KMSG_WAIT_MS), then a little more for
 * duplicates.  Returns how many, the first body in body. */
static int kmsg_find(int fd, int type, const char *key, const char *val,
		     char *body, size_t bodylen)
{
	long long deadline = now_ms() + KMSG_WAIT_MS;
	char rec[8192], prefix[40];
	int found = 0;

	snprintf(prefix, sizeof(prefix), "audit: type=%d audit(", type);
	while (now_ms() < deadline) {
		ssize_t n = read(fd, rec, sizeof(rec) - 1);
		char *msg, *b, *v;

		if (n < 0 && errno == EPIPE)
			continue; /* records overwritten: read on */
		if (n <= 0) {
			sleep_us(20000);
			continue;
		}
		rec[n] = '\0';
		msg = strchr(rec, ';');
		if (!msg || strncmp(++msg, prefix, strlen(prefix)))
			continue;
		msg[strcspn(msg, "\n")] = '\0';
		b = strstr(msg, "): ");
		v = b ? (char *)field(b + 3, key) : NULL;
		if (!v || strcmp(v, val))
			continue;
		if (!found++) {
			snprintf(body, bodylen, "%s", b + 3);
			deadline = now_ms() + 300;
		}
	}
	return found;
}

/* ---- audit records of policy changes -------------------------------------- */

static const struct acase {
	const char *name;
	const char *file;
	const char *mode0; /* the mode before, NULL: the baseline's */
	const char *data;
	int err;           /* of the write */
} acases[] = {
	{ "mode_change_enforce_to_audit_logs_1404_record_with_exact_fields",
	  "mode", NULL, "audit", 0 },
	{ "mode_change_audit_to_off_logs_1404_record_with_exact_fields", "mode",
	  "audit", "off\n", 0 },
	{ "rules_write_logs_1403_record_with_exact_fields", "rules", NULL,
	  "exec /\nlib " TD "/lib\nall " TD "/a\n", 0 },
	{ "rules_clear_logs_1403_record_with_exact_fields", "rules", NULL, "\n",
	  0 },
	{ "add_logs_1403_record_with_exact_fields", "add", NULL, "all " TD "/a",
	  0 },
	{ "del_logs_1403_record_with_exact_fields", "del", NULL, TD "/lib", 0 },
	{ "failed_rules_write_logs_1403_record_res_0_counts_unchanged", "rules",
	  NULL, "exec /\nlib " TD "/missing\n", ENOENT },
	{ "failed_add_logs_1403_record_res_0_counts_unchanged", "add", NULL,
	  "exec /", EEXIST },
	{ "failed_del_logs_1403_record_res_0_counts_unchanged", "del", NULL,
	  TD "/a", ENOENT },
};

struct kv {
	const char *key;
	char val[80];
};

static void kv_set(struct kv *kv, size_t *n, const char *key,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void kv_set(struct kv *kv, size_t *n, const char *key,
		   const char *fmt, ...)
{
	va_list ap;

	kv[*n].key = key;
	va_start(ap, fmt);
	vsnprintf(kv[*n].val, sizeof(kv[*n].val), fmt, ap);
	va_end(ap);
	++*n;
}

/* The first line of a /proc file ("" if unreadable). */
static void kv_from_file(struct kv *kv, size_t *n, const char *key,
			 const char *path)
{
	struct text t;

	if (text_read(path, &t))
		kv_set(kv, n, key, "(%s unreadable)", path);
	else
		kv_set(kv, n, key, "%.*s", (int)strcspn(t.p, "\n"), t.p);
	text_free(&t);
}

/* The fields a policy record must carry for this change. */
static size_t audit_fields(const struct acase *c, const struct outcome *o,
			   const struct policy *before,
			   const struct policy *after, struct kv *kv)
{
	size_t n = 0;

	kv_set(kv, &n, "pid", "%d", (int)o->pid);
	kv_set(kv, &n, "uid", "0");
	kv_from_file(kv, &n, "auid", "/proc/self/loginuid");
	kv_from_file(kv, &n, "ses", "/proc/self/sessionid");
	kv_set(kv, &n, "res", "%d", !c->err);
	if (!strcmp(c->file, "mode")) {
		kv_set(kv, &n, "mode", "%.*s", (int)strcspn(c->data, "\n"),
		       c->data);
		kv_set(kv, &n, "old_mode", "%.*s",
		       (int)strcspn(before->mode.p, "\n"), before->mode.p);
		return n;
	}
	kv_set(kv, &n, "op", "%s", c->file);
	kv_set(kv, &n, "rules", "%zu", rule_count(&after->rules));
	kv_set(kv, &n, "old_rules", "%zu", rule_count(&before->rules));
	kv[n].key = "policy";
	sha256_hex(after->rules.p, after->rules.len, kv[n++].val);
	return n;
}

/* Why the record body is not the one expected, or NULL. */
static const char *audit_mismatch(const char *body, const struct kv *kv,
				  size_t n)
{
	static char buf[600];

	if (strncmp(body, "lsm=denywrite ", 14)) {
		snprintf(buf, sizeof(buf), "record does not start with "
			 "'lsm=denywrite ': '%.300s'", body);
		return buf;
	}
	for (size_t i = 0; i < n; i++) {
		const char *v = field(body, kv[i].key);

		if (!v || strcmp(v, kv[i].val)) {
			snprintf(buf, sizeof(buf), "%s=%.80s, expected %s=%s in '%.300s'",
				 kv[i].key, v ? v : "(missing)", kv[i].key,
				 kv[i].val, body);
			return buf;
		}
	}
	return NULL;
}

static void audit_case(const void *row)
{
	const struct acase *c = row;
	struct job j = { .file = c->file, .ctx = C_ROOT, .data = c->data,
			 .len = strlen(c->data) };
	struct policy before = { 0 }, after = { 0 };
	int type = strcmp(c->file, "mode") ? 1403 : 1404, fd, found;
	char why[300], body[2048], pid[16];
	const char *bad = NULL;
	struct outcome o;
	struct kv kv[12];
	size_t nkv;

	if (ensure_baseline(c->mode0 ? c->mode0 : BASE_MODE, why, sizeof(why)) ||
	    policy_read(&before, why, sizeof(why))) {
		fail(c->name, "baseline: %s" NEW_AUDIT, why);
		return;
	}
	fd = kmsg_mark(why, sizeof(why));
	if (fd < 0 || run_job(&j, &o, why, sizeof(why)) ||
	    policy_read(&after, why, sizeof(why))) {
		fail(c->name, "%s" NEW_AUDIT, why);
		goto out;
	}
	if (o.stage != ST_WRITTEN || o.err != c->err) {
		fail(c->name, "write gave %s, expected %s%s%s" NEW_AUDIT,
		     o.stage == ST_WRITTEN ? errname(o.err) : "no write",
		     errname(c->err), o.stage == ST_SETUP ? ": " : "",
		     o.stage == ST_SETUP ? o.why : "");
		goto out;
	}
	nkv = audit_fields(c, &o, &before, &after, kv);
	snprintf(pid, sizeof(pid), "%d", (int)o.pid);
	found = kmsg_find(fd, type, "pid", pid, body, sizeof(body));
	if (found != 1)
		fail(c->name, "%d type=%d records from pid %s within %d ms, "
		     "expected 1" NEW_AUDIT, found, type, pid, KMSG_WAIT_MS);
	else if ((bad = audit_mismatch(body, kv, nkv)))
		fail(c->name, "%s" NEW_AUDIT, bad);
	else
		pass(c->name);
out:
	if (fd >= 0)
		close(fd);
	policy_free(&before);
	policy_free(&after);
}

/* ---- the denial record: it names the LSM first ---------------------------- */

#define DENIAL_CHECK "enforce_denial_record_starts_with_lsm_denywrite_op"
#define PROG TD "/prog"

/* Start PROG --pause; it writes 'R' once it runs.  Returns its pid. */
static pid_t start_prog(char *why, size_t n)
{
	int p[2];
	char c;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return say(why, n, "pipe");
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		execl(PROG, "sfstest", "--pause", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	if (pid > 0 && read_timeout(p[0], &c, 1, JOB_TIMEOUT_MS) != 1) {
		snprintf(why, n, PROG " did not start: %s",
			 child_end(pid, true));
		pid = -1;
	}
	close(p[0]);
	return pid;
}

static void denial_check(void)
{
	char why[300], body[2048];
	const char *bad = NULL;
	int fd = -1, wfd = -1, err = 0, found = 0;
	pid_t pid = -1;

	if (ensure_baseline(BASE_MODE, why, sizeof(why)) ||
	    (copy_fresh("/proc/self/exe", PROG, 0755) &&
	     say(why, sizeof(why), "copy /proc/self/exe to " PROG)) ||
	    (fd = kmsg_mark(why, sizeof(why))) < 0 ||
	    (pid = start_prog(why, sizeof(why))) < 0) {
		bad = why;
		goto out;
	}
	wfd = open(PROG, O_WRONLY | O_CLOEXEC);
	err = wfd < 0 ? errno : 0;
	if (err != ETXTBSY) {
		snprintf(why, sizeof(why), "open of the running " PROG
			 " for writing gave %s, expected ETXTBSY", errname(err));
		bad = why;
		goto out;
	}
	found = kmsg_find(fd, 1400, "path", "\"" PROG "\"", body, sizeof(body));
	if (!found) {
		snprintf(why, sizeof(why), "no type=1400 record with path=\""
			 PROG "\" within %d ms", KMSG_WAIT_MS);
		bad = why;
	} else if (strncmp(body, "lsm=denywrite op=write ", 23)) {
		snprintf(why, sizeof(why), "record begins '%.60s', expected "
			 "'lsm=denywrite op=write '" NEW_LSM_FIELD, body);
		bad = why;
	}
out:
	if (wfd >= 0)
		close(wfd);
	if (pid > 0)
		child_end(pid, true);
	if (fd >= 0)
		close(fd);
	if (bad)
		fail(DENIAL_CHECK, "%s", bad);
	else
		pass(DENIAL_CHECK);
}

/* ---- concurrent writers: readers see one whole policy or the other -------- */

#define CONCURRENT_CHECK "concurrent_rules_writers_readers_see_whole_policies"
#define CONCURRENT_MS 3000

static const char *const swap_policies[2] = {
	"exec /\nlib " TD "/lib\n",
	"all " TD "/a\nlib " TD "/b\nexec,ignore-writers " TD "/lib\n",
};

/* Replace rules with policy until the deadline; report {ok, failed, last
 * errno}. */
static _Noreturn void swap_writer(const char *policy, long long until, int out)
{
	long r[3] = { 0, 0, 0 };

	while (now_ms() < until) {
		int err = sfs_write("rules", policy, strlen(policy));

		r[!!err]++;
		if (err)
			r[2] = err;
	}
	_exit(write(out, r, sizeof(r)) == (ssize_t)sizeof(r) ? 0 : 1);
}

static void concurrent_check(void)
{
	long long until = now_ms() + CONCURRENT_MS;
	long seen[3] = { 0, 0, 0 }, r[2][3] = { { 0 } };
	char why[300] = "";
	const char *bad = NULL;
	pid_t pid[2] = { -1, -1 };
	int p[2][2] = { { -1, -1 }, { -1, -1 } };
	struct text t;

	if (ensure_baseline(BASE_MODE, why, sizeof(why))) {
		fail(CONCURRENT_CHECK, "baseline: %s", why);
		return;
	}
	fflush(stdout);
	for (int i = 0; i < 2; i++) {
		if (pipe2(p[i], O_CLOEXEC) || (pid[i] = fork()) < 0) {
			bad = "cannot start a writer";
			break;
		}
		if (pid[i] == 0)
			swap_writer(swap_policies[i], until, p[i][1]);
		close(p[i][1]);
	}
	while (!bad && now_ms() < until) {
		int err = text_read(sfs_path("rules"), &t);
		int k = 2;

		for (int i = 0; !err && i < 2; i++)
			if (text_is(&t, swap_policies[i], strlen(swap_policies[i])))
				k = i;
		if (k == 2 && !seen[2])
			snprintf(why, sizeof(why), "read '%s'", err ? errname(err) :
				 escaped(t.p, t.len));
		seen[k]++;
		text_free(&t);
	}
	for (int i = 0; i < 2; i++) {
		if (pid[i] <= 0)
			continue;
		if (read_timeout(p[i][0], r[i], sizeof(r[i]), JOB_TIMEOUT_MS) !=
		    (ssize_t)sizeof(r[i])) {
			snprintf(why, sizeof(why), "writer %d %s", i,
				 child_end(pid[i], true));
			bad = why;
		} else {
			child_end(pid[i], false);
		}
		close(p[i][0]);
	}
	stat_line("concurrent_reads_policy_a", seen[0]);
	stat_line("concurrent_reads_policy_b", seen[1]);
	stat_line("concurrent_reads_other", seen[2]);
	stat_line("concurrent_writes_a", r[0][0]);
	stat_line("concurrent_writes_b", r[1][0]);
	if (bad)
		fail(CONCURRENT_CHECK, "%s", bad);
	else if (seen[2])
		fail(CONCURRENT_CHECK, "%ld reads were neither policy, first: %s",
		     seen[2], why);
	else if (r[0][1] || r[1][1])
		fail(CONCURRENT_CHECK, "%ld and %ld writes failed, last %s",
		     r[0][1], r[1][1], errname(r[0][1] ? (int)r[0][2] : (int)r[1][2]));
	else if (!seen[0] || !seen[1] || !r[0][0] || !r[1][0])
		fail(CONCURRENT_CHECK, "no interleaving seen: reads %ld/%ld, "
		     "writes %ld/%ld", seen[0], seen[1], r[0][0], r[1][0]);
	else
		pass(CONCURRENT_CHECK);
}

/* ---- the scratch tree ----------------------------------------------------- */

static void tree_remove(void)
{
	char path[64];

	/* One rmdir each: nftw would open, read and stat them all too. */
	while (many_made > 0) {
		snprintf(path, sizeof(path), MANY_FMT, --many_made);
		rmdir(path);
	}
	if (rm_rf(TD))
		fprintf(stderr, "sfstest: cannot remove " TD ": %s\n",
			strerror(errno));
}

static int tree_make(char *why, size_t n)
{
	static const char *const dirs[] = { TD, TD "/lib", TD "/a", TD "/b",
					    TD "/root", TD "/pr" };
	static const char *const links[][2] = {
		{ "a", TD "/link" }, { "lib", TD "/liblink" }, { "loop", TD "/loop" },
	};
	int fd;

	tree_remove();
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++)
		if (mkdir(dirs[i], 0755))
			return say(why, n, dirs[i]);
	for (size_t i = 0; i < ARRAY_SIZE(links); i++)
		if (symlink(links[i][0], links[i][1]))
			return say(why, n, links[i][1]);
	fd = open(TD "/file", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return say(why, n, TD "/file");
	close(fd);
	return 0;
}

/* ---- main ------------------------------------------------------------------ */

#define RESTORE_CHECK "policy_and_mode_found_at_start_restored_at_end"

static void restore_check(const struct policy *saved, bool have_saved)
{
	struct policy now;
	char why[300];
	char mode[16];

	if (!have_saved) {
		fail(RESTORE_CHECK, "the policy could not be read at the start");
		return;
	}
	snprintf(mode, sizeof(mode), "%.*s", (int)strcspn(saved->mode.p, "\n"),
		 saved->mode.p);
	if (policy_write(saved->rules.p, saved->rules.len, mode, why, sizeof(why)) ||
	    policy_read(&now, why, sizeof(why))) {
		fail(RESTORE_CHECK, "%s", why);
		return;
	}
	if (policy_same(&now, saved))
		pass(RESTORE_CHECK);
	else
		fail(RESTORE_CHECK, "%s", policy_diff(&now, saved->rules.p,
						       saved->rules.len,
						       saved->mode.p));
	policy_free(&now);
}

static struct fuzz_opts fuzz = { .seconds = 20 };

static void fuzz_run(void)
{
	fuzz_check(&fuzz);
}

/* Checks that are not rows of a table. */
static const struct single {
	const char *name;
	void (*run)(void);
} singles[] = {
	{ CONCURRENT_CHECK, concurrent_check },
	{ DENIAL_CHECK, denial_check },
	{ FUZZ_CHECK, fuzz_run },
};

static void single_check(const void *row)
{
	((const struct single *)row)->run();
}

/* A part of the run: rows of checks, each row's first member its name. */
struct part {
	const void *rows;
	size_t count, size;
	void (*check)(const void *row);
	bool lift_ratelimit; /* it reads audit records from the kernel log */
};

static const char *row_name(const struct part *p, size_t i)
{
	return *(const char *const *)((const char *)p->rows + i * p->size);
}

static int part_count(const struct part *p)
{
	int n = 0;

	for (size_t i = 0; i < p->count; i++)
		n += selected(row_name(p, i));
	return n;
}

static void part_run(const struct part *p)
{
	if (p->lift_ratelimit)
		ratelimit_off();
	for (size_t i = 0; i < p->count; i++)
		if (selected(row_name(p, i)))
			p->check((const char *)p->rows + i * p->size);
	if (p->lift_ratelimit)
		ratelimit_restore();
}

static void usage(FILE *f)
{
	fprintf(f, "usage: sfstest [--sfs DIR] [--only PREFIX[,PREFIX...]] "
		   "[--seed N] [--fuzz-seconds S] [--fuzz-inputs N]\n");
}

static int parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sfs", required_argument, NULL, 'd' },
		{ "only", required_argument, NULL, 'o' },
		{ "seed", required_argument, NULL, 's' },
		{ "fuzz-seconds", required_argument, NULL, 't' },
		{ "fuzz-inputs", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	bool seeded = false;
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		errno = 0;
		switch (c) {
		case 'd':
			sfs_dir = optarg;
			continue;
		case 'o':
			set_only(optarg);
			continue;
		case 's':
			fuzz.seed = strtoull(optarg, &end, 0);
			seeded = true;
			break;
		case 't':
			fuzz.seconds = strtol(optarg, &end, 10);
			break;
		case 'n':
			fuzz.max_inputs = strtol(optarg, &end, 10);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
		if (errno || *end || end == optarg || fuzz.seconds < 0 ||
		    fuzz.max_inputs < 0) {
			fprintf(stderr, "sfstest: bad number '%s'\n", optarg);
			return -1;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return -1;
	}
	if (!seeded)
		fuzz.seed = (uint64_t)now_ms() * 2654435761u ^ (uint64_t)getpid();
	return 0;
}

int main(int argc, char **argv)
{
	const struct part parts[] = {
		{ mrows, matrix_build(), sizeof(mrows[0]), matrix_check, false },
		{ wcases, ARRAY_SIZE(wcases), sizeof(wcases[0]), wcase_check, false },
		{ &singles[0], 1, sizeof(singles[0]), single_check, false },
		{ acases, ARRAY_SIZE(acases), sizeof(acases[0]), audit_case, true },
		{ &singles[1], 1, sizeof(singles[0]), single_check, true },
		{ &singles[2], 1, sizeof(singles[0]), single_check, false },
	};
	long long start = now_ms();
	struct policy saved;
	bool have_saved;
	char why[300];
	int plan = 1; /* the restore check */

	if (argc == 2 && !strcmp(argv[1], "--pause")) {
		/* PROG of the denial check: running, then told so. */
		if (write(1, "R", 1) != 1)
			return 1;
		for (;;)
			pause();
	}
	if (parse_args(argc, argv))
		return 2;
	signal(SIGPIPE, SIG_IGN);
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++)
		plan += part_count(&parts[i]);
	printf("PLAN sfs %d\n", plan);
	fflush(stdout);

	have_saved = !policy_read(&saved, why, sizeof(why));
	if (!have_saved)
		fprintf(stderr, "sfstest: %s\n", why);
	if (tree_make(why, sizeof(why)))
		fprintf(stderr, "sfstest: scratch tree: %s\n", why);
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++)
		part_run(&parts[i]);
	restore_check(&saved, have_saved);
	tree_remove();
	stat_line("elapsed_ms", now_ms() - start);
	if (have_saved)
		policy_free(&saved);
	return failures ? 1 : 0;
}
