/* prm_cases.c - what each case of `promises` does (see promises.h).  A
 * case returns the errno of the operation its check is about; what must
 * hold before and after that operation (a precondition that shows the
 * file was protected, a postcondition that shows the rule or the release
 * worked) makes it return -1 with the reason instead. */
#include "promises.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define BINFMT_DIR "/proc/sys/fs/binfmt_misc"
#define INTERP PRM_BIN "/interp"
#define DATA PRM_OTHER "/data"

static int say(char *why, size_t whylen, const char *what, const char *path)
{
	snprintf(why, whylen, "%s %s: %s", what, path, errtxt(errno));
	return -1;
}

/* Make path protected: run it, or map it PROT_EXEC (fd closed). */
static int hold(struct ctx *c, bool map, const char *path, char *why,
		size_t whylen)
{
	if (!map)
		return ctx_run(c, path, why, whylen) ? 0 : -1;
	if (!ctx_map(c, path, PROT_READ | PROT_EXEC, NULL))
		return say(why, whylen, "mmap PROT_EXEC", path);
	return 0;
}

/* --- when protection ends ---------------------------------------------- */

/* Two processes run `next` (execvia); each execs the sleeper in turn. */
int case_exec_away(struct ctx *c, const void *arg, char *why, size_t whylen)
{
	char *argv[] = { PRM_NEXT, "wait", SLEEPER, NULL };
	struct proc *p[2];
	int exec_err;

	(void)arg;
	for (int i = 0; i < 2; i++) {
		p[i] = ctx_start(c, argv, PRM_NEXT, &exec_err, why, whylen);
		if (!p[i])
			return -1;
	}
	if (expect("write while two processes run it", probe_write(PRM_NEXT),
		   ETXTBSY, why, whylen))
		return -1;
	for (int i = 0; i < 2; i++) {
		if (kill(p[i]->pid, SIGUSR1) || proc_next_ready(p[i], why, whylen) ||
		    wait_exe(p[i]->pid, SLEEPER, NULL, WAIT_MS, why, whylen))
			return -1;
		if (i == 0 && expect("write once one of them execs the sleeper",
				     probe_write(PRM_NEXT), ETXTBSY, why, whylen))
			return -1;
	}
	return probe_write(PRM_NEXT);
}

int case_munmap(struct ctx *c, const void *arg, char *why, size_t whylen)
{
	const struct munmap_arg *a = arg;
	struct mapping *m;
	int fd = -1;

	m = ctx_map(c, PRM_SO, PROT_READ | PROT_EXEC, a->keep_fd ? &fd : NULL);
	if (!m)
		return say(why, whylen, "mmap PROT_EXEC", PRM_SO);
	if (expect("write while mapped", probe_write(PRM_SO), ETXTBSY, why,
		   whylen))
		return -1;
	ctx_unmap(c, m);
	if (a->keep_fd) {
		if (expect("write after munmap, its fd still open",
			   probe_write(PRM_SO), ETXTBSY, why, whylen))
			return -1;
		ctx_close(c, fd);
	}
	return probe_write(PRM_SO);
}

/*
 * Three files of one inode, each mapped (three opens: three holds), go one
 * by one; a write is refused while any is left, allowed after the last.
 */
int case_many_holders(struct ctx *c, const void *arg, char *why,
		      size_t whylen)
{
	const struct holders_arg *a = arg;
	struct mapping *m[3];
	char what[64];
	int i, k;

	for (i = 0; i < 3; i++) {
		m[i] = ctx_map(c, PRM_SO, PROT_READ | PROT_EXEC, NULL);
		if (!m[i])
			return say(why, whylen, "mmap PROT_EXEC", PRM_SO);
	}
	for (i = 0; i < 3; i++) {
		k = a->first_mapped_first ? i : 2 - i;
		snprintf(what, sizeof(what), "write with %d mappings left",
			 3 - i);
		if (expect(what, probe_write(PRM_SO), ETXTBSY, why, whylen))
			return -1;
		ctx_unmap(c, m[k]);
	}
	return probe_write(PRM_SO);
}

/* --- mode off --------------------------------------------------------- */

/* Switch to mode off and back to @mode; protected must be 0 in between. */
static int off_and_back(const char *mode, char *why, size_t whylen)
{
	long long n;

	if (set_mode("off", why, whylen))
		return -1;
	n = protected_now(why, whylen);
	if (n < 0)
		return -1;
	if (n) {
		snprintf(why, whylen, "protected %lld in mode off, expected 0", n);
		return -1;
	}
	return set_mode(mode, why, whylen);
}

/*
 * A program runs (held); mode off drops its hold, so that back in enforce
 * it is writable while it still runs, until it is run again.
 */
int case_mode_off_drops_holds(struct ctx *c, const void *arg, char *why,
			      size_t whylen)
{
	(void)arg;
	if (!ctx_run(c, PRM_PROG, why, whylen) ||
	    expect("write while it runs", probe_write(PRM_PROG), ETXTBSY, why,
		   whylen) ||
	    off_and_back("enforce", why, whylen) ||
	    expect("write while it still runs, after mode off and back",
		   probe_write(PRM_PROG), 0, why, whylen) ||
	    !ctx_run(c, PRM_PROG, why, whylen))
		return -1;
	return expect("write once it is run again", probe_write(PRM_PROG),
		      ETXTBSY, why, whylen) ? -1 : 0;
}

/*
 * Mode off with nothing held switches file_release off; back in enforce
 * it must be on again before a hold is taken, or the hold of a mapping
 * would outlive it.
 */
int case_release_after_off(struct ctx *c, const void *arg, char *why,
			   size_t whylen)
{
	static const struct munmap_arg fd_closed = { false };

	(void)arg;
	if (off_and_back("enforce", why, whylen))
		return -1;
	return case_munmap(c, &fd_closed, why, whylen);
}

/*
 * In audit mode, writes through one fd to a mapped library are logged
 * once (the fd is marked); mode off drops the mark with the hold, so that
 * once the library is mapped again the same fd's write is logged again.
 * Logged: each mapping (the library is open for writing), the first write
 * of each round: 4.  A mark left by mode off makes it 3.
 */
int case_mode_off_drops_marks(struct ctx *c, const void *arg, char *why,
			      size_t whylen)
{
	int fd;

	(void)arg;
	fd = ctx_fd(c, open(PRM_SO, O_WRONLY | O_CLOEXEC));
	if (fd < 0)
		return say(why, whylen, "open O_WRONLY", PRM_SO);
	if (!ctx_map(c, PRM_SO, PROT_READ | PROT_EXEC, NULL))
		return say(why, whylen, "mmap PROT_EXEC", PRM_SO);
	for (int i = 0; i < 2; i++)
		if (pwrite(fd, "\x7f", 1, 0) != 1)
			return say(why, whylen, "pwrite", PRM_SO);
	if (off_and_back("audit", why, whylen))
		return -1;
	if (!ctx_map(c, PRM_SO, PROT_READ | PROT_EXEC, NULL))
		return say(why, whylen, "mmap PROT_EXEC again", PRM_SO);
	for (int i = 0; i < 2; i++)
		if (pwrite(fd, "\x7f", 1, 0) != 1)
			return errno;
	return 0;
}

/* --- what stays allowed, what is refused ------------------------------- */

int case_chmod(struct ctx *c, const void *arg, char *why, size_t whylen)
{
	struct stat st;

	(void)arg;
	if (!ctx_run(c, PRM_PROG, why, whylen) ||
	    expect("write before chmod", probe_write(PRM_PROG), ETXTBSY, why,
		   whylen))
		return -1;
	if (chmod(PRM_PROG, 0700))
		return errno;
	if (stat(PRM_PROG, &st) || (st.st_mode & 07777) != 0700) {
		snprintf(why, whylen, "chmod 0700 returned 0, the mode is %o",
			 (unsigned int)(st.st_mode & 07777));
		return -1;
	}
	if (expect("write after chmod", probe_write(PRM_PROG), ETXTBSY, why,
		   whylen))
		return -1;
	return 0;
}

int case_ftruncate_old_fd(struct ctx *c, const void *arg, char *why,
			  size_t whylen)
{
	int fd = ctx_fd(c, open(PRM_PROG, O_RDWR | O_CLOEXEC)), r;
	struct stat a, b;

	(void)arg;
	if (fd < 0)
		return say(why, whylen, "open O_RDWR", PRM_PROG);
	if (!ctx_run(c, PRM_PROG, why, whylen) || fstat(fd, &a))
		return -1;
	r = ftruncate(fd, 0) ? errno : 0;
	if (r && (fstat(fd, &b) || b.st_size != a.st_size)) {
		snprintf(why, whylen, "ftruncate refused (%s), yet the size is %lld, was %lld",
			 errname(r), (long long)b.st_size, (long long)a.st_size);
		return -1;
	}
	return r;
}

/* lib.so is open for writing (or mapped shared writable, its fd closed);
 * it is mapped (or mprotect'ed) PROT_EXEC, then maybe written. */
int case_map_with_writer(struct ctx *c, const void *arg, char *why,
			 size_t whylen)
{
	const struct map_arg *a = arg;
	struct mapping *m;
	int w = -1, r = 0;

	if (a->shared_writer ?
	    !ctx_map(c, PRM_SO, PROT_READ | PROT_WRITE, NULL) :
	    (w = ctx_fd(c, open(PRM_SO, O_WRONLY | O_CLOEXEC))) < 0)
		return say(why, whylen, "open or map for writing", PRM_SO);
	m = ctx_map(c, PRM_SO, a->mprotect ? PROT_READ : PROT_READ | PROT_EXEC,
		    NULL);
	if (!m)
		r = errno;
	if (a->mprotect) {
		if (!m)
			return say(why, whylen, "mmap PROT_READ", PRM_SO);
		r = mprotect(m->addr, m->len, PROT_READ | PROT_EXEC) ? errno : 0;
	}
	if (a->after == AM_NOTHING)
		return r;
	if (r) {
		snprintf(why, whylen, "adding PROT_EXEC: %s", errtxt(r));
		return -1;
	}
	if (a->after == AM_NEW_WRITER)
		return probe_write(PRM_SO);
	return write(w, "x", 1) == 1 ? 0 : errno;
}

/* --- rule changes ------------------------------------------------------ */

int case_rule_change(struct ctx *c, const void *arg, char *why,
		     size_t whylen)
{
	const struct rule_change_arg *a = arg;
	const char *target = a->map ? PRM_SO : PRM_PROG;
	const char *next = a->map ? PRM_SO : PRM_BIN "/prog2";
	int r;

	if (hold(c, a->map, target, why, whylen) ||
	    set_rules(a->rules, why, whylen))
		return -1;
	r = probe_write(target);
	if (*a->rules) {
		/* The new rule protects what starts under it. */
		if (!a->map && copy_fresh(SLEEPER, next, 0755))
			return say(why, whylen, "copy to", next);
		if (hold(c, a->map, next, why, whylen) ||
		    expect("write to a file held after the rule change",
			   probe_write(next), ETXTBSY, why, whylen))
			return -1;
		return r;
	}
	/* Protected until its holder is gone. */
	if (a->map)
		ctx_unmap(c, &c->maps[0]);
	else
		ctx_stop(c, &c->procs[0]);
	if (expect("write once its holder is gone", probe_write(target), 0, why,
		   whylen))
		return -1;
	return r;
}

/* --- mounts ------------------------------------------------------------ */

int prep_mount(struct ctx *c, const void *arg, char *why, size_t whylen)
{
	(void)arg;
	if (mkdir_p(PRM_MNT, 0755) ||
	    mount("prm", PRM_MNT, "tmpfs", 0, "mode=0755"))
		return say(why, whylen, "mount tmpfs on", PRM_MNT);
	ctx_mount(c, PRM_MNT);
	if (mkdir(PRM_MNT "/sub", 0755))
		return say(why, whylen, "mkdir", PRM_MNT "/sub");
	return 0;
}

int case_umount(struct ctx *c, const void *arg, char *why, size_t whylen)
{
	const struct umount_arg *a = arg;
	struct stat mnt, top;
	int r;

	(void)c;
	if (a->clear_first && set_rules("", why, whylen))
		return -1;
	r = umount2(PRM_MNT, a->flags) ? errno : 0;
	if (stat(PRM_MNT, &mnt) || stat(PRM_DIR, &top))
		return say(why, whylen, "stat", PRM_MNT);
	if ((r == 0) != (mnt.st_dev == top.st_dev)) {
		snprintf(why, whylen, "umount2 gave %s, but %s is %s a mount",
			 errname(r), PRM_MNT,
			 mnt.st_dev == top.st_dev ? "no longer" : "still");
		return -1;
	}
	/* The filesystem is gone, and its rules with it. */
	if (!r && !a->clear_first) {
		struct text t;
		int err = text_read(sfs_path("rules"), &t);
		bool listed = !err && strstr(t.p, PRM_MNT);

		text_free(&t);
		if (err || listed) {
			snprintf(why, whylen, "after umount, rules %s",
				 err ? errtxt(err) : "still lists " PRM_MNT);
			return -1;
		}
	}
	return r;
}

/* --- binfmt_misc ------------------------------------------------------- */

/* Register a magic format whose interpreter is a sleeper copy, while no
 * rule covers it: a format with F opens its interpreter now. */
int prep_binfmt(struct ctx *c, const void *arg, char *why, size_t whylen)
{
	const struct binfmt_arg *a = arg;
	char magic[64], text[80], reg[256];
	int err;

	if (access(BINFMT_DIR "/register", F_OK)) {
		if (mount("binfmt_misc", BINFMT_DIR, "binfmt_misc", 0, NULL))
			return say(why, whylen, "mount binfmt_misc on", BINFMT_DIR);
		ctx_mount(c, BINFMT_DIR);
	}
	snprintf(magic, sizeof(magic), "%s-magic", a->name);
	snprintf(text, sizeof(text), "%s\n", magic);
	if (copy_fresh(SLEEPER, INTERP, 0755))
		return say(why, whylen, "copy the sleeper to", INTERP);
	if (write_file(DATA, text, 0755))
		return say(why, whylen, "write", DATA);
	snprintf(reg, sizeof(reg), ":%s:M::%s::%s:%s", a->name, magic, INTERP,
		 a->flags);
	err = file_puts(BINFMT_DIR "/register", reg);
	if (err) {
		snprintf(why, whylen, "register '%s': %s", reg, errtxt(err));
		return -1;
	}
	ctx_binfmt(c, a->name);
	return 0;
}

int case_binfmt(struct ctx *c, const void *arg, char *why, size_t whylen)
{
	char *argv[] = { DATA, NULL };
	struct proc *p;
	int exec_err, r;

	(void)arg;
	if (expect("write to the interpreter before a file of its format runs",
		   probe_write(INTERP), 0, why, whylen))
		return -1;
	p = ctx_start(c, argv, INTERP, &exec_err, why, whylen);
	if (!p)
		return -1;
	r = probe_write(INTERP);
	ctx_stop(c, p);
	if (expect("write to the interpreter once that file exited",
		   probe_write(INTERP), 0, why, whylen))
		return -1;
	return r;
}

/* --- execveat, PR_SET_MM_MAP ------------------------------------------- */

/* execvia execs prog with execveat(2); its errno comes back in exec_err. */
int case_execveat(struct ctx *c, const void *arg, char *why, size_t whylen)
{
	const struct execveat_arg *a = arg;
	char *by_dir[] = { EXECVIA, "dirfd", PRM_BIN, "prog", NULL };
	char *by_fd[] = { EXECVIA, "fd", PRM_PROG, NULL };
	int exec_err;

	if (a->writer && ctx_fd(c, open(PRM_PROG, O_WRONLY | O_CLOEXEC)) < 0)
		return say(why, whylen, "open O_WRONLY", PRM_PROG);
	if (!ctx_start(c, a->dirfd ? by_dir : by_fd, PRM_PROG, &exec_err, why,
		       whylen))
		return a->writer && exec_err ? exec_err : -1;
	if (a->writer)
		return 0; /* it ran: the check fails */
	return probe_write(PRM_PROG);
}

int case_mm_map(struct ctx *c, const void *arg, char *why, size_t whylen)
{
	const struct mm_map_arg *a = arg;
	struct proc *p;
	int fd, err, r;

	if (a->writer && ctx_fd(c, open(PRM_PROG, O_WRONLY | O_CLOEXEC)) < 0)
		return say(why, whylen, "open O_WRONLY", PRM_PROG);
	fd = ctx_fd(c, open(PRM_PROG, O_RDONLY | O_CLOEXEC));
	if (fd < 0)
		return say(why, whylen, "open", PRM_PROG);
	p = mm_map_child(c, fd, &err, why, whylen);
	/* The child's exe is this open file: ours must not keep it. */
	ctx_close(c, fd);
	if (!p)
		return -1;
	if (a->writer)
		return err;
	if (err) {
		snprintf(why, whylen, "prctl(PR_SET_MM_MAP): %s", errtxt(err));
		return -1;
	}
	if (wait_exe(p->pid, PRM_PROG, NULL, 1000, why, whylen))
		return -1;
	r = probe_write(PRM_PROG);
	ctx_stop(c, p);
	if (expect("write once the child exited", probe_write(PRM_PROG), 0, why,
		   whylen))
		return -1;
	return r;
}

/* --- the edge of a lib rule -------------------------------------------- */

int prep_usrlib(struct ctx *c, const void *arg, char *why, size_t whylen)
{
	const struct lib_outside_arg *a = arg;
	const char *const files[] = { a->outside, a->inside };

	for (int i = 0; i < 2; i++) {
		if (copy_fresh(GUEST_LIB, files[i], 0755))
			return say(why, whylen, "copy libdwtest.so to", files[i]);
		ctx_unlink(c, files[i]);
	}
	return 0;
}

int case_lib_outside(struct ctx *c, const void *arg, char *why,
		     size_t whylen)
{
	const struct lib_outside_arg *a = arg;
	int r;

	if (hold(c, true, a->outside, why, whylen))
		return -1;
	r = probe_write(a->outside);
	if (hold(c, true, a->inside, why, whylen) ||
	    expect("write to a mapped file inside the rule",
		   probe_write(a->inside), ETXTBSY, why, whylen))
		return -1;
	return r;
}

/* --- a lib rule above a mount ------------------------------------------ */

#define MNT_SO PRM_MNT "/sub/lib.so"

/* The tmpfs of prep_mount(), with a copy of libdwtest.so in it. */
int prep_mount_lib(struct ctx *c, const void *arg, char *why, size_t whylen)
{
	if (prep_mount(c, arg, why, whylen))
		return -1;
	if (copy_fresh(GUEST_LIB, MNT_SO, 0755))
		return say(why, whylen, "copy libdwtest.so to", MNT_SO);
	return 0;
}

/*
 * A library on a filesystem mounted in PRM_DIR: a rule reaches it only if
 * the walk from it crosses the mount.  Its executable mapping while it is
 * open for writing is refused exactly when a rule covers it (@arg), then
 * it is mapped, and the verdict on a write of it is returned.
 */
int case_lib_across_mount(struct ctx *c, const void *arg, char *why,
			  size_t whylen)
{
	const struct across_mount_arg *a = arg;
	int w, r;

	w = ctx_fd(c, open(MNT_SO, O_WRONLY | O_CLOEXEC));
	if (w < 0)
		return say(why, whylen, "open O_WRONLY", MNT_SO);
	r = ctx_map(c, MNT_SO, PROT_READ | PROT_EXEC, NULL) ? 0 : errno;
	if (expect("mmap PROT_EXEC while open for writing", r,
		   a->covered ? ETXTBSY : 0, why, whylen))
		return -1;
	ctx_close(c, w);
	if (hold(c, true, MNT_SO, why, whylen))
		return -1;
	return probe_write(MNT_SO);
}

/* --- the protected count ----------------------------------------------- */

static int protected_is(long long want, const char *when, char *why,
			size_t whylen)
{
	char e[200];
	long long got = protected_now(e, sizeof(e));

	if (got == want)
		return 0;
	if (got < 0)
		snprintf(why, whylen, "%s: %s", when, e);
	else
		snprintf(why, whylen, "protected is %lld %s, expected %lld", got,
			 when, want);
	return -1;
}

#define DISTINCT 3

int case_protected_count(struct ctx *c, const void *arg, char *why,
			 size_t whylen)
{
	long long base = protected_now(why, whylen);
	char path[DISTINCT][64];

	(void)arg;
	if (base < 0)
		return -1;
	for (int i = 0; i < DISTINCT; i++) {
		snprintf(path[i], sizeof(path[i]), PRM_BIN "/p%d", i);
		if (copy_fresh(SLEEPER, path[i], 0755))
			return say(why, whylen, "copy to", path[i]);
		if (!ctx_run(c, path[i], why, whylen))
			return -1;
	}
	if (protected_is(base + DISTINCT, "with 3 programs running", why, whylen) ||
	    !ctx_run(c, path[0], why, whylen) ||
	    protected_is(base + DISTINCT, "with a second process of one of them",
			 why, whylen))
		return -1;
	for (int i = 0; i < c->nprocs; i++)
		ctx_stop(c, &c->procs[i]);
	return protected_is(base, "once they were reaped", why, whylen);
}

/* --- audit records ----------------------------------------------------- */

static const char *const audit_ops[] = { "write", "truncate", "exec", "mmap" };

/* In a child named for the operation: the operation's errno. */
static int audit_op(const void *arg, char *out, size_t outlen)
{
	const struct audit_arg *a = arg;
	char *argv[] = { PRM_PROG, NULL };
	int fd;

	(void)out;
	(void)outlen;
	switch (a->op) {
	case AO_WRITE:
		return probe_write(PRM_PROG);
	case AO_TRUNCATE:
		return truncate(PRM_PROG, 0) ? errno : 0;
	case AO_EXEC:
		execv(PRM_PROG, argv);
		return errno;
	case AO_MMAP:
		fd = open(PRM_SO, O_RDONLY);
		if (fd < 0)
			return errno;
		return mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) ==
		       MAP_FAILED ? errno : 0;
	}
	return EINVAL;
}

/* What the record must read, after "audit(...): ".  The truncation's row
 * has an ignore-writers rule (promises.c): exec's denial would refuse it
 * in the VFS, unrecorded. */
static int audit_expected(const struct audit_arg *a, pid_t pid,
			  const char *comm, char *buf, size_t len, char *why,
			  size_t whylen)
{
	bool lib = a->op == AO_MMAP, name = a->op == AO_TRUNCATE;
	const char *path = lib ? PRM_SO : PRM_PROG;
	struct text mode;
	struct stat st;
	int err = text_read(sfs_path("mode"), &mode);

	if (err || stat(path, &st)) {
		snprintf(why, whylen, "read the mode, stat %s: %s", path,
			 errtxt(err ? err : errno));
		text_free(&mode);
		return -1;
	}
	mode.p[strcspn(mode.p, "\n")] = '\0';
	snprintf(buf, len,
		 "lsm=denywrite op=%s mode=%s pid=%d comm=\"%s\" %s=\"%s\" "
		 "dev=\"tmpfs\" ino=%lu scope=%s rule=\"%s\"",
		 audit_ops[a->op], mode.p, (int)pid, comm, name ? "name" : "path",
		 name ? "prog" : path, (unsigned long)st.st_ino,
		 lib ? "lib" : name ? "exec,ignore-writers" : "exec",
		 lib ? PRM_LIB : PRM_BIN);
	text_free(&mode);
	return 0;
}

int case_audit_record(struct ctx *c, const void *arg, char *why,
		      size_t whylen)
{
	const struct audit_arg *a = arg;
	const char *target = a->op == AO_MMAP ? PRM_SO : PRM_PROG;
	char comm[16], out[16], body[1024], want[1024];
	int k, err;
	pid_t pid;

	/* A write or truncate meets a running program; an exec or mmap
	 * meets a writer. */
	if (a->op == AO_WRITE || a->op == AO_TRUNCATE) {
		if (!ctx_run(c, PRM_PROG, why, whylen))
			return -1;
	} else if (ctx_fd(c, open(target, O_WRONLY | O_CLOEXEC)) < 0) {
		return say(why, whylen, "open O_WRONLY", target);
	}
	k = ctx_fd(c, klog_open(why, whylen));
	if (k < 0)
		return -1;
	snprintf(comm, sizeof(comm), "dwprm-%s", audit_ops[a->op]);
	if (child_run(comm, audit_op, a, out, sizeof(out), &err, &pid, why,
		      whylen) ||
	    klog_record(k, pid, WAIT_MS, body, sizeof(body), why, whylen) ||
	    audit_expected(a, pid, comm, want, sizeof(want), why, whylen))
		return -1;
	if (strcmp(body, want)) {
		snprintf(why, whylen, "the record reads '%s', expected '%s'", body,
			 want);
		return -1;
	}
	return err;
}

#define AUDIT_WRITES 3

/* A writer of the running prog writes it AUDIT_WRITES times (its first
 * byte, as it was): each must succeed. */
int case_audit_count(struct ctx *c, const void *arg, char *why,
		     size_t whylen)
{
	const struct audit_count_arg *a = arg;
	int fd = -1;

	if (a->how == AW_OLD_FD &&
	    (fd = ctx_fd(c, open(PRM_PROG, O_RDWR | O_CLOEXEC))) < 0)
		return say(why, whylen, "open O_RDWR", PRM_PROG);
	if (!ctx_run(c, PRM_PROG, why, whylen))
		return -1;
	if (a->how != AW_OLD_FD) {
		fd = ctx_fd(c, open(PRM_PROG, O_WRONLY | O_CLOEXEC |
				    (a->how == AW_TRUNCATING_FD ? O_TRUNC : 0)));
		if (fd < 0)
			return errno;
	}
	for (int i = 0; i < AUDIT_WRITES; i++)
		if (pwrite(fd, "\x7f", 1, 0) != 1)
			return errno;
	return 0;
}

/* --- query ------------------------------------------------------------- */

int prep_query(struct ctx *c, const void *arg, char *why, size_t whylen)
{
	(void)c;
	(void)arg;
	if (mkdir(PRM_Q, 0700) || chmod(PRM_Q, 0700))
		return say(why, whylen, "mkdir 0700", PRM_Q);
	if (write_file(PRM_Q_FILE, "x", 0644))
		return say(why, whylen, "write", PRM_Q_FILE);
	return 0;
}

/* In query_as: say in out why the child could not do its part. */
static int child_setup_failed(char *out, size_t outlen, const char *what)
{
	snprintf(out, outlen, "setup: %s: %s", what, errtxt(errno));
	return 0;
}

/* In a child: open query with one effective uid, write the path with
 * another; the write's errno, the answer in out, or "setup: ..." in out. */
static int query_as(const void *arg, char *out, size_t outlen)
{
	const struct query_arg *a = arg;
	int fd;
	ssize_t n;

	if (seteuid(a->opener))
		return child_setup_failed(out, outlen, "seteuid (opener)");
	fd = open(sfs_path("query"), O_RDWR);
	if (fd < 0)
		return child_setup_failed(out, outlen, "open query");
	if (seteuid(0) || seteuid(a->writer))
		return child_setup_failed(out, outlen, "seteuid (writer)");
	if (write(fd, PRM_Q_FILE, strlen(PRM_Q_FILE)) < 0)
		return errno;
	n = pread(fd, out, outlen - 1, 0);
	out[n > 0 ? n : 0] = '\0';
	return 0;
}

int case_query(struct ctx *c, const void *arg, char *why, size_t whylen)
{
	const struct query_arg *a = arg;
	char out[512];
	pid_t pid;
	int err;

	(void)c;
	if (child_run("dwprm-query", query_as, a, out, sizeof(out), &err, &pid,
		      why, whylen))
		return -1;
	if (!strncmp(out, "setup: ", 7)) {
		snprintf(why, whylen, "%s", out);
		return -1;
	}
	if (!err && a->answer && strcmp(out, a->answer)) {
		snprintf(why, whylen, "query answered '%s', expected '%s'",
			 escaped(out, strlen(out)),
			 escaped(a->answer, strlen(a->answer)));
		return -1;
	}
	return err;
}
