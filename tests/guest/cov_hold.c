/* cov_hold.c - how a coverage case puts its file in place and holds it
 * (see coverage.h), and the probes that open it for writing. */
#include "coverage.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

const char *bin(const char *name)
{
	static char dir[PATH_MAX], buf[4][PATH_MAX + 64];
	static int slot;

	if (!dir[0]) {
		ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
		char *slash;

		dir[n > 0 ? n : 0] = '\0';
		slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
	}
	slot = (slot + 1) % 4;
	snprintf(buf[slot], sizeof(buf[slot]), "%s/%s", dir, name);
	return buf[slot];
}

void run_init(struct run *r)
{
	memset(r, 0, sizeof(*r));
	r->proc.pid = r->proc.ready = r->proc.out = -1;
	r->helper.pid = r->helper.cmd = r->helper.res = -1;
	r->fd = r->srcfd = r->dirfd = -1;
	r->target[0].dirfd = r->target[1].dirfd = AT_FDCWD;
}

/* Ask a helper to finish (it kills and reaps its own child, then
 * answers), then stop it. */
static void helper_quit(struct helper *h)
{
	int ack;

	if (h->pid > 0 && helper_send(h, 'q') == 0 &&
	    helper_recv(h, &ack, 1, WAIT_MS))
		fprintf(stderr, "coverage: helper %d did not finish: %s\n",
			(int)h->pid, errtxt(errno));
	helper_stop(h);
}

void run_cleanup(struct run *r)
{
	int *fds[] = { &r->fd, &r->srcfd, &r->dirfd };

	proc_kill(&r->proc);
	helper_quit(&r->helper);
	if (r->map)
		munmap(r->map, r->maplen);
	r->map = NULL;
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

static const char *const mounts[] = {
	OVL_MERGED, COV_DIR "/lazy", COV_DIR "/noexec",
};

void teardown_mounts(void)
{
	for (size_t i = 0; i < sizeof(mounts) / sizeof(mounts[0]); i++)
		umount2(mounts[i], MNT_DETACH);
	disks_unmount();
	rm_rf(COV_DIR);
}

int sfs_write(const char *name, const char *text)
{
	char path[256];
	size_t len = strlen(text);
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/%s", SFS_DIR, name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (write(fd, text, len) != (ssize_t)len)
		err = errno ? errno : EIO;
	close(fd);
	return err;
}

static void set_target(struct target *t, int dirfd, const char *a,
		       const char *b)
{
	t->dirfd = dirfd;
	snprintf(t->path, sizeof(t->path), "%s%s%s", a, b ? "/" : "",
		 b ? b : "");
}

/* Copy src (NULL: the sleeper) to dir/name, owned by owner. */
static int place(const char *src, const char *dir, const char *name,
		 uid_t owner, char *why, size_t whylen)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!src)
		src = bin("sleeper");
	if (copy_fresh(src, path, 0755) || chmod(path, owner ? 0644 : 0755) ||
	    chown(path, owner, owner)) {
		snprintf(why, whylen, "copy %s to %s: %s", src, path,
			 errtxt(errno));
		return -1;
	}
	return 0;
}

/* --- prep: files and mounts -------------------------------------------- */

int prep_overlay(const struct cov_case *c, struct run *r, char *why,
		 size_t whylen)
{
	const struct ovl_file *f = c->prep_arg;
	const char *layer = f->lower ? OVL_DIR "/lower" : OVL_DIR "/upper";
	static const char *const dirs[] = {
		OVL_DIR "/lower", OVL_DIR "/upper", OVL_DIR "/work", OVL_MERGED,
	};

	umount2(OVL_MERGED, MNT_DETACH);
	if (rm_rf(OVL_DIR)) {
		snprintf(why, whylen, "rm -rf %s: %s", OVL_DIR, errtxt(errno));
		return -1;
	}
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (mkdir_p(dirs[i], 0755)) {
			snprintf(why, whylen, "mkdir %s: %s", dirs[i],
				 errtxt(errno));
			return -1;
		}
	if (place(f->src, layer, f->name, 0, why, whylen))
		return -1;
	if (mount("overlay", OVL_MERGED, "overlay", 0,
		  "lowerdir=" OVL_DIR "/lower,upperdir=" OVL_DIR
		  "/upper,workdir=" OVL_DIR "/work")) {
		snprintf(why, whylen, "mount overlay on %s: %s", OVL_MERGED,
			 errtxt(errno));
		return -1;
	}
	set_target(&r->target[0], AT_FDCWD, OVL_MERGED, f->name);
	set_target(&r->target[1], AT_FDCWD, layer, f->name);
	return 0;
}

int prep_plain(const struct cov_case *c, struct run *r, char *why,
	       size_t whylen)
{
	const struct plain_file *f = c->prep_arg;

	umount2(f->dir, MNT_DETACH);
	if (rm_rf(f->dir) || mkdir_p(f->dir, 0755)) {
		snprintf(why, whylen, "fresh directory %s: %s", f->dir,
			 errtxt(errno));
		return -1;
	}
	if (f->tmpfs_opts &&
	    mount("cov", f->dir, "tmpfs", f->mnt_flags, f->tmpfs_opts)) {
		snprintf(why, whylen, "mount tmpfs on %s: %s", f->dir,
			 errtxt(errno));
		return -1;
	}
	r->dir = f->dir;
	r->name = f->name;
	set_target(&r->target[0], AT_FDCWD, f->dir, f->name);
	return place(f->src, f->dir, f->name, f->owner, why, whylen);
}

/* --- starting programs by descriptor ----------------------------------- */

struct exec_at {
	int dirfd;
	const char *name;
	int flags;
};

static int do_exec_at(const struct exec_at *x)
{
	char *argv[] = { "prog", NULL };

	execveat(x->dirfd, x->name, argv, environ, x->flags);
	return errno;
}

/* Fork a child that sets up the readiness pipe, then runs fn(arg), which
 * execs or returns an errno; wait until the program says it runs. */
static int spawn_fn(struct proc *p, int (*fn)(const void *), const void *arg,
		    char *why, size_t whylen)
{
	int rp[2];
	char c;
	ssize_t n;

	p->pid = p->ready = p->out = -1;
	if (pipe2(rp, O_CLOEXEC)) {
		snprintf(why, whylen, "pipe: %s", errtxt(errno));
		return -1;
	}
	fflush(NULL);
	p->pid = fork();
	if (p->pid == 0) {
		char env[16], msg[1 + sizeof(int)] = "E";
		int e;

		fcntl(rp[1], F_SETFD, 0);
		snprintf(env, sizeof(env), "%d", rp[1]);
		setenv("DWTEST_READY_FD", env, 1);
		e = fn(arg);
		memcpy(msg + 1, &e, sizeof(e));
		if (write(rp[1], msg, sizeof(msg)) < 0) {
			/* nobody to tell */
		}
		_exit(127);
	}
	close(rp[1]);
	p->ready = rp[0];
	if (p->pid < 0) {
		snprintf(why, whylen, "fork: %s", errtxt(errno));
		return -1;
	}
	n = read_timeout(p->ready, &c, 1, WAIT_MS);
	if (n == 1 && c == 'R')
		return 0;
	if (n == 1 && c == 'E') {
		int e = EIO;

		if (read_timeout(p->ready, &e, sizeof(e), 1000) != sizeof(e))
			e = EIO;
		snprintf(why, whylen, "starting the program failed: %s",
			 errtxt(e));
	} else if (n == 0) {
		snprintf(why, whylen, "the program exited before it was ready");
	} else {
		snprintf(why, whylen, "the program was not ready within %d ms",
			 WAIT_MS);
	}
	proc_kill(p);
	return -1;
}

static int exec_at_fn(const void *arg)
{
	return do_exec_at(arg);
}

/* The sleeper written into a memfd, reopened read-only through
 * /proc/self/fd, the writable fd closed, then executed from fd 200. */
#define MEMFD_EXEC_FD 200
static int exec_memfd_fn(const void *arg)
{
	const struct exec_at x = { MEMFD_EXEC_FD, "", AT_EMPTY_PATH };
	char path[64];
	struct stat st;
	int in, mfd, ro;

	(void)arg;
	in = open(bin("sleeper"), O_RDONLY | O_CLOEXEC);
	mfd = memfd_create("cov-sleeper", MFD_CLOEXEC);
	if (in < 0 || mfd < 0 || fstat(in, &st))
		return errno;
	for (off_t left = st.st_size; left > 0;) {
		ssize_t n = sendfile(mfd, in, NULL, (size_t)left);

		if (n <= 0)
			return n < 0 ? errno : EIO;
		left -= n;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", mfd);
	ro = open(path, O_RDONLY);
	if (ro < 0 || dup2(ro, MEMFD_EXEC_FD) < 0)
		return errno;
	close(ro);
	close(mfd);
	close(in);
	return do_exec_at(&x);
}

int hold_memfd(const struct cov_case *c, struct run *r, char *why,
	       size_t whylen)
{
	(void)c;
	if (spawn_fn(&r->proc, exec_memfd_fn, NULL, why, whylen))
		return -1;
	snprintf(r->target[0].path, sizeof(r->target[0].path), "/proc/%d/fd/%d",
		 (int)r->proc.pid, MEMFD_EXEC_FD);
	snprintf(r->target[1].path, sizeof(r->target[1].path), "/proc/%d/exe",
		 (int)r->proc.pid);
	return 0;
}

/* Run r->name through a detached clone of r->dir. */
int hold_open_tree(const struct cov_case *c, struct run *r, char *why,
		   size_t whylen)
{
	struct exec_at x = { -1, r->name, 0 };

	(void)c;
	r->dirfd = open_tree(AT_FDCWD, r->dir, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (r->dirfd < 0) {
		snprintf(why, whylen, "open_tree(%s, OPEN_TREE_CLONE): %s", r->dir,
			 errtxt(errno));
		return -1;
	}
	x.dirfd = r->dirfd;
	return spawn_fn(&r->proc, exec_at_fn, &x, why, whylen);
}

/* Keep an O_PATH fd of the tmpfs on r->dir, unmount it lazily, run
 * r->name through the fd; the probe writes through the fd too. */
int hold_lazy_umount(const struct cov_case *c, struct run *r, char *why,
		     size_t whylen)
{
	struct exec_at x = { -1, r->name, 0 };

	(void)c;
	r->dirfd = open(r->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (r->dirfd < 0 || umount2(r->dir, MNT_DETACH)) {
		snprintf(why, whylen, "open O_PATH and umount -l %s: %s", r->dir,
			 errtxt(errno));
		return -1;
	}
	x.dirfd = r->dirfd;
	set_target(&r->target[0], r->dirfd, r->name, NULL);
	return spawn_fn(&r->proc, exec_at_fn, &x, why, whylen);
}

/* --- the pivot_root helper --------------------------------------------- */

enum pivot_stage { PV_OK, PV_OPEN, PV_UNSHARE, PV_ROOT_BIND, PV_NEW_ROOT,
		   PV_PIVOT, PV_RELOAD, PV_SPAWN };
static const char *const pivot_stages[] = {
	"ok", "open the program O_PATH", "unshare(CLONE_NEWNS)",
	"make / a bind mount", "mount the new root and bind securityfs",
	"pivot_root", "clear and load 'exec /' from inside",
	"run the program through the fd kept from before",
};

/* pivot_root refuses the initramfs' rootfs, which has no parent mount, so
 * first make / a bind mount of itself, as container runtimes do there. */
static int root_to_bind_mount(const char *dir)
{
	char rb[PATH_MAX];

	snprintf(rb, sizeof(rb), "%s/rootbind", dir);
	if (mkdir_p(rb, 0755) || mount("/", rb, NULL, MS_BIND | MS_REC, NULL) ||
	    chdir(rb) || mount(".", "/", NULL, MS_MOVE, NULL) || chroot(".") ||
	    chdir("/"))
		return -1;
	return 0;
}

static int pivot_into_tmpfs(const char *dir)
{
	char nr[PATH_MAX], sec[PATH_MAX + 32], old[PATH_MAX + 32];

	snprintf(nr, sizeof(nr), "%s/newroot", dir);
	snprintf(sec, sizeof(sec), "%s/sys/kernel/security", nr);
	snprintf(old, sizeof(old), "%s/old", nr);
	if (mkdir_p(nr, 0755) || mount("cov-root", nr, "tmpfs", 0, "mode=0755") ||
	    mkdir_p(sec, 0755) || mkdir_p(old, 0755) ||
	    mount("/sys/kernel/security", sec, NULL, MS_BIND, NULL))
		return PV_NEW_ROOT;
	if (syscall(SYS_pivot_root, nr, old) || chdir("/") ||
	    umount2("/old", MNT_DETACH))
		return PV_PIVOT;
	return PV_OK;
}

/* Sends {stage reached, errno, errno of the add}, then waits for a
 * command, kills the program and answers. */
static void pivot_helper(int cmd, int res, void *arg)
{
	const struct run *r = arg;
	struct exec_at x = { -1, "", AT_EMPTY_PATH };
	struct proc p = { -1, -1, -1 };
	char path[PATH_MAX], why[256], c;
	int out[3] = { PV_OK, 0, 0 };

	snprintf(path, sizeof(path), "%s/%s", r->dir, r->name);
	x.dirfd = open(path, O_PATH | O_CLOEXEC); /* kept from before */
	if (x.dirfd < 0)
		out[0] = PV_OPEN;
	else if (unshare(CLONE_NEWNS) ||
		 mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		out[0] = PV_UNSHARE;
	else if (root_to_bind_mount(r->dir))
		out[0] = PV_ROOT_BIND;
	else
		out[0] = pivot_into_tmpfs(r->dir);
	out[1] = errno;
	if (out[0] == PV_OK) {
		out[2] = sfs_write("add", "exec /\n");
		out[1] = sfs_write("rules", "\n");
		if (!out[1])
			out[1] = sfs_write("rules", "exec /\n");
		if (out[1])
			out[0] = PV_RELOAD;
	}
	if (out[0] == PV_OK && spawn_fn(&p, exec_at_fn, &x, why, sizeof(why))) {
		fprintf(stderr, "coverage: pivot helper: %s\n", why);
		out[0] = PV_SPAWN;
		out[1] = EIO;
	}
	send_ints(res, out, 3);
	while (read(cmd, &c, 1) < 0 && errno == EINTR)
		;
	proc_kill(&p);
	send_ints(res, out, 1);
	_exit(0);
}

int hold_pivot_root(const struct cov_case *c, struct run *r, char *why,
		    size_t whylen)
{
	int out[3];

	(void)c;
	if (helper_start(&r->helper, pivot_helper, r) ||
	    helper_recv(&r->helper, out, 3, WAIT_MS)) {
		snprintf(why, whylen, "pivot_root helper: %s", errtxt(errno));
		return -1;
	}
	if (out[0] != PV_OK) {
		snprintf(why, whylen, "in a new mount namespace: %s: %s",
			 pivot_stages[out[0]], errtxt(out[1]));
		return -1;
	}
	r->result[0] = out[2];
	return 0;
}

/* --- mappings ---------------------------------------------------------- */

static int become(uid_t uid)
{
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid))
		return -1;
	return 0;
}

struct map_job {
	const struct map_def *m;
	const char *path;
};

enum map_stage { MS_MAPPED, MS_BECOME, MS_OPEN, MS_MMAP, MS_MPROTECT };
static const char *const map_stages[] = {
	"ok", "setuid", "open", "mmap", "mprotect",
};

/* Sends {stage reached, errno}, then holds the mapping until told. */
static void map_helper(int cmd, int res, void *arg)
{
	const struct map_job *j = arg;
	int out[2] = { MS_MAPPED, 0 }, fd = -1;
	void *p = MAP_FAILED;
	char c;

	if (j->m->uid && become(j->m->uid))
		out[0] = MS_BECOME;
	else if ((fd = open(j->path, O_RDONLY | O_CLOEXEC)) < 0)
		out[0] = MS_OPEN;
	else if ((p = mmap(NULL, 4096, j->m->prot, MAP_PRIVATE, fd, 0)) ==
		 MAP_FAILED)
		out[0] = MS_MMAP;
	out[1] = errno;
	if (fd >= 0 && !j->m->keep_fd)
		close(fd); /* as ld.so does */
	if (out[0] == MS_MAPPED && j->m->mprot && mprotect(p, 4096, j->m->mprot)) {
		out[0] = MS_MPROTECT;
		out[1] = errno;
	}
	if (out[0] == MS_MAPPED)
		out[1] = 0;
	send_ints(res, out, 2);
	while (read(cmd, &c, 1) < 0 && errno == EINTR)
		;
	send_ints(res, out, 1);
	_exit(0);
}

int hold_map(const struct cov_case *c, struct run *r, char *why,
	     size_t whylen)
{
	const struct map_def *m = c->hold_arg;
	const struct map_job job = { m, r->target[0].path };
	int out[2];

	if (helper_start(&r->helper, map_helper, (void *)&job) ||
	    helper_recv(&r->helper, out, 2, WAIT_MS)) {
		snprintf(why, whylen, "mapping helper: %s", errtxt(errno));
		return -1;
	}
	/* A mapping expected to fail is a check of its own: record it. */
	if (m->want_err && (out[0] == MS_MAPPED || out[0] == MS_MMAP)) {
		r->result[0] = out[1];
		return 0;
	}
	if (out[0] != MS_MAPPED) {
		snprintf(why, whylen, "uid %u, %s %s: %s", (unsigned)m->uid,
			 map_stages[out[0]], job.path, errtxt(out[1]));
		return -1;
	}
	return 0;
}

/* --- programs by path -------------------------------------------------- */

int hold_spawn(const struct cov_case *c, struct run *r, char *why,
	       size_t whylen)
{
	const struct spawn_def *s = c->hold_arg;
	const char *path = s->prog ? bin(s->prog) : r->target[0].path;
	char *argv[] = { (char *)path, s->target_arg ? r->target[0].path : NULL,
			 NULL };
	int exec_err = 0, err = 0;

	if (s->lib_path)
		setenv("LD_LIBRARY_PATH", s->lib_path, 1);
	if (proc_spawn(&r->proc, path, argv, 0, -1))
		err = errno;
	unsetenv("LD_LIBRARY_PATH");
	if (err) {
		snprintf(why, whylen, "spawn %s: %s", path, errtxt(err));
		return -1;
	}
	if (proc_wait_ready(&r->proc, path, NULL, WAIT_MS, &exec_err, why,
			    whylen)) {
		proc_kill(&r->proc);
		return -1;
	}
	return 0;
}

/* --- probes ------------------------------------------------------------ */

/* open(O_WRONLY) of target[k->idx] as k->uid: the errno. */
int probe_write(struct run *r, const struct check *k, char *why, size_t whylen)
{
	const struct target *t = &r->target[k->idx];
	pid_t pid;
	int st;

	if (k->uid == 0) {
		int fd = openat(t->dirfd, t->path, O_WRONLY | O_CLOEXEC);

		if (fd < 0)
			return errno;
		close(fd);
		return 0;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int fd;

		if (become(k->uid))
			_exit(255);
		fd = openat(t->dirfd, t->path, O_WRONLY | O_CLOEXEC);
		_exit(fd < 0 ? errno : 0);
	}
	if (pid < 0 || reap_pid(pid, WAIT_MS, &st)) {
		snprintf(why, whylen, "writer as uid %u: %s", (unsigned)k->uid,
			 errtxt(errno));
		if (pid > 0)
			kill(pid, SIGKILL);
		return -1;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) == 255) {
		snprintf(why, whylen, "writer as uid %u: could not switch user "
			 "(wait status 0x%x)", (unsigned)k->uid, st);
		return -1;
	}
	return WEXITSTATUS(st);
}

int probe_result(struct run *r, const struct check *k, char *why,
		 size_t whylen)
{
	(void)why;
	(void)whylen;
	return r->result[k->idx];
}

/* execve of target[0]: its errno; a started program is kept in r->proc. */
int probe_exec(struct run *r, const struct check *k, char *why, size_t whylen)
{
	const char *path = r->target[k->idx].path;
	int exec_err = 0;

	if (spawn_ready(&r->proc, path, path, NULL, &exec_err, why, whylen))
		return exec_err ? exec_err : -1;
	return 0;
}
