// SPDX-License-Identifier: GPL-2.0
/*
 * denywrite selftests: what a process may and may not do to a file that is
 * executed or mapped executable, as root and as an unprivileged user.
 *
 * Run as root on a kernel booted with denywrite in lsm= (else every test is
 * skipped), with denywrite_sleep, the program the tests run, next to this
 * one.  The basic behaviour comes first: a running program and a mapped
 * library refuse writers, a file open for writing does not run, in each
 * mode.  The tests of an ext4 filesystem need DENYWRITE_TEST_EXT4, the path
 * of an ext4 image they may change (a copy); without it they are skipped.
 */

#define _GNU_SOURCE
#include <linux/auto_fs.h>
#include <linux/elf.h>
#include <linux/ext4.h>
#include <linux/fanotify.h>
#include <linux/io_uring.h>
#include <linux/mount.h>
#include <sched.h>
#include <sys/fanotify.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/xattr.h>

#include "common.h"
#include "../kselftest_harness.h"

#ifndef FAN_REPORT_FD_ERROR
#define FAN_REPORT_FD_ERROR	0x00002000
#endif
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE		1
#endif
#ifndef SYS_open_tree
#define SYS_open_tree		428
#endif

/* Detach what a test mounted under @dir, the last mount first. */
static void umount_all(const char *dir)
{
	char line[PATH_MAX + 256], mnt[16][PATH_MAX];
	size_t len = strlen(dir);
	int n = 0;
	FILE *f = fopen("/proc/self/mounts", "r");

	while (f && fgets(line, sizeof(line), f) && n < 16)
		if (sscanf(line, "%*s %4095s", mnt[n]) == 1 &&
		    !strncmp(mnt[n], dir, len) && mnt[n][len] == '/')
			n++;
	if (f)
		fclose(f);
	while (n--)
		umount2(mnt[n], MNT_DETACH);
}

/*
 * Every test keeps the mode and rules it found, and works in a directory of
 * its own, where prog and lib.so are copies of denywrite_sleep.
 */
FIXTURE(dw) {
	char mode[16];
	char rules[65536];
	char sleep_prog[PATH_MAX];
	char dir[PATH_MAX - 32];
	char prog[PATH_MAX];
	char lib[PATH_MAX];
};

FIXTURE_SETUP(dw)
{
	const char *inactive = denywrite_inactive();

	if (inactive)
		SKIP(return, "%s", inactive);
	ASSERT_EQ(0, sleep_prog_path(self->sleep_prog, sizeof(self->sleep_prog)))
		TH_LOG("%s: %s", self->sleep_prog, strerror(errno));
	ASSERT_LT(0, sfs_read("mode", self->mode, sizeof(self->mode)));
	ASSERT_LE(0, sfs_read("rules", self->rules, sizeof(self->rules)));
	ASSERT_EQ(0, make_test_dir(self->dir, sizeof(self->dir)))
		TH_LOG("mkdtemp: %s", strerror(errno));
	snprintf(self->prog, sizeof(self->prog), "%s/prog", self->dir);
	snprintf(self->lib, sizeof(self->lib), "%s/lib.so", self->dir);
	ASSERT_EQ(0, copy_file(self->sleep_prog, self->prog, 0755));
	ASSERT_EQ(0, copy_file(self->sleep_prog, self->lib, 0644));
}

FIXTURE_TEARDOWN(dw)
{
	EXPECT_EQ(0, policy_set(strtok(self->mode, "\n"), self->rules));
	umount_all(self->dir);
	EXPECT_EQ(0, remove_tree(self->dir));
}

/* --- the basic behaviour ------------------------------------------------- */

/*
 * A running program refuses an open for writing, counted in denied_write;
 * once it exits, the file is writable again.
 */
TEST_F(dw, write_to_running_program_denied_in_enforce)
{
	long long before;
	struct proc p;

	ASSERT_EQ(0, policy_set("enforce", strf("exec %s", self->dir)));
	p = run(self->prog);
	ASSERT_LT(0, p.pid);
	before = stat_value("denied_write");
	ASSERT_LE(0, before);
	EXPECT_EQ(ETXTBSY, open_err(self->prog, O_WRONLY));
	EXPECT_EQ(before + 1, stat_value("denied_write"));
	proc_stop(&p);
	EXPECT_EQ(0, open_err(self->prog, O_WRONLY));
}

/* Without a rule that covers it, a running program is writable. */
TEST_F(dw, write_to_running_program_outside_every_rule_allowed)
{
	struct proc p;

	ASSERT_EQ(0, policy_set("enforce", ""));
	p = run(self->prog);
	ASSERT_LT(0, p.pid);
	EXPECT_EQ(0, open_err(self->prog, O_WRONLY));
	proc_stop(&p);
}

/* A file open for writing does not run, counted in denied_exec. */
TEST_F(dw, exec_of_file_open_for_writing_denied_in_enforce)
{
	long long before;
	struct proc p;
	int fd;

	ASSERT_EQ(0, policy_set("enforce", strf("exec %s", self->dir)));
	fd = open(self->prog, O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	before = stat_value("denied_exec");
	ASSERT_LE(0, before);
	p = run(self->prog);
	EXPECT_EQ(0, p.pid);
	EXPECT_EQ(ETXTBSY, p.err);
	proc_stop(&p);
	EXPECT_EQ(before + 1, stat_value("denied_exec"));
	close(fd);
	p = run(self->prog);
	EXPECT_LT(0, p.pid);
	proc_stop(&p);
}

/*
 * Under "ignore-writers" a file open for writing runs, and the running
 * program refuses new writers all the same.
 */
TEST_F(dw, exec_of_file_open_for_writing_allowed_under_ignore_writers)
{
	struct proc p;
	int fd;

	ASSERT_EQ(0, policy_set("enforce",
				strf("exec,ignore-writers %s", self->dir)));
	fd = open(self->prog, O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	p = run(self->prog);
	EXPECT_LT(0, p.pid);
	EXPECT_EQ(0, p.err);
	close(fd);
	EXPECT_EQ(ETXTBSY, open_err(self->prog, O_WRONLY));
	proc_stop(&p);
}

/* Map @path executable, as the dynamic linker maps a library. */
static void *map_lib(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	void *m;

	if (fd < 0)
		return MAP_FAILED;
	m = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	close(fd);
	return m;
}

/*
 * A library mapped executable under a "lib" rule refuses an open for
 * writing until it is unmapped.
 */
TEST_F(dw, write_to_library_mapped_under_lib_rule_denied)
{
	void *m;

	ASSERT_EQ(0, policy_set("enforce", strf("lib %s", self->dir)));
	m = map_lib(self->lib);
	ASSERT_NE(MAP_FAILED, m);
	EXPECT_EQ(ETXTBSY, open_err(self->lib, O_WRONLY));
	munmap(m, 4096);
	EXPECT_EQ(0, open_err(self->lib, O_WRONLY));
}

/* An "exec" rule does not cover a library mapped executable. */
TEST_F(dw, write_to_library_mapped_under_exec_rule_only_allowed)
{
	void *m;

	ASSERT_EQ(0, policy_set("enforce", strf("exec %s", self->dir)));
	m = map_lib(self->lib);
	ASSERT_NE(MAP_FAILED, m);
	EXPECT_EQ(0, open_err(self->lib, O_WRONLY));
	munmap(m, 4096);
}

/*
 * In @mode, under @rule, a running program is opened for writing twice:
 * both opens succeed, denied_write does not move and audited grows by
 * @audited.
 */
static void writes_to_running_program(struct __test_metadata *_metadata,
				      const char *prog, const char *mode,
				      const char *rule, long long audited)
{
	long long denied_before, audited_before;
	struct proc p;

	ASSERT_EQ(0, policy_set(mode, rule));
	p = run(prog);
	ASSERT_LT(0, p.pid);
	denied_before = stat_value("denied_write");
	audited_before = stat_value("audited");
	ASSERT_LE(0, denied_before);
	ASSERT_LE(0, audited_before);
	EXPECT_EQ(0, open_err(prog, O_WRONLY));
	EXPECT_EQ(0, open_err(prog, O_WRONLY));
	EXPECT_EQ(denied_before, stat_value("denied_write"));
	EXPECT_EQ(audited_before + audited, stat_value("audited"));
	proc_stop(&p);
}

/* In mode off nothing is refused, and nothing is counted. */
TEST_F(dw, write_to_running_program_allowed_in_mode_off)
{
	writes_to_running_program(_metadata, self->prog, "off",
				  strf("exec %s", self->dir), 0);
}

/*
 * In mode audit what enforce refuses is allowed and counted in audited,
 * not in denied_write: each open for writing once.
 */
TEST_F(dw, write_to_running_program_allowed_and_counted_in_audit)
{
	writes_to_running_program(_metadata, self->prog, "audit",
				  strf("exec %s", self->dir), 2);
}

/*
 * In mode audit a file open for writing runs, counted in audited, not in
 * denied_exec.
 */
TEST_F(dw, exec_of_file_open_for_writing_allowed_and_counted_in_audit)
{
	long long denied, audited;
	struct proc p;
	int fd;

	ASSERT_EQ(0, policy_set("audit", strf("exec %s", self->dir)));
	fd = open(self->prog, O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	denied = stat_value("denied_exec");
	audited = stat_value("audited");
	ASSERT_LE(0, denied);
	ASSERT_LE(0, audited);
	p = run(self->prog);
	EXPECT_LT(0, p.pid);
	EXPECT_EQ(audited + 1, stat_value("audited"));
	EXPECT_EQ(denied, stat_value("denied_exec"));
	proc_stop(&p);
	close(fd);
}

/* --- a reader never locks what others may write ------------------------ */

struct map_args {
	const char *path;
	int oflags;
	size_t len;
	off_t offset;
};

/* As the child's user: open and map PROT_EXEC; the mmap's errno. */
static int map_exec(void *arg)
{
	struct map_args *a = arg;
	int fd = open(a->path, a->oflags);

	if (fd < 0)
		return -errno;
	if (mmap(NULL, a->len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd,
		 a->offset) == MAP_FAILED)
		return errno;
	return 0;
}

/* uid 65534 maps @path as @a says; then root opens it for writing. */
static int write_while_nobody_maps(struct __test_metadata *_metadata,
				   struct map_args *a, int map_err)
{
	struct child c = child_as(NOBODY, map_exec, a);
	int err;

	EXPECT_LT(0, c.pid);
	EXPECT_EQ(map_err, c.result);
	err = open_err(a->path, O_WRONLY);
	child_stop(&c);
	return err;
}

/*
 * A mapping that do_mmap() refuses for its arguments holds the file until
 * the file is closed: the hook runs before the arguments are checked, and
 * the caller could take the same hold with a mapping that succeeds (the
 * admin guide's limits).  A length of 0, then an offset past what a file
 * may hold.
 */
TEST_F(dw, failed_mmap_length_zero_as_nobody_holds_until_closed_documented)
{
	struct map_args a = { self->lib, O_RDONLY, 0, 0 };

	ASSERT_EQ(0, policy_set("enforce", "all /"));
	EXPECT_EQ(ETXTBSY, write_while_nobody_maps(_metadata, &a, EINVAL));
	EXPECT_EQ(0, open_err(self->lib, O_WRONLY));
}

TEST_F(dw, failed_mmap_bad_offset_as_nobody_holds_until_closed_documented)
{
	struct map_args a = { self->lib, O_RDONLY, 4096, 0x7ffffffffffff000LL };

	ASSERT_EQ(0, policy_set("enforce", strf("lib %s", self->dir)));
	EXPECT_EQ(ETXTBSY, write_while_nobody_maps(_metadata, &a, EOVERFLOW));
	EXPECT_EQ(0, open_err(self->lib, O_WRONLY));
}

TEST_F(dw, failed_mmap_without_read_access_takes_no_hold)
{
	struct map_args a = { self->lib, O_WRONLY, 4096, 0 };

	ASSERT_EQ(0, chown(self->lib, NOBODY, NOBODY));
	ASSERT_EQ(0, policy_set("enforce", "all /"));
	EXPECT_EQ(0, write_while_nobody_maps(_metadata, &a, EACCES));
}

TEST_F(dw, mmap_as_nobody_of_group_writable_root_file_takes_no_hold)
{
	struct map_args a = { self->lib, O_RDONLY, 4096, 0 };

	ASSERT_EQ(0, chmod(self->lib, 0664));
	ASSERT_EQ(0, policy_set("enforce", "all /"));
	EXPECT_EQ(0, write_while_nobody_maps(_metadata, &a, 0));
}

/* A POSIX ACL entry that lets uid 65533 write the file (its mask too). */
static int acl_user_write(const char *path, uid_t uid)
{
	struct {
		__u32 version;
		struct {
			__u16 tag, perm;
			__u32 id;
		} e[5];
	} acl = { 2, {
		{ 0x01, 6, -1 },	/* ACL_USER_OBJ rw */
		{ 0x02, 6, uid },	/* ACL_USER rw */
		{ 0x04, 4, -1 },	/* ACL_GROUP_OBJ r */
		{ 0x10, 6, -1 },	/* ACL_MASK rw */
		{ 0x20, 4, -1 },	/* ACL_OTHER r */
	} };

	return setxattr(path, "system.posix_acl_access", &acl, sizeof(acl), 0);
}

TEST_F(dw, mmap_as_nobody_of_root_file_with_write_acl_takes_no_hold)
{
	struct map_args a = { self->lib, O_RDONLY, 4096, 0 };

	ASSERT_EQ(0, acl_user_write(self->lib, NOBODY - 1));
	ASSERT_EQ(0, policy_set("enforce", strf("lib %s", self->dir)));
	EXPECT_EQ(0, write_while_nobody_maps(_metadata, &a, 0));
}

TEST_F(dw, mmap_as_nobody_of_root_file_only_root_may_write_denied)
{
	struct map_args a = { self->lib, O_RDONLY, 4096, 0 };

	ASSERT_EQ(0, policy_set("enforce", strf("lib %s", self->dir)));
	EXPECT_EQ(ETXTBSY, write_while_nobody_maps(_metadata, &a, 0));
	ASSERT_EQ(0, policy_set("enforce", "all /"));
	EXPECT_EQ(ETXTBSY, write_while_nobody_maps(_metadata, &a, 0));
}

TEST_F(dw, exec_mapping_of_dev_zero_takes_no_hold)
{
	long long before;
	void *p;
	int fd;

	ASSERT_EQ(0, policy_set("enforce", "all /"));
	before = stat_value("protected");
	fd = open("/dev/zero", O_RDONLY);
	ASSERT_LE(0, fd);
	p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(before, stat_value("protected"));
	munmap(p, 4096);
	close(fd);
}

/*
 * One mprotect() that makes two mappings executable, of two files: each
 * takes a hold, and both stay until the files are unmapped and closed.
 */
TEST_F(dw, mprotect_exec_over_two_files_holds_both)
{
	const char *lib2 = strf("%s/lib2.so", self->dir);
	char *p;
	int fd[2], round;

	ASSERT_EQ(0, copy_file(self->sleep_prog, lib2, 0644));
	ASSERT_EQ(0, policy_set("enforce", strf("lib %s", self->dir)));
	for (round = 0; round < 2; round++) {
		p = mmap(NULL, 8192, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
		ASSERT_NE(MAP_FAILED, p);
		fd[0] = open(self->lib, O_RDONLY | O_CLOEXEC);
		fd[1] = open(lib2, O_RDONLY | O_CLOEXEC);
		ASSERT_LE(0, fd[0]);
		ASSERT_LE(0, fd[1]);
		ASSERT_EQ(p, mmap(p, 4096, PROT_READ, MAP_PRIVATE | MAP_FIXED,
				  fd[0], 0));
		ASSERT_EQ(p + 4096, mmap(p + 4096, 4096, PROT_READ,
					 MAP_PRIVATE | MAP_FIXED, fd[1], 0));
		EXPECT_EQ(0, open_err(self->lib, O_WRONLY));
		ASSERT_EQ(0, mprotect(p, 8192, PROT_READ | PROT_EXEC));
		EXPECT_EQ(ETXTBSY, open_err(self->lib, O_WRONLY));
		EXPECT_EQ(ETXTBSY, open_err(lib2, O_WRONLY));
		munmap(p, 8192);
		close(fd[0]);
		close(fd[1]);
		EXPECT_EQ(0, open_err(self->lib, O_WRONLY));
		EXPECT_EQ(0, open_err(lib2, O_WRONLY));
	}
}

/* --- writers the exec protocol must see ----------------------------------- */

TEST_F(dw, truncating_read_only_open_of_running_program_denied)
{
	struct proc p;

	ASSERT_EQ(0, policy_set("enforce", "exec /"));
	p = run(self->prog);
	ASSERT_LT(0, p.pid);
	EXPECT_EQ(ETXTBSY, open_err(self->prog, O_RDONLY | O_TRUNC));
	proc_stop(&p);
	EXPECT_EQ(0, open_err(self->prog, O_RDONLY | O_TRUNC));
}

/*
 * The VFS refuses these writers in get_write_access(), before any hook
 * that decides: each refusal is counted where the VFS reports it, by its
 * kind, truncate(2) included.
 */
TEST_F(dw, refused_open_truncate_and_truncate_of_running_program_counted)
{
	long long writes, truncates;
	struct proc p;

	ASSERT_EQ(0, policy_set("enforce", "exec /"));
	p = run(self->prog);
	ASSERT_LT(0, p.pid);
	writes = stat_value("denied_write");
	truncates = stat_value("denied_truncate");
	ASSERT_LE(0, writes);
	ASSERT_LE(0, truncates);
	EXPECT_EQ(ETXTBSY, open_err(self->prog, O_WRONLY));
	EXPECT_EQ(ETXTBSY, open_err(self->prog, O_RDONLY | O_TRUNC));
	EXPECT_EQ(-1, truncate(self->prog, 0));
	EXPECT_EQ(ETXTBSY, errno);
	EXPECT_EQ(writes + 1, stat_value("denied_write"));
	EXPECT_EQ(truncates + 2, stat_value("denied_truncate"));
	proc_stop(&p);
}

/* fanotify opens its event descriptors itself, with dentry_open(). */
TEST_F(dw, fanotify_read_write_event_fd_of_running_program_denied)
{
	struct fanotify_event_metadata ev;
	struct proc p;
	int fan;

	ASSERT_EQ(0, policy_set("enforce", "exec /"));
	p = run(self->prog);
	ASSERT_LT(0, p.pid);
	fan = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FD_ERROR,
			    O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fan);
	ASSERT_EQ(0, fanotify_mark(fan, FAN_MARK_ADD, FAN_OPEN, AT_FDCWD,
				   self->prog));
	ASSERT_EQ(0, open_err(self->prog, O_RDONLY));
	ASSERT_EQ((ssize_t)sizeof(ev), read(fan, &ev, sizeof(ev)));
	if (ev.fd >= 0)
		close(ev.fd);
	EXPECT_EQ(-ETXTBSY, ev.fd);
	close(fan);
	proc_stop(&p);
}

/* A copy of the program @from in a memfd, sealed or not. */
static int memfd_prog(const char *from, bool seal)
{
	int fd = memfd_create("dwself", seal ? MFD_ALLOW_SEALING : 0);
	char buf[65536];
	ssize_t n;
	int in;

	if (fd < 0)
		return -1;
	in = open(from, O_RDONLY | O_CLOEXEC);
	while (in >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(fd, buf, n) != n)
			n = -1;
	close(in);
	if (seal && fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW |
			  F_SEAL_WRITE | F_SEAL_SEAL))
		return -1;
	return fd;
}

/*
 * A memfd never counts its writers (alloc_file_pseudo()): running it while
 * its writable descriptor is open is allowed, and so are writes through
 * that descriptor while it runs, as on the stock kernel, whose exec denial
 * this is under "exec /" in enforce mode; a new open for writing, through
 * /proc/PID/fd, is refused.  Under "ignore-writers" the hooks count the
 * hold, and refuse those writes too.
 */
static void memfd_self_writes(struct __test_metadata *_metadata,
			      const char *sleep_prog, const char *rules,
			      int write_err)
{
	char path[64];
	struct proc p;
	int fd = memfd_prog(sleep_prog, false);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, policy_set("enforce", rules));
	p = run_at(fd, "", AT_EMPTY_PATH);
	ASSERT_LT(0, p.pid);
	errno = 0;
	EXPECT_EQ(write_err ? -1 : 1, pwrite(fd, "x", 1, 0));
	EXPECT_EQ(write_err, errno);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	EXPECT_EQ(ETXTBSY, open_err(path, O_WRONLY));
	proc_stop(&p);
	EXPECT_EQ(1, pwrite(fd, "x", 1, 0));
	close(fd);
}

TEST_F(dw, memfd_program_writes_through_its_own_fd_allowed_as_stock)
{
	memfd_self_writes(_metadata, self->sleep_prog, "exec /", 0);
}

TEST_F(dw, memfd_program_writes_through_its_own_fd_ignore_writers_denied)
{
	memfd_self_writes(_metadata, self->sleep_prog, "exec,ignore-writers /",
			  ETXTBSY);
}

TEST_F(dw, sealed_memfd_program_runs_allowed)
{
	struct proc p;
	int fd = memfd_prog(self->sleep_prog, true);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, policy_set("enforce", "exec /"));
	p = run_at(fd, "", AT_EMPTY_PATH);
	EXPECT_LT(0, p.pid);
	EXPECT_EQ(0, p.err);
	proc_stop(&p);
	close(fd);
}

/*
 * Pages of a tmpfs file pinned long-term (io_uring fixed buffers) are
 * written without the file, after the mapping they were pinned through
 * is gone.  Exec's denial (enforce, "exec /") does not see them, as on
 * the stock kernel: the program runs.  A counted hold ("ignore-writers")
 * looks for them: the file does not run while they are pinned.
 */
static int exec_with_pinned_pages(struct __test_metadata *_metadata,
				  const char *prog, const char *rules)
{
	struct io_uring_params params = {};
	struct stat st;
	struct iovec iov;
	struct proc p;
	int ring, fd, err;

	ASSERT_EQ(0, policy_set("enforce", rules));
	fd = open(prog, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fstat(fd, &st));
	iov.iov_len = (st.st_size + 4095) & ~4095L;
	iov.iov_base = mmap(NULL, iov.iov_len, PROT_READ | PROT_WRITE,
			    MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, iov.iov_base);
	ring = syscall(__NR_io_uring_setup, 4, &params);
	ASSERT_LE(0, ring);
	ASSERT_EQ(0, syscall(__NR_io_uring_register, ring,
			     IORING_REGISTER_BUFFERS, &iov, 1));
	munmap(iov.iov_base, iov.iov_len);
	close(fd);

	p = run(prog);
	err = p.err;
	proc_stop(&p);

	ASSERT_EQ(0, syscall(__NR_io_uring_register, ring,
			     IORING_UNREGISTER_BUFFERS, NULL, 0));
	close(ring);
	p = run(prog);
	EXPECT_LT(0, p.pid);
	proc_stop(&p);
	return err;
}

TEST_F(dw, exec_of_tmpfs_program_with_pinned_pages_allowed_as_stock)
{
	EXPECT_EQ(0, exec_with_pinned_pages(_metadata, self->prog, "exec /"));
}

TEST_F(dw, exec_of_tmpfs_program_with_pinned_pages_ignore_writers_denied)
{
	EXPECT_EQ(ETXTBSY, exec_with_pinned_pages(_metadata, self->prog,
						  "exec,ignore-writers /"));
}

/* --- ignore-writers: old writers reach the file only through a hook --------- */

/*
 * A program run through the upper layer of an overlay holds the upper
 * file; splice() into the merged file, opened before, reaches it.
 */
TEST_F(dw, splice_into_overlay_file_of_program_run_through_upper_layer_denied)
{
	struct proc p;
	int pipefd[2], w;
	const char *d = self->dir;
	loff_t off = 0;

	ASSERT_EQ(0, mkdir(strf("%s/m", d), 0755));
	ASSERT_EQ(0, mount("dw", strf("%s/m", d), "tmpfs", 0, NULL));
	ASSERT_EQ(0, mkdir(strf("%s/m/l", d), 0755));
	ASSERT_EQ(0, mkdir(strf("%s/m/u", d), 0755));
	ASSERT_EQ(0, mkdir(strf("%s/m/w", d), 0755));
	ASSERT_EQ(0, mkdir(strf("%s/m/o", d), 0755));
	ASSERT_EQ(0, mount("dw", strf("%s/m/o", d), "overlay", 0,
			   strf("lowerdir=%s/m/l,upperdir=%s/m/u,workdir=%s/m/w",
				d, d, d)));
	ASSERT_EQ(0, copy_file(self->sleep_prog, strf("%s/m/u/prog", d), 0755));
	w = open(strf("%s/m/o/prog", d), O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, w);
	ASSERT_EQ(0, policy_set("enforce", "exec,ignore-writers /"));
	p = run(strf("%s/m/u/prog", d));
	ASSERT_LT(0, p.pid);
	ASSERT_EQ(0, pipe(pipefd));
	ASSERT_EQ(1, write(pipefd[1], "x", 1));
	EXPECT_EQ(-1, splice(pipefd[0], NULL, w, &off, 1, 0));
	EXPECT_EQ(ETXTBSY, errno);
	EXPECT_EQ(-1, pwrite(w, "x", 1, 0));
	EXPECT_EQ(ETXTBSY, errno);
	proc_stop(&p);
	close(w);
	close(pipefd[0]);
	close(pipefd[1]);
}

/* A loop device writes its file with ->write_iter(), past every hook. */
TEST_F(dw, loop_device_bound_to_running_program_opened_for_writing_denied)
{
	char dev[32];
	struct proc p;
	int ctl, n, loop, fd;

	ASSERT_EQ(0, policy_set("enforce", "exec,ignore-writers /"));
	fd = open(self->prog, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	p = run(self->prog);
	ASSERT_LT(0, p.pid);
	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, ctl);
	n = ioctl(ctl, LOOP_CTL_GET_FREE);
	ASSERT_LE(0, n);
	snprintf(dev, sizeof(dev), "/dev/loop%d", n);
	loop = open(dev, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, loop);
	EXPECT_EQ(-1, ioctl(loop, LOOP_SET_FD, fd));
	EXPECT_EQ(ETXTBSY, errno);
	ioctl(loop, LOOP_CLR_FD, 0);
	proc_stop(&p);
	EXPECT_EQ(0, ioctl(loop, LOOP_SET_FD, fd));
	ioctl(loop, LOOP_CLR_FD, 0);
	close(loop);
	close(ctl);
	close(fd);
}

/*
 * A file with an MBR whose one partition starts at 1 MiB, bound read-only
 * to a loop device that scans it: the partition's node, or "".
 */
static int loop_with_partition(const char *img, char *part, size_t size)
{
	unsigned char mbr[512] = { 0 };
	int fd, loop, i;

	mbr[0x1be + 4] = 0x83;		/* Linux */
	mbr[0x1be + 9] = 0x08;		/* first sector 2048 */
	mbr[0x1be + 13] = 0x08;		/* 2048 sectors */
	mbr[510] = 0x55;
	mbr[511] = 0xaa;
	fd = open(img, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || pwrite(fd, mbr, sizeof(mbr), 0) != sizeof(mbr) ||
	    ftruncate(fd, 2 << 20))
		return -1;
	close(fd);
	loop = loop_attach(img, LO_FLAGS_READ_ONLY | LO_FLAGS_PARTSCAN, part,
			   size);
	if (loop < 0)
		return -1;
	strncat(part, "p1", size - strlen(part) - 1);
	for (i = 0; i < 50 && access(part, F_OK); i++)
		usleep(20000);
	return loop;
}

/*
 * The loop driver's ioctls reach the device from a partition's node too,
 * whose major is not LOOP_MAJOR.  LOOP_SET_FD is refused before the
 * driver looks at the device, which would say EBUSY: it is bound.
 * LOOP_CHANGE_FD is not refused: it replaces the file of a read-only
 * device only, which never writes it; the driver says EINVAL, the sizes
 * differ.
 */
TEST_F(dw, loop_set_fd_through_partition_node_with_running_program_denied)
{
	char part[32];
	struct proc p;
	int loop, fd, pfd;

	loop = loop_with_partition(strf("%s/disk", self->dir), part, sizeof(part));
	ASSERT_LE(0, loop);
	pfd = open(part, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, pfd) TH_LOG("%s: %s", part, strerror(errno));
	ASSERT_EQ(0, policy_set("enforce", "exec,ignore-writers /"));
	fd = open(self->prog, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	p = run(self->prog);
	ASSERT_LT(0, p.pid);
	EXPECT_EQ(-1, ioctl(pfd, LOOP_SET_FD, fd));
	EXPECT_EQ(ETXTBSY, errno);
	EXPECT_EQ(-1, ioctl(pfd, LOOP_CHANGE_FD, fd));
	EXPECT_EQ(EINVAL, errno);
	proc_stop(&p);
	EXPECT_EQ(-1, ioctl(pfd, LOOP_SET_FD, fd));
	EXPECT_EQ(EBUSY, errno);
	close(pfd);
	ioctl(loop, LOOP_CLR_FD, 0);
	close(loop);
	close(fd);
}

/*
 * A descriptor opened for writing before an "ignore-writers" rule writes
 * only through hooks; a shared writable mapping of it that is also
 * executable would hold the file and write it at once.  mmap(), then
 * mprotect() of a shared read-only mapping.
 */
TEST_F(dw, shared_writable_exec_mapping_of_old_writer_ignore_writers_denied)
{
	void *m;
	int fd;

	fd = open(self->lib, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, policy_set("enforce", strf("lib,ignore-writers %s", self->dir)));
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_SHARED,
		 fd, 0);
	EXPECT_EQ(MAP_FAILED, m);
	EXPECT_EQ(ETXTBSY, errno);
	if (m != MAP_FAILED)
		munmap(m, 4096);
	close(fd);
	fd = open(self->lib, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, m);
	EXPECT_EQ(-1, mprotect(m, 4096, PROT_READ | PROT_WRITE | PROT_EXEC));
	EXPECT_EQ(ETXTBSY, errno);
	munmap(m, 4096);
	close(fd);
	/* Apart, each is allowed: the file is no longer held. */
	fd = open(self->lib, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	EXPECT_NE(MAP_FAILED, m);
	munmap(m, 4096);
	close(fd);
}

/*
 * Mount the ext4 image @img on @mnt through a loop device that goes with
 * the mount, as mount -o loop does: 0, or -1.
 */
static int loop_mount_ext4(const char *img, const char *mnt)
{
	char dev[32];
	int loop, err;

	loop = loop_attach(img, LO_FLAGS_AUTOCLEAR, dev, sizeof(dev));
	if (loop < 0)
		return -1;
	err = mount(dev, mnt, "ext4", 0, NULL);
	close(loop);
	return err;
}

/* Mount the ext4 image @img on @dir/m, with a directory dw: 0, or -1. */
static int mount_ext4(const char *dir, const char *img)
{
	if ((mkdir(strf("%s/m", dir), 0755) && errno != EEXIST) ||
	    loop_mount_ext4(img, strf("%s/m", dir)) ||
	    (mkdir(strf("%s/m/dw", dir), 0755) && errno != EEXIST))
		return -1;
	return 0;
}

#define EXT4_IMAGE "DENYWRITE_TEST_EXT4"

TEST_F(dw, ext4_move_ext_with_running_program_as_either_file_denied)
{
	const char *img = getenv(EXT4_IMAGE);
	struct move_extent me = { .len = 1 };
	struct proc p;
	int fd, donor;

	if (!img)
		SKIP(return, "no ext4 image: set " EXT4_IMAGE);
	ASSERT_EQ(0, mount_ext4(self->dir, img));
	ASSERT_EQ(0, copy_file(self->sleep_prog, strf("%s/m/dw/prog", self->dir),
			       0755));
	ASSERT_EQ(0, copy_file(self->sleep_prog, strf("%s/m/dw/donor", self->dir),
			       0644));
	fd = open(strf("%s/m/dw/prog", self->dir), O_RDWR | O_CLOEXEC);
	donor = open(strf("%s/m/dw/donor", self->dir), O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_LE(0, donor);
	/* Blocks to move: written, not delayed. */
	ASSERT_EQ(0, fsync(fd));
	ASSERT_EQ(0, fsync(donor));
	ASSERT_EQ(0, policy_set("enforce", "exec,ignore-writers /"));
	p = run(strf("%s/m/dw/prog", self->dir));
	ASSERT_LT(0, p.pid);
	me.donor_fd = donor;
	EXPECT_EQ(-1, ioctl(fd, EXT4_IOC_MOVE_EXT, &me));
	EXPECT_EQ(ETXTBSY, errno);
	me.donor_fd = fd;
	EXPECT_EQ(-1, ioctl(donor, EXT4_IOC_MOVE_EXT, &me));
	EXPECT_EQ(ETXTBSY, errno);
	proc_stop(&p);
	me.donor_fd = donor;
	EXPECT_EQ(0, ioctl(fd, EXT4_IOC_MOVE_EXT, &me))
		TH_LOG("once the program is gone: %s", strerror(errno));
	close(fd);
	close(donor);
}

/*
 * EXT4_IOC_SWAP_BOOT gives the file the boot loader inode's blocks: a
 * write of the file, which ext4 checks with rw_verify_area().
 */
TEST_F(dw, ext4_swap_boot_of_running_program_denied)
{
	const char *img = getenv(EXT4_IMAGE);
	struct proc p;
	int fd;

	if (!img)
		SKIP(return, "no ext4 image: set " EXT4_IMAGE);
	ASSERT_EQ(0, mount_ext4(self->dir, img));
	ASSERT_EQ(0, copy_file(self->sleep_prog, strf("%s/m/dw/prog", self->dir),
			       0755));
	fd = open(strf("%s/m/dw/prog", self->dir), O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fsync(fd));
	ASSERT_EQ(0, policy_set("enforce", "exec,ignore-writers /"));
	p = run(strf("%s/m/dw/prog", self->dir));
	ASSERT_LT(0, p.pid);
	EXPECT_EQ(-1, ioctl(fd, EXT4_IOC_SWAP_BOOT));
	EXPECT_EQ(ETXTBSY, errno);
	proc_stop(&p);
	EXPECT_EQ(0, ioctl(fd, EXT4_IOC_SWAP_BOOT))
		TH_LOG("once the program is gone: %s", strerror(errno));
	close(fd);
}

/* --- rules are objects ------------------------------------------------------ */

/* A rule written in a chroot names its object's absolute path. */
TEST_F(dw, rule_added_in_chroot_is_named_by_absolute_path)
{
	char rules[PATH_MAX + 16];
	pid_t pid;
	int status, fd;

	ASSERT_EQ(0, policy_set("enforce", ""));
	ASSERT_EQ(0, mkdir(strf("%s/root", self->dir), 0755));
	ASSERT_EQ(0, mkdir(strf("%s/root/bin", self->dir), 0755));
	fd = open(SFS "add", O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(chroot(strf("%s/root", self->dir)) ? 1 :
		      write(fd, "exec /bin", 9) == 9 ? 0 : errno);
	close(fd);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_LT(0, sfs_read("rules", rules, sizeof(rules)));
	EXPECT_STREQ(strf("exec %s/root/bin\n", self->dir), rules);
	/* The same object from outside: the same rule. */
	EXPECT_EQ(EEXIST, sfs_puts("add", strf("lib %s/root/bin", self->dir)));
	EXPECT_EQ(0, sfs_puts("del", strf("%s/root/bin", self->dir)));
	ASSERT_LE(0, sfs_read("rules", rules, sizeof(rules)));
	EXPECT_STREQ("", rules);
}

/*
 * A child in a mount namespace of its own, pivoted into a tmpfs with a
 * directory usr, as a container runtime leaves it: it says so with a byte
 * on a pipe, which container() waits for, then waits on @hold.  The
 * guest's / is rootfs, which pivot_root refuses: first make / a bind
 * mount of itself, as runtimes do there.  -1 if the child did not get
 * there.
 */
static pid_t container(const char *dir, int hold[2])
{
	struct pollfd pfd = { .events = POLLIN };
	int ready[2];
	pid_t pid;
	char c;

	if (pipe(hold) || pipe(ready))
		return -1;
	pid = fork();
	if (pid > 0) {
		close(ready[1]);
		pfd.fd = ready[0];
		if (poll(&pfd, 1, WAIT_MS) != 1 || read(ready[0], &c, 1) != 1) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			pid = -1;
		}
		close(ready[0]);
		return pid;
	}
	if (pid < 0)
		return -1;
	close(hold[1]);
	close(ready[0]);
	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mkdir(strf("%s/rb", dir), 0755) ||
	    mount("/", strf("%s/rb", dir), NULL, MS_BIND | MS_REC, NULL) ||
	    chdir(strf("%s/rb", dir)) || mount(".", "/", NULL, MS_MOVE, NULL) ||
	    chroot(".") || mkdir(strf("%s/ct", dir), 0755) ||
	    mount("ct", strf("%s/ct", dir), "tmpfs", 0, "mode=0755") ||
	    mkdir(strf("%s/ct/old", dir), 0755) ||
	    mkdir(strf("%s/ct/usr", dir), 0755) ||
	    syscall(SYS_pivot_root, strf("%s/ct", dir), strf("%s/ct/old", dir)) ||
	    chdir("/") || umount2("/old", MNT_DETACH) ||
	    write(ready[1], "R", 1) != 1)
		_exit(1);
	_exit(read(hold[0], &c, 1) < 0);
}

/*
 * /proc/PID/root of a process in another mount namespace's tree leads to
 * objects that the names of the writer's tree do not name: its "/" is not
 * the root rule, its /usr not the writer's /usr.  Refused with EXDEV, and
 * del of that path leaves the root rule alone.
 */
TEST_F(dw, rule_through_proc_pid_root_of_other_namespace_refused_EXDEV)
{
	char root[64], usr[64], rule[96], rules[256];
	int hold[2], status;
	pid_t pid;

	ASSERT_EQ(0, policy_set("enforce", "exec /"));
	pid = container(self->dir, hold);
	ASSERT_LT(0, pid) TH_LOG("the child did not pivot");
	close(hold[0]);
	snprintf(root, sizeof(root), "/proc/%d/root", pid);
	snprintf(usr, sizeof(usr), "/proc/%d/root/usr", pid);
	snprintf(rule, sizeof(rule), "lib %s", root);
	EXPECT_EQ(EXDEV, sfs_puts("add", rule));
	snprintf(rule, sizeof(rule), "lib %s", usr);
	EXPECT_EQ(EXDEV, sfs_puts("add", rule));
	snprintf(rule, sizeof(rule), "exec /\nlib %s\n", usr);
	EXPECT_EQ(EXDEV, sfs_puts("rules", rule));
	EXPECT_EQ(ENOENT, sfs_puts("del", root));
	ASSERT_LT(0, sfs_read("rules", rules, sizeof(rules)));
	EXPECT_STREQ("exec /\n", rules);
	close(hold[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/* The object a path names by /proc/self/fd, but no namespace root reaches. */
static int add_fd_rule(int fd)
{
	char rule[64];

	snprintf(rule, sizeof(rule), "exec /proc/self/fd/%d", fd);
	return sfs_puts("add", rule);
}

TEST_F(dw, rule_on_detached_mount_refused_ENOENT_not_root_rule)
{
	char rules[64];
	int fd;

	ASSERT_EQ(0, policy_set("enforce", ""));
	ASSERT_EQ(0, mkdir(strf("%s/t", self->dir), 0755));
	fd = syscall(SYS_open_tree, AT_FDCWD, strf("%s/t", self->dir),
		     OPEN_TREE_CLONE | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(ENOENT, add_fd_rule(fd));
	close(fd);

	ASSERT_EQ(0, mkdir(strf("%s/m", self->dir), 0755));
	ASSERT_EQ(0, mount("dw", strf("%s/m", self->dir), "tmpfs", 0, NULL));
	fd = open(strf("%s/m", self->dir), O_PATH | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, umount2(strf("%s/m", self->dir), MNT_DETACH));
	EXPECT_EQ(ENOENT, add_fd_rule(fd));
	close(fd);
	ASSERT_LE(0, sfs_read("rules", rules, sizeof(rules)));
	EXPECT_STREQ("", rules);
}

/* A rule never keeps its filesystem from being unmounted. */
TEST_F(dw, umount_of_filesystem_with_rule_allowed_rule_gone)
{
	char rules[256], gone[PATH_MAX + 16];
	long long before = stat_value("gone");

	ASSERT_EQ(0, mkdir(strf("%s/m", self->dir), 0755));
	ASSERT_EQ(0, mount("dw", strf("%s/m", self->dir), "tmpfs", 0, NULL));
	ASSERT_EQ(0, mkdir(strf("%s/m/sub", self->dir), 0755));
	ASSERT_EQ(0, policy_set("enforce", strf("exec /\nlib %s/m/sub", self->dir)));
	EXPECT_EQ(0, umount(strf("%s/m", self->dir)));
	ASSERT_LT(0, sfs_read("rules", rules, sizeof(rules)));
	EXPECT_STREQ("exec /\n", rules);
	ASSERT_LT(0, sfs_read("gone", gone, sizeof(gone)));
	EXPECT_STREQ(strf("lib %s/m/sub\n", self->dir), gone);
	EXPECT_EQ(before + 1, stat_value("gone"));
}

/*
 * A file reached by its handle may have a dentry disconnected from its
 * directory: a rule on that directory does not cover it (README, Limits);
 * the root rule does.
 */
TEST_F(dw, program_run_by_file_handle_escapes_directory_rule_documented)
{
	struct {
		struct file_handle fh;
		unsigned char bytes[MAX_HANDLE_SZ];
	} h = { .fh.handle_bytes = MAX_HANDLE_SZ };
	const char *img = getenv(EXT4_IMAGE);
	struct proc p;
	int mnt_id, mfd, fd;

	if (!img)
		SKIP(return, "no ext4 image: set " EXT4_IMAGE);
	ASSERT_EQ(0, mount_ext4(self->dir, img));
	ASSERT_EQ(0, copy_file(self->sleep_prog, strf("%s/m/dw/prog", self->dir),
			       0755));
	ASSERT_EQ(0, name_to_handle_at(AT_FDCWD,
				       strf("%s/m/dw/prog", self->dir), &h.fh,
				       &mnt_id, 0));
	/* A fresh mount: no dentry of the file is cached. */
	ASSERT_EQ(0, umount(strf("%s/m", self->dir)));
	ASSERT_EQ(0, loop_mount_ext4(img, strf("%s/m", self->dir)));
	ASSERT_EQ(0, policy_set("enforce", strf("exec %s/m/dw", self->dir)));
	mfd = open(strf("%s/m", self->dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, mfd);
	fd = open_by_handle_at(mfd, &h.fh, O_RDONLY);
	ASSERT_LE(0, fd);
	p = run_at(fd, "", AT_EMPTY_PATH);
	ASSERT_LT(0, p.pid);
	EXPECT_EQ(0, open_err(strf("%s/m/dw/prog", self->dir), O_WRONLY));
	proc_stop(&p);
	ASSERT_EQ(0, policy_set("enforce", "exec /"));
	p = run_at(fd, "", AT_EMPTY_PATH);
	ASSERT_LT(0, p.pid);
	EXPECT_EQ(ETXTBSY, open_err(strf("%s/m/dw/prog", self->dir), O_WRONLY));
	proc_stop(&p);
	close(fd);
	close(mfd);
}

/* --- the log and the query, for someone else -------------------------------- */

struct writing_loop {
	const char *path;
	int tries;
};

static int open_for_writing_loop(void *arg)
{
	struct writing_loop *w = arg;
	int i, refused = 0;

	for (i = 0; i < w->tries; i++)
		refused += open_err(w->path, O_WRONLY) == ETXTBSY;
	return refused;
}

/* The denywrite write records with @want in the kernel log from @fd on. */
static int count_records(int fd, const char *want)
{
	char rec[8192];
	int n = 0, quiet = 0;
	ssize_t len;

	/* kauditd prints the records a moment later: wait for a quiet second. */
	while (quiet < 10) {
		len = read(fd, rec, sizeof(rec) - 1);
		if (len < 0) {
			if (errno != EAGAIN)
				return -1;
			quiet++;
			usleep(100000);
			continue;
		}
		quiet = 0;
		rec[len] = '\0';
		n += strstr(rec, "lsm=denywrite op=write") && strstr(rec, want);
	}
	return n;
}

/*
 * 1000 refusals of one file to one user: at most five records a minute.
 * (3000 took more than child_as()'s 10 s under TCG on a loaded host.)
 */
TEST_F(dw, refusal_records_limited_per_file_and_user)
{
	struct writing_loop w = { self->prog, 1000 };
	char old_rl[16] = "5";
	int klog, rl;
	long long before;
	struct child c;
	struct proc p;
	int records;

	ASSERT_EQ(0, chown(self->prog, NOBODY, NOBODY));
	ASSERT_EQ(0, policy_set("enforce", "exec /"));
	p = run(self->prog);
	ASSERT_LT(0, p.pid);
	klog = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	ASSERT_LE(0, klog);
	ASSERT_LE(0, lseek(klog, 0, SEEK_END));
	rl = open("/proc/sys/kernel/printk_ratelimit", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, rl);
	ASSERT_LT(0, read(rl, old_rl, sizeof(old_rl) - 1));
	ASSERT_EQ(1, pwrite(rl, "0", 1, 0));
	before = stat_value("denied_write");

	c = child_as(NOBODY, open_for_writing_loop, &w);
	EXPECT_LT(0, c.pid);
	EXPECT_EQ(w.tries, c.result);
	child_stop(&c);
	EXPECT_EQ(before + w.tries, stat_value("denied_write"));
	records = count_records(klog, strf("path=\"%s\"", self->prog));
	EXPECT_LE(1, records);
	EXPECT_GE(5, records);
	TH_LOG("%d refusals, %d records", w.tries, records);

	pwrite(rl, old_rl, strlen(old_rl), 0);
	close(rl);
	close(klog);
	proc_stop(&p);
}

#define FLOOD_FILES 21

/*
 * Refuse each of the FLOOD_FILES files DIR/fN five times, one a moment;
 * @arg is DIR.
 */
static int flood_records(void *arg)
{
	const char *dir = arg;
	int i, k, refused = 0;
	const char *path;

	for (i = 0; i < FLOOD_FILES; i++) {
		path = strf("%s/f%d", dir, i);
		for (k = 0; k < 5; k++)
			refused += open_err(path, O_WRONLY) == ETXTBSY;
		/* Let kauditd print them: its backlog is 64 records. */
		usleep(50000);
	}
	return refused;
}

/* One refusal, of the file @arg, from a process named dwvictim. */
static int victim_refused(void *arg)
{
	prctl(PR_SET_NAME, "dwvictim");
	return open_err(arg, O_WRONLY);
}

/*
 * One user refused 105 times over 21 files in a second, five records a
 * file: it may take half of the 100 records of ten seconds, and another
 * user's refusal right after is logged.
 */
TEST_F(dw, refusal_record_of_other_user_logged_after_one_users_flood)
{
	void *map[FLOOD_FILES];
	char old_rl[16] = "5";
	struct child c, v;
	int i, fd, klog, rl;
	const char *path;

	ASSERT_EQ(0, policy_set("enforce", strf("lib %s", self->dir)));
	for (i = 0; i < FLOOD_FILES; i++) {
		path = strf("%s/f%d", self->dir, i);
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, fchmod(fd, 0666));
		ASSERT_EQ(0, ftruncate(fd, 4096));
		close(fd);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		ASSERT_LE(0, fd);
		map[i] = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE,
			      fd, 0);
		ASSERT_NE(MAP_FAILED, map[i]);
		close(fd);
	}
	klog = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	ASSERT_LE(0, klog);
	ASSERT_LE(0, lseek(klog, 0, SEEK_END));
	rl = open("/proc/sys/kernel/printk_ratelimit", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, rl);
	ASSERT_LT(0, read(rl, old_rl, sizeof(old_rl) - 1));
	ASSERT_EQ(1, pwrite(rl, "0", 1, 0));
	/*
	 * The limits start afresh (a write of the rules, not policy_set(),
	 * whose mode off would drop the holds).
	 */
	ASSERT_EQ(0, sfs_puts("rules", strf("lib %s\n", self->dir)));

	c = child_as(NOBODY, flood_records, self->dir);
	EXPECT_LT(0, c.pid);
	EXPECT_EQ(FLOOD_FILES * 5, c.result);
	child_stop(&c);
	v = child_as(NOBODY - 1, victim_refused,
		     (void *)strf("%s/f0", self->dir));
	EXPECT_LT(0, v.pid);
	EXPECT_EQ(ETXTBSY, v.result);
	child_stop(&v);
	EXPECT_EQ(1, count_records(klog, "comm=\"dwvictim\""));

	pwrite(rl, old_rl, strlen(old_rl), 0);
	close(rl);
	close(klog);
	for (i = 0; i < FLOOD_FILES; i++)
		munmap(map[i], 4096);
}

struct query_args {
	const char *path;
	const char *answer;
};

/* As the child's user: query @path; 0 if the answer starts as expected. */
static int query_starts_with(void *arg)
{
	struct query_args *a = arg;
	char buf[8192];
	ssize_t n;
	int fd = open(SFS "query", O_RDWR);

	if (fd < 0 || write(fd, a->path, strlen(a->path)) < 0)
		return errno;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n < 0)
		return errno;
	buf[n] = '\0';
	return strncmp(buf, a->answer, strlen(a->answer)) ? -1 : 0;
}

TEST_F(dw, query_as_nobody_answers_only_for_files_it_may_write)
{
	struct query_args root_file = {
		self->prog, "protected -\nholders -\nwriters -\nexec-rule exec /\n"
	}, own_file = {
		self->lib, "protected 0\nholders 0\nwriters 0\nexec-rule exec /\n"
	};
	struct child c;
	struct proc p;

	ASSERT_EQ(0, chown(self->lib, NOBODY, NOBODY));
	ASSERT_EQ(0, policy_set("enforce", "exec /"));
	p = run(self->prog);
	ASSERT_LT(0, p.pid);
	c = child_as(NOBODY, query_starts_with, &root_file);
	EXPECT_EQ(0, c.result);
	child_stop(&c);
	c = child_as(NOBODY, query_starts_with, &own_file);
	EXPECT_EQ(0, c.result);
	child_stop(&c);
	proc_stop(&p);
}

/* --- a change of the mode never waits for a path lookup ---------------------- */

/*
 * A rules write that waits on an automount nobody answers: the mode can
 * still be switched.
 */
TEST_F(dw, mode_switch_while_rules_write_waits_on_automount_allowed)
{
	char opts[96];
	int pipefd[2], status = -1;
	pid_t writer, switcher;
	bool done = false;
	struct pollfd pfd;

	ASSERT_EQ(0, policy_set("enforce", "exec /"));
	ASSERT_EQ(0, mkdir(strf("%s/auto", self->dir), 0755));
	ASSERT_EQ(0, pipe2(pipefd, O_CLOEXEC));
	snprintf(opts, sizeof(opts), "fd=%d,pgrp=%d,minproto=5,maxproto=5",
		 pipefd[1], getpgrp());
	ASSERT_EQ(0, mount("dwauto", strf("%s/auto", self->dir), "autofs", 0, opts));
	writer = fork();
	ASSERT_LE(0, writer);
	if (!writer) {
		/* Not the daemon's process group: the lookup waits. */
		setpgid(0, 0);
		_exit(sfs_puts("rules", strf("exec %s/auto/x\n", self->dir)));
	}
	pfd = (struct pollfd){ .fd = pipefd[0], .events = POLLIN };
	ASSERT_EQ(1, poll(&pfd, 1, WAIT_MS));
	switcher = fork();
	ASSERT_LE(0, switcher);
	if (!switcher)
		_exit(sfs_puts("mode", "audit"));
	/* It must be done within 5 s; then the waiting writer is killed. */
	for (int i = 0; i < 50 && !done; i++) {
		done = waitpid(switcher, &status, WNOHANG) == switcher;
		if (!done)
			usleep(100000);
	}
	EXPECT_TRUE(done);
	kill(writer, SIGKILL);
	waitpid(writer, NULL, 0);
	if (!done)
		waitpid(switcher, &status, 0);
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	close(pipefd[0]);
	close(pipefd[1]);
	umount2(strf("%s/auto", self->dir), MNT_DETACH);
}

/* --- an exec that straddles a mode switch ------------------------------------ */

/*
 * Copy the dynamically linked program @from to @to with its ELF
 * interpreter @interp, a path no longer than the one it had (relative: the
 * exec looks it up from its working directory), and the interpreter it had
 * to @old_interp_copy: 0, or -1.
 */
static int copy_with_interp(const char *from, const char *to,
			    const char *interp, const char *old_interp_copy)
{
	char old[256] = "", pad[256] = "";
	struct elf64_hdr eh;
	struct elf64_phdr ph;
	int fd, i, err = -1;

	if (copy_file(from, to, 0755))
		return -1;
	fd = open(to, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh))
		goto out;
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)) !=
		    sizeof(ph))
			goto out;
		if (ph.p_type != PT_INTERP)
			continue;
		if (ph.p_filesz > sizeof(old) || strlen(interp) >= ph.p_filesz ||
		    pread(fd, old, ph.p_filesz, ph.p_offset) != (ssize_t)ph.p_filesz)
			goto out;
		memcpy(pad, interp, strlen(interp) + 1);
		if (pwrite(fd, pad, ph.p_filesz, ph.p_offset) == (ssize_t)ph.p_filesz &&
		    !copy_file(old, old_interp_copy, 0755))
			err = 0;
		break;
	}
out:
	close(fd);
	return err;
}

/* Has process @pid mapped a file whose path ends with @suffix? */
static bool maps_file(pid_t pid, const char *suffix)
{
	char path[64], line[512];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	while (f && !found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		found = strlen(line) >= strlen(suffix) &&
			!strcmp(line + strlen(line) - strlen(suffix), suffix);
	}
	if (f)
		fclose(f);
	return found;
}

/*
 * An exec checks the program while the mode is off; the mode goes to
 * enforce while exec waits for its ELF interpreter (on an automount the
 * test answers); exec then maps the program: it holds it, as an exec that
 * started in enforce would.  The program is a copy of denywrite_sleep
 * whose interpreter is a/d/ld.so, from the test's directory.
 */
TEST_F(dw, exec_checked_in_mode_off_and_mapped_in_enforce_protects_program)
{
	union autofs_v5_packet_union pkt;
	char opts[96];
	int pipefd[2], root;
	struct pollfd pfd;
	pid_t pid;

	ASSERT_EQ(0, mkdir(strf("%s/a", self->dir), 0755));
	ASSERT_EQ(0, mkdir(strf("%s/ld", self->dir), 0755));
	ASSERT_EQ(0, copy_with_interp(self->sleep_prog,
				      strf("%s/dyn", self->dir), "a/d/ld.so",
				      strf("%s/ld/ld.so", self->dir)));
	ASSERT_EQ(0, pipe2(pipefd, O_CLOEXEC));
	snprintf(opts, sizeof(opts), "fd=%d,pgrp=%d,minproto=5,maxproto=5",
		 pipefd[1], getpgrp());
	ASSERT_EQ(0, mount("dwauto", strf("%s/a", self->dir), "autofs", 0, opts));
	root = open(strf("%s/a", self->dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, root);
	ASSERT_EQ(0, policy_set("off", "exec /"));

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		char *const argv[] = { SLEEP_PROG, NULL };

		setpgid(0, 0);
		if (!chdir(self->dir))
			execv(strf("%s/dyn", self->dir), argv);
		_exit(errno);
	}
	/* The exec waits for its interpreter: it checked the program. */
	pfd = (struct pollfd){ .fd = pipefd[0], .events = POLLIN };
	ASSERT_EQ(1, poll(&pfd, 1, WAIT_MS));
	ASSERT_LT(0, read(pipefd[0], &pkt, sizeof(pkt)));
	ASSERT_EQ(0, sfs_puts("mode", "enforce"));
	ASSERT_EQ(0, mkdir(strf("%s/a/d", self->dir), 0755));
	ASSERT_EQ(0, mount(strf("%s/ld", self->dir), strf("%s/a/d", self->dir),
			   NULL, MS_BIND, NULL));
	ASSERT_EQ(0, ioctl(root, AUTOFS_IOC_READY,
			   pkt.v5_packet.wait_queue_token));
	for (int i = 0; i < WAIT_MS / 100 && !maps_file(pid, "/ld.so"); i++)
		usleep(100000);
	ASSERT_TRUE(maps_file(pid, "/ld.so"));
	EXPECT_EQ(ETXTBSY, open_err(strf("%s/dyn", self->dir), O_WRONLY));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(root);
	close(pipefd[0]);
	close(pipefd[1]);
}

/*
 * Stock 6.12 releases its denial of the ELF interpreter in
 * load_elf_binary(), once the interpreter is mapped; denywrite's transient
 * hold goes in a task work, which ptrace_notify() runs before the exec
 * event's stop (PTRACE_EVENT_EXEC): a tracer stopped there may write the
 * interpreter, as on stock, and so may anyone once the process runs.  The
 * program is a copy of denywrite_sleep whose interpreter is a copy of its
 * own, ld/ld.so from the test's directory.
 */
TEST_F(dw, elf_interpreter_writable_at_ptrace_exec_stop_as_stock)
{
	char ld[PATH_MAX];
	int status;
	pid_t pid;

	snprintf(ld, sizeof(ld), "%s/ld/ld.so", self->dir);
	ASSERT_EQ(0, mkdir(strf("%s/ld", self->dir), 0755));
	ASSERT_EQ(0, copy_with_interp(self->sleep_prog,
				      strf("%s/dyn", self->dir), "ld/ld.so",
				      ld));
	ASSERT_EQ(0, policy_set("enforce", "exec /"));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		char *const argv[] = { SLEEP_PROG, NULL };

		if (chdir(self->dir) || ptrace(PTRACE_TRACEME, 0, NULL, NULL) ||
		    raise(SIGSTOP))
			_exit(1);
		execv(strf("%s/dyn", self->dir), argv);
		_exit(errno);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSTOPPED(status) && WSTOPSIG(status) == SIGSTOP);
	ASSERT_EQ(0, ptrace(PTRACE_SETOPTIONS, pid, NULL,
			    (void *)(long)(PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL)));
	ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, NULL, NULL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(SIGTRAP | (PTRACE_EVENT_EXEC << 8), status >> 8);
	EXPECT_EQ(0, open_err(ld, O_WRONLY));
	ASSERT_EQ(0, ptrace(PTRACE_DETACH, pid, NULL, NULL));
	for (int i = 0; i < WAIT_MS / 100 && !maps_file(pid, "/ld.so"); i++)
		usleep(100000);
	ASSERT_TRUE(maps_file(pid, "/ld.so"));
	for (int i = 0; i < WAIT_MS / 100 && open_err(ld, O_WRONLY); i++)
		usleep(100000);
	EXPECT_EQ(0, open_err(ld, O_WRONLY));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

TEST_HARNESS_MAIN
