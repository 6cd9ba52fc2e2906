// SPDX-License-Identifier: GPL-2.0
/*
 * denywrite selftests: what a process may and may not do to a file that is
 * executed or mapped executable, as root and as an unprivileged user.
 *
 * Run as root on a kernel booted with denywrite in lsm=.  A test of an
 * ext4 filesystem needs DENYWRITE_TEST_EXT4, the path of an ext4 image it
 * may change (a copy), and the test of an exec that waits for its ELF
 * interpreter needs DENYWRITE_TEST_DYNAMIC, a dynamically linked program
 * that runs until killed; else they are skipped.
 */

#define _GNU_SOURCE
#include <elf.h>
#include <linux/auto_fs.h>
#include <linux/ext4.h>
#include <linux/fanotify.h>
#include <linux/io_uring.h>
#include <linux/loop.h>
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

#define PROG DIR_ "/prog"
#define LIB DIR_ "/lib.so"

/* Detach what a test mounted under DIR_, the last mount first. */
static void umount_all(void)
{
	char line[1024], mnt[16][256];
	int n = 0;
	FILE *f = fopen("/proc/self/mounts", "r");

	while (f && fgets(line, sizeof(line), f) && n < 16)
		if (sscanf(line, "%*s %255s", mnt[n]) == 1 &&
		    !strncmp(mnt[n], DIR_ "/", strlen(DIR_ "/")))
			n++;
	if (f)
		fclose(f);
	while (n--)
		umount2(mnt[n], MNT_DETACH);
}

/* Every test keeps the mode and rules it found, and a fresh directory. */
FIXTURE(dw) {
	char mode[16];
	char rules[65536];
};

FIXTURE_SETUP(dw)
{
	ASSERT_LT(0, sfs_read("mode", self->mode, sizeof(self->mode)));
	ASSERT_LE(0, sfs_read("rules", self->rules, sizeof(self->rules)));
	umount_all();
	ASSERT_EQ(0, system("rm -rf " DIR_ " && mkdir -p " DIR_));
	ASSERT_EQ(0, copy_self(PROG, 0755));
	ASSERT_EQ(0, copy_self(LIB, 0644));
}

FIXTURE_TEARDOWN(dw)
{
	EXPECT_EQ(0, policy_set(strtok(self->mode, "\n"), self->rules));
	umount_all();
	system("rm -rf " DIR_);
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
	struct map_args a = { LIB, O_RDONLY, 0, 0 };

	ASSERT_EQ(0, policy_set("enforce", "all /"));
	EXPECT_EQ(ETXTBSY, write_while_nobody_maps(_metadata, &a, EINVAL));
	EXPECT_EQ(0, open_err(LIB, O_WRONLY));
}

TEST_F(dw, failed_mmap_bad_offset_as_nobody_holds_until_closed_documented)
{
	struct map_args a = { LIB, O_RDONLY, 4096, 0x7ffffffffffff000LL };

	ASSERT_EQ(0, policy_set("enforce", "lib " DIR_));
	EXPECT_EQ(ETXTBSY, write_while_nobody_maps(_metadata, &a, EOVERFLOW));
	EXPECT_EQ(0, open_err(LIB, O_WRONLY));
}

TEST_F(dw, failed_mmap_without_read_access_takes_no_hold)
{
	struct map_args a = { LIB, O_WRONLY, 4096, 0 };

	ASSERT_EQ(0, chown(LIB, NOBODY, NOBODY));
	ASSERT_EQ(0, policy_set("enforce", "all /"));
	EXPECT_EQ(0, write_while_nobody_maps(_metadata, &a, EACCES));
}

TEST_F(dw, mmap_as_nobody_of_group_writable_root_file_takes_no_hold)
{
	struct map_args a = { LIB, O_RDONLY, 4096, 0 };

	ASSERT_EQ(0, chmod(LIB, 0664));
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
	struct map_args a = { LIB, O_RDONLY, 4096, 0 };

	ASSERT_EQ(0, acl_user_write(LIB, NOBODY - 1));
	ASSERT_EQ(0, policy_set("enforce", "lib " DIR_));
	EXPECT_EQ(0, write_while_nobody_maps(_metadata, &a, 0));
}

TEST_F(dw, mmap_as_nobody_of_root_file_only_root_may_write_denied)
{
	struct map_args a = { LIB, O_RDONLY, 4096, 0 };

	ASSERT_EQ(0, policy_set("enforce", "lib " DIR_));
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
	const char *lib2 = DIR_ "/lib2.so";
	char *p;
	int fd[2], round;

	ASSERT_EQ(0, copy_self(lib2, 0644));
	ASSERT_EQ(0, policy_set("enforce", "lib " DIR_));
	for (round = 0; round < 2; round++) {
		p = mmap(NULL, 8192, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
		ASSERT_NE(MAP_FAILED, p);
		fd[0] = open(LIB, O_RDONLY | O_CLOEXEC);
		fd[1] = open(lib2, O_RDONLY | O_CLOEXEC);
		ASSERT_LE(0, fd[0]);
		ASSERT_LE(0, fd[1]);
		ASSERT_EQ(p, mmap(p, 4096, PROT_READ, MAP_PRIVATE | MAP_FIXED,
				  fd[0], 0));
		ASSERT_EQ(p + 4096, mmap(p + 4096, 4096, PROT_READ,
					 MAP_PRIVATE | MAP_FIXED, fd[1], 0));
		EXPECT_EQ(0, open_err(LIB, O_WRONLY));
		ASSERT_EQ(0, mprotect(p, 8192, PROT_READ | PROT_EXEC));
		EXPECT_EQ(ETXTBSY, open_err(LIB, O_WRONLY));
		EXPECT_EQ(ETXTBSY, open_err(lib2, O_WRONLY));
		munmap(p, 8192);
		close(fd[0]);
		close(fd[1]);
		EXPECT_EQ(0, open_err(LIB, O_WRONLY));
		EXPECT_EQ(0, open_err(lib2, O_WRONLY));
	}
}

/* --- writers the exec protocol must see ----------------------------------- */

TEST_F(dw, truncating_read_only_open_of_running_program_denied)
{
	struct proc p;

	ASSERT_EQ(0, policy_set("enforce", "exec /"));
	p = run(PROG);
	ASSERT_LT(0, p.pid);
	EXPECT_EQ(ETXTBSY, open_err(PROG, O_RDONLY | O_TRUNC));
	proc_stop(&p);
	EXPECT_EQ(0, open_err(PROG, O_RDONLY | O_TRUNC));
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
	p = run(PROG);
	ASSERT_LT(0, p.pid);
	writes = stat_value("denied_write");
	truncates = stat_value("denied_truncate");
	ASSERT_LE(0, writes);
	ASSERT_LE(0, truncates);
	EXPECT_EQ(ETXTBSY, open_err(PROG, O_WRONLY));
	EXPECT_EQ(ETXTBSY, open_err(PROG, O_RDONLY | O_TRUNC));
	EXPECT_EQ(-1, truncate(PROG, 0));
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
	p = run(PROG);
	ASSERT_LT(0, p.pid);
	fan = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FD_ERROR,
			    O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fan);
	ASSERT_EQ(0, fanotify_mark(fan, FAN_MARK_ADD, FAN_OPEN, AT_FDCWD,
				   PROG));
	ASSERT_EQ(0, open_err(PROG, O_RDONLY));
	ASSERT_EQ((ssize_t)sizeof(ev), read(fan, &ev, sizeof(ev)));
	if (ev.fd >= 0)
		close(ev.fd);
	EXPECT_EQ(-ETXTBSY, ev.fd);
	close(fan);
	proc_stop(&p);
}

/* A copy of this program in a memfd, sealed or not. */
static int memfd_prog(bool seal)
{
	int fd = memfd_create("dwself", seal ? MFD_ALLOW_SEALING : 0);
	char buf[65536];
	ssize_t n;
	int in;

	if (fd < 0)
		return -1;
	in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
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
			      const char *rules, int write_err)
{
	char path[64];
	struct proc p;
	int fd = memfd_prog(false);

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
	memfd_self_writes(_metadata, "exec /", 0);
}

TEST_F(dw, memfd_program_writes_through_its_own_fd_ignore_writers_denied)
{
	memfd_self_writes(_metadata, "exec,ignore-writers /", ETXTBSY);
}

TEST_F(dw, sealed_memfd_program_runs_allowed)
{
	struct proc p;
	int fd = memfd_prog(true);

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
				  const char *rules)
{
	struct io_uring_params params = {};
	struct stat st;
	struct iovec iov;
	struct proc p;
	int ring, fd, err;

	ASSERT_EQ(0, policy_set("enforce", rules));
	fd = open(PROG, O_RDWR | O_CLOEXEC);
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

	p = run(PROG);
	err = p.err;
	proc_stop(&p);

	ASSERT_EQ(0, syscall(__NR_io_uring_register, ring,
			     IORING_UNREGISTER_BUFFERS, NULL, 0));
	close(ring);
	p = run(PROG);
	EXPECT_LT(0, p.pid);
	proc_stop(&p);
	return err;
}

TEST_F(dw, exec_of_tmpfs_program_with_pinned_pages_allowed_as_stock)
{
	EXPECT_EQ(0, exec_with_pinned_pages(_metadata, "exec /"));
}

TEST_F(dw, exec_of_tmpfs_program_with_pinned_pages_ignore_writers_denied)
{
	EXPECT_EQ(ETXTBSY, exec_with_pinned_pages(_metadata, "exec,ignore-writers /"));
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
	loff_t off = 0;

	ASSERT_EQ(0, mkdir(DIR_ "/m", 0755));
	ASSERT_EQ(0, mount("dw", DIR_ "/m", "tmpfs", 0, NULL));
	ASSERT_EQ(0, mkdir(DIR_ "/m/l", 0755));
	ASSERT_EQ(0, mkdir(DIR_ "/m/u", 0755));
	ASSERT_EQ(0, mkdir(DIR_ "/m/w", 0755));
	ASSERT_EQ(0, mkdir(DIR_ "/m/o", 0755));
	ASSERT_EQ(0, mount("dw", DIR_ "/m/o", "overlay", 0,
			   "lowerdir=" DIR_ "/m/l,upperdir=" DIR_ "/m/u,workdir=" DIR_ "/m/w"));
	ASSERT_EQ(0, copy_self(DIR_ "/m/u/prog", 0755));
	w = open(DIR_ "/m/o/prog", O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, w);
	ASSERT_EQ(0, policy_set("enforce", "exec,ignore-writers /"));
	p = run(DIR_ "/m/u/prog");
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
	fd = open(PROG, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	p = run(PROG);
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
	struct loop_config lc = { .info.lo_flags = LO_FLAGS_READ_ONLY |
						   LO_FLAGS_PARTSCAN };
	int ctl, n, loop, i;

	mbr[0x1be + 4] = 0x83;		/* Linux */
	mbr[0x1be + 9] = 0x08;		/* first sector 2048 */
	mbr[0x1be + 13] = 0x08;		/* 2048 sectors */
	mbr[510] = 0x55;
	mbr[511] = 0xaa;
	i = open(img, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (i < 0 || pwrite(i, mbr, sizeof(mbr), 0) != sizeof(mbr) ||
	    ftruncate(i, 2 << 20))
		return -1;
	lc.fd = i;
	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	n = ioctl(ctl, LOOP_CTL_GET_FREE);
	close(ctl);
	snprintf(part, size, "/dev/loop%d", n);
	loop = open(part, O_RDWR | O_CLOEXEC);
	if (n < 0 || loop < 0 || ioctl(loop, LOOP_CONFIGURE, &lc))
		return -1;
	close(i);
	snprintf(part, size, "/dev/loop%dp1", n);
	for (i = 0; i < 50 && access(part, F_OK); i++)
		usleep(20000);
	return loop;
}

/*
 * The loop driver's ioctls reach the device from a partition's node too,
 * whose major is not LOOP_MAJOR: the hook looks at the disk.  Refused
 * before the driver, which would say EBUSY: the device is bound.
 */
TEST_F(dw, loop_set_fd_through_partition_node_with_running_program_denied)
{
	char part[32];
	struct proc p;
	int loop, fd, pfd;

	loop = loop_with_partition(DIR_ "/disk", part, sizeof(part));
	ASSERT_LE(0, loop);
	pfd = open(part, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, pfd) TH_LOG("%s: %s", part, strerror(errno));
	ASSERT_EQ(0, policy_set("enforce", "exec,ignore-writers /"));
	fd = open(PROG, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	p = run(PROG);
	ASSERT_LT(0, p.pid);
	EXPECT_EQ(-1, ioctl(pfd, LOOP_SET_FD, fd));
	EXPECT_EQ(ETXTBSY, errno);
	EXPECT_EQ(-1, ioctl(pfd, LOOP_CHANGE_FD, fd));
	EXPECT_EQ(ETXTBSY, errno);
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

	fd = open(LIB, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, policy_set("enforce", "lib,ignore-writers " DIR_));
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_SHARED,
		 fd, 0);
	EXPECT_EQ(MAP_FAILED, m);
	EXPECT_EQ(ETXTBSY, errno);
	if (m != MAP_FAILED)
		munmap(m, 4096);
	close(fd);
	fd = open(LIB, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, m);
	EXPECT_EQ(-1, mprotect(m, 4096, PROT_READ | PROT_WRITE | PROT_EXEC));
	EXPECT_EQ(ETXTBSY, errno);
	munmap(m, 4096);
	close(fd);
	/* Apart, each is allowed: the file is no longer held. */
	fd = open(LIB, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	EXPECT_NE(MAP_FAILED, m);
	munmap(m, 4096);
	close(fd);
}

/* Mount the ext4 image @img on DIR_/m, with a directory dw: 0, or -1. */
static int mount_ext4(const char *img)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "mkdir -p %s/m && mount -o loop %s %s/m && mkdir -p %s/m/dw",
		 DIR_, img, DIR_, DIR_);
	return system(cmd) ? -1 : 0;
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
	ASSERT_EQ(0, mount_ext4(img));
	ASSERT_EQ(0, copy_self(DIR_ "/m/dw/prog", 0755));
	ASSERT_EQ(0, copy_self(DIR_ "/m/dw/donor", 0644));
	fd = open(DIR_ "/m/dw/prog", O_RDWR | O_CLOEXEC);
	donor = open(DIR_ "/m/dw/donor", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_LE(0, donor);
	/* Blocks to move: written, not delayed. */
	ASSERT_EQ(0, fsync(fd));
	ASSERT_EQ(0, fsync(donor));
	ASSERT_EQ(0, policy_set("enforce", "exec,ignore-writers /"));
	p = run(DIR_ "/m/dw/prog");
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

/* --- rules are objects ------------------------------------------------------ */

/* A rule written in a chroot names its object's absolute path. */
TEST_F(dw, rule_added_in_chroot_is_named_by_absolute_path)
{
	char rules[256];
	pid_t pid;
	int status, fd;

	ASSERT_EQ(0, policy_set("enforce", ""));
	ASSERT_EQ(0, mkdir(DIR_ "/root", 0755));
	ASSERT_EQ(0, mkdir(DIR_ "/root/bin", 0755));
	fd = open(SFS "add", O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(chroot(DIR_ "/root") ? 1 :
		      write(fd, "exec /bin", 9) == 9 ? 0 : errno);
	close(fd);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_LT(0, sfs_read("rules", rules, sizeof(rules)));
	EXPECT_STREQ("exec " DIR_ "/root/bin\n", rules);
	/* The same object from outside: the same rule. */
	EXPECT_EQ(EEXIST, sfs_puts("add", "lib " DIR_ "/root/bin"));
	EXPECT_EQ(0, sfs_puts("del", DIR_ "/root/bin"));
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
static pid_t container(int hold[2])
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
	    mkdir(DIR_ "/rb", 0755) ||
	    mount("/", DIR_ "/rb", NULL, MS_BIND | MS_REC, NULL) ||
	    chdir(DIR_ "/rb") || mount(".", "/", NULL, MS_MOVE, NULL) ||
	    chroot(".") || mkdir(DIR_ "/ct", 0755) ||
	    mount("ct", DIR_ "/ct", "tmpfs", 0, "mode=0755") ||
	    mkdir(DIR_ "/ct/old", 0755) || mkdir(DIR_ "/ct/usr", 0755) ||
	    syscall(SYS_pivot_root, DIR_ "/ct", DIR_ "/ct/old") ||
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
	pid = container(hold);
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
	ASSERT_EQ(0, mkdir(DIR_ "/t", 0755));
	fd = syscall(SYS_open_tree, AT_FDCWD, DIR_ "/t",
		     OPEN_TREE_CLONE | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(ENOENT, add_fd_rule(fd));
	close(fd);

	ASSERT_EQ(0, system("mkdir -p " DIR_ "/m && mount -t tmpfs dw " DIR_
			    "/m"));
	fd = open(DIR_ "/m", O_PATH | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, umount2(DIR_ "/m", MNT_DETACH));
	EXPECT_EQ(ENOENT, add_fd_rule(fd));
	close(fd);
	ASSERT_LE(0, sfs_read("rules", rules, sizeof(rules)));
	EXPECT_STREQ("", rules);
}

/* A rule never keeps its filesystem from being unmounted. */
TEST_F(dw, umount_of_filesystem_with_rule_allowed_rule_gone)
{
	char rules[256], gone[256];
	long long before = stat_value("gone");

	ASSERT_EQ(0, system("mkdir -p " DIR_ "/m && mount -t tmpfs dw " DIR_
			    "/m && mkdir " DIR_ "/m/sub"));
	ASSERT_EQ(0, policy_set("enforce", "exec /\nlib " DIR_ "/m/sub"));
	EXPECT_EQ(0, umount(DIR_ "/m"));
	ASSERT_LT(0, sfs_read("rules", rules, sizeof(rules)));
	EXPECT_STREQ("exec /\n", rules);
	ASSERT_LT(0, sfs_read("gone", gone, sizeof(gone)));
	EXPECT_STREQ("lib " DIR_ "/m/sub\n", gone);
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
	char cmd[512];

	if (!img)
		SKIP(return, "no ext4 image: set " EXT4_IMAGE);
	ASSERT_EQ(0, mount_ext4(img));
	ASSERT_EQ(0, copy_self(DIR_ "/m/dw/prog", 0755));
	ASSERT_EQ(0, name_to_handle_at(AT_FDCWD, DIR_ "/m/dw/prog", &h.fh,
				       &mnt_id, 0));
	/* A fresh mount: no dentry of the file is cached. */
	ASSERT_EQ(0, umount(DIR_ "/m"));
	snprintf(cmd, sizeof(cmd), "mount -o loop %s %s/m", img, DIR_);
	ASSERT_EQ(0, system(cmd));
	ASSERT_EQ(0, policy_set("enforce", "exec " DIR_ "/m/dw"));
	mfd = open(DIR_ "/m", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, mfd);
	fd = open_by_handle_at(mfd, &h.fh, O_RDONLY);
	ASSERT_LE(0, fd);
	p = run_at(fd, "", AT_EMPTY_PATH);
	ASSERT_LT(0, p.pid);
	EXPECT_EQ(0, open_err(DIR_ "/m/dw/prog", O_WRONLY));
	proc_stop(&p);
	ASSERT_EQ(0, policy_set("enforce", "exec /"));
	p = run_at(fd, "", AT_EMPTY_PATH);
	ASSERT_LT(0, p.pid);
	EXPECT_EQ(ETXTBSY, open_err(DIR_ "/m/dw/prog", O_WRONLY));
	proc_stop(&p);
	close(fd);
	close(mfd);
}

/* --- the log and the query, for someone else -------------------------------- */

static int open_for_writing_loop(void *arg)
{
	int i, refused = 0;

	for (i = 0; i < *(int *)arg; i++)
		refused += open_err(PROG, O_WRONLY) == ETXTBSY;
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
	int tries = 1000, klog, rl;
	char old_rl[16] = "5";
	long long before;
	struct child c;
	struct proc p;
	int records;

	ASSERT_EQ(0, chown(PROG, NOBODY, NOBODY));
	ASSERT_EQ(0, policy_set("enforce", "exec /"));
	p = run(PROG);
	ASSERT_LT(0, p.pid);
	klog = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	ASSERT_LE(0, klog);
	ASSERT_LE(0, lseek(klog, 0, SEEK_END));
	rl = open("/proc/sys/kernel/printk_ratelimit", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, rl);
	ASSERT_LT(0, read(rl, old_rl, sizeof(old_rl) - 1));
	ASSERT_EQ(1, pwrite(rl, "0", 1, 0));
	before = stat_value("denied_write");

	c = child_as(NOBODY, open_for_writing_loop, &tries);
	EXPECT_LT(0, c.pid);
	EXPECT_EQ(tries, c.result);
	child_stop(&c);
	EXPECT_EQ(before + tries, stat_value("denied_write"));
	records = count_records(klog, "path=\"" PROG "\"");
	EXPECT_LE(1, records);
	EXPECT_GE(5, records);
	TH_LOG("%d refusals, %d records", tries, records);

	pwrite(rl, old_rl, strlen(old_rl), 0);
	close(rl);
	close(klog);
	proc_stop(&p);
}

#define FLOOD_FILES 21

/* Refuse each of the FLOOD_FILES files DIR_/fN five times, one a moment. */
static int flood_records(void *arg)
{
	char path[64];
	int i, k, refused = 0;

	for (i = 0; i < FLOOD_FILES; i++) {
		snprintf(path, sizeof(path), DIR_ "/f%d", i);
		for (k = 0; k < 5; k++)
			refused += open_err(path, O_WRONLY) == ETXTBSY;
		/* Let kauditd print them: its backlog is 64 records. */
		usleep(50000);
	}
	return refused;
}

/* One refusal, from a process named dwvictim. */
static int victim_refused(void *arg)
{
	prctl(PR_SET_NAME, "dwvictim");
	return open_err(DIR_ "/f0", O_WRONLY);
}

/*
 * One user refused 105 times over 21 files in a second, five records a
 * file: it may take half of the 100 records of ten seconds, and another
 * user's refusal right after is logged.
 */
TEST_F(dw, refusal_record_of_other_user_logged_after_one_users_flood)
{
	void *map[FLOOD_FILES];
	char path[64], old_rl[16] = "5";
	struct child c, v;
	int i, fd, klog, rl;

	ASSERT_EQ(0, policy_set("enforce", "lib " DIR_));
	for (i = 0; i < FLOOD_FILES; i++) {
		snprintf(path, sizeof(path), DIR_ "/f%d", i);
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
	ASSERT_EQ(0, sfs_puts("rules", "lib " DIR_ "\n"));

	c = child_as(NOBODY, flood_records, NULL);
	EXPECT_LT(0, c.pid);
	EXPECT_EQ(FLOOD_FILES * 5, c.result);
	child_stop(&c);
	v = child_as(NOBODY - 1, victim_refused, NULL);
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
		PROG, "protected -\nholders -\nwriters -\nexec-rule exec /\n"
	}, own_file = {
		LIB, "protected 0\nholders 0\nwriters 0\nexec-rule exec /\n"
	};
	struct child c;
	struct proc p;

	ASSERT_EQ(0, chown(LIB, NOBODY, NOBODY));
	ASSERT_EQ(0, policy_set("enforce", "exec /"));
	p = run(PROG);
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
	ASSERT_EQ(0, mkdir(DIR_ "/auto", 0755));
	ASSERT_EQ(0, pipe2(pipefd, O_CLOEXEC));
	snprintf(opts, sizeof(opts), "fd=%d,pgrp=%d,minproto=5,maxproto=5",
		 pipefd[1], getpgrp());
	ASSERT_EQ(0, mount("dwauto", DIR_ "/auto", "autofs", 0, opts));
	writer = fork();
	ASSERT_LE(0, writer);
	if (!writer) {
		/* Not the daemon's process group: the lookup waits. */
		setpgid(0, 0);
		_exit(sfs_puts("rules", "exec " DIR_ "/auto/x\n"));
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
	umount2(DIR_ "/auto", MNT_DETACH);
}

/* --- an exec that straddles a mode switch ------------------------------------ */

/*
 * Copy the dynamic program @from to @to with its ELF interpreter @interp
 * (no longer than the one it had), and the interpreter it had to
 * @old_interp_copy.
 */
static int copy_with_interp(const char *from, const char *to,
			    const char *interp, const char *old_interp_copy)
{
	char cmd[1024], old[256] = "", pad[256] = "";
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int fd, i;

	snprintf(cmd, sizeof(cmd), "cp %s %s", from, to);
	if (system(cmd))
		return -1;
	fd = open(to, O_RDWR | O_CLOEXEC);
	if (fd < 0 || pread(fd, &eh, sizeof(eh), 0) != sizeof(eh))
		return -1;
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)) !=
		    sizeof(ph))
			return -1;
		if (ph.p_type != PT_INTERP)
			continue;
		if (ph.p_filesz > sizeof(old) || strlen(interp) >= ph.p_filesz ||
		    pread(fd, old, ph.p_filesz, ph.p_offset) != (ssize_t)ph.p_filesz)
			return -1;
		memcpy(pad, interp, strlen(interp) + 1);
		if (pwrite(fd, pad, ph.p_filesz, ph.p_offset) != (ssize_t)ph.p_filesz)
			return -1;
		close(fd);
		snprintf(cmd, sizeof(cmd), "cp %s %s", old, old_interp_copy);
		return system(cmd) ? -1 : 0;
	}
	close(fd);
	return -1;
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
 * started in enforce would.
 */
TEST_F(dw, exec_checked_in_mode_off_and_mapped_in_enforce_protects_program)
{
	const char *dyn = getenv("DENYWRITE_TEST_DYNAMIC");
	union autofs_v5_packet_union pkt;
	char opts[96];
	int pipefd[2], root;
	struct pollfd pfd;
	pid_t pid;

	if (!dyn)
		SKIP(return, "no dynamic program: set DENYWRITE_TEST_DYNAMIC");
	ASSERT_EQ(0, mkdir(DIR_ "/a", 0755));
	ASSERT_EQ(0, mkdir(DIR_ "/ld", 0755));
	ASSERT_EQ(0, copy_with_interp(dyn, DIR_ "/dyn", DIR_ "/a/d/ld.so",
				      DIR_ "/ld/ld.so"));
	ASSERT_EQ(0, pipe2(pipefd, O_CLOEXEC));
	snprintf(opts, sizeof(opts), "fd=%d,pgrp=%d,minproto=5,maxproto=5",
		 pipefd[1], getpgrp());
	ASSERT_EQ(0, mount("dwauto", DIR_ "/a", "autofs", 0, opts));
	root = open(DIR_ "/a", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, root);
	ASSERT_EQ(0, policy_set("off", "exec /"));

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		char *const argv[] = { (char *)dyn, NULL };

		setpgid(0, 0);
		execv(DIR_ "/dyn", argv);
		_exit(errno);
	}
	/* The exec waits for its interpreter: it checked the program. */
	pfd = (struct pollfd){ .fd = pipefd[0], .events = POLLIN };
	ASSERT_EQ(1, poll(&pfd, 1, WAIT_MS));
	ASSERT_LT(0, read(pipefd[0], &pkt, sizeof(pkt)));
	ASSERT_EQ(0, sfs_puts("mode", "enforce"));
	ASSERT_EQ(0, mkdir(DIR_ "/a/d", 0755));
	ASSERT_EQ(0, mount(DIR_ "/ld", DIR_ "/a/d", NULL, MS_BIND, NULL));
	ASSERT_EQ(0, ioctl(root, AUTOFS_IOC_READY,
			   pkt.v5_packet.wait_queue_token));
	for (int i = 0; i < WAIT_MS / 100 && !maps_file(pid, "/ld.so"); i++)
		usleep(100000);
	ASSERT_TRUE(maps_file(pid, "/ld.so"));
	EXPECT_EQ(ETXTBSY, open_err(DIR_ "/dyn", O_WRONLY));
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
 * interpreter, as on stock, and so may anyone once the process runs.
 */
TEST_F(dw, elf_interpreter_writable_at_ptrace_exec_stop_as_stock)
{
	const char *dyn = getenv("DENYWRITE_TEST_DYNAMIC");
	int status;
	pid_t pid;

	if (!dyn)
		SKIP(return, "no dynamic program: set DENYWRITE_TEST_DYNAMIC");
	ASSERT_EQ(0, mkdir(DIR_ "/ld", 0755));
	ASSERT_EQ(0, copy_with_interp(dyn, DIR_ "/dyn", DIR_ "/ld/ld.so",
				      DIR_ "/ld/ld.so"));
	ASSERT_EQ(0, policy_set("enforce", "exec /"));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		char *const argv[] = { (char *)dyn, NULL };

		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) || raise(SIGSTOP))
			_exit(1);
		execv(DIR_ "/dyn", argv);
		_exit(errno);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSTOPPED(status) && WSTOPSIG(status) == SIGSTOP);
	ASSERT_EQ(0, ptrace(PTRACE_SETOPTIONS, pid, NULL,
			    (void *)(long)(PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL)));
	ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, NULL, NULL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(SIGTRAP | (PTRACE_EVENT_EXEC << 8), status >> 8);
	EXPECT_EQ(0, open_err(DIR_ "/ld/ld.so", O_WRONLY));
	ASSERT_EQ(0, ptrace(PTRACE_DETACH, pid, NULL, NULL));
	for (int i = 0; i < WAIT_MS / 100 && !maps_file(pid, "/ld.so"); i++)
		usleep(100000);
	ASSERT_TRUE(maps_file(pid, "/ld.so"));
	for (int i = 0; i < WAIT_MS / 100 && open_err(DIR_ "/ld/ld.so", O_WRONLY); i++)
		usleep(100000);
	EXPECT_EQ(0, open_err(DIR_ "/ld/ld.so", O_WRONLY));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--sleep"))
		return sleeper();
	return test_harness_run(argc, argv);
}
