// SPDX-License-Identifier: GPL-2.0-only
/*
 * denywrite: the hooks of ioctls that write
 *
 * A few ioctls change a file's contents without the write hooks: those
 * that swap or move a file's blocks, or replace its contents, on the
 * filesystems that have them (ext4, f2fs, XFS), and binding a file open
 * for writing to a loop device, whose writes reach the file without a
 * check.  file_ioctl refuses them for a file with a counted hold, and for
 * the other file they name by descriptor.  A denying hold needs none of
 * this: those files were opened for writing, which it refuses.
 */

#include <linux/blkdev.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/lsm_hooks.h>
#include <linux/magic.h>
#include <linux/major.h>
#include <linux/uaccess.h>
#include <uapi/linux/ext4.h>
#include <uapi/linux/f2fs.h>
#include <uapi/linux/loop.h>

#include "common.h"
#include "hooks.h"

/*
 * A write through the descriptor @fd, opened before, whose file an ioctl
 * changes without the write hooks.  The descriptor is looked up again by
 * the ioctl: a process could swap it in between, but only for a file it
 * may write already.
 */
static int check_writer_fd(unsigned int fd)
{
	struct file *file = fget(fd);
	int err;

	if (!file)
		return 0;
	err = denywrite_check_writer(file);
	fput(file);
	return err;
}

/* The descriptor at @offset of the ioctl's argument, a u32. */
static int check_arg_fd(unsigned long arg, size_t offset)
{
	u32 fd;

	if (get_user(fd, (u32 __user *)(arg + offset)))
		return 0;	/* the ioctl fails the same way */
	return check_writer_fd(fd);
}

/*
 * The descriptor at @offset of the ioctl's argument, an s64 that the
 * filesystem truncates to an int (xfs_ioc_swapext()): read whole, so that
 * the half taken does not depend on the byte order.
 */
static int check_arg_fd64(unsigned long arg, size_t offset)
{
	s64 fd;

	if (get_user(fd, (s64 __user *)(arg + offset)))
		return 0;
	return check_writer_fd((int)fd);
}

/*
 * The private ioctls of f2fs and XFS, by type and number, so that the
 * 32-bit ones (another size, so another command) are matched too: from
 * include/uapi/linux/f2fs.h and fs/xfs/libxfs/xfs_fs.h.
 */
#define F2FS_IOC_NR_START_ATOMIC_WRITE		1
#define F2FS_IOC_NR_COMMIT_ATOMIC_WRITE		2
#define F2FS_IOC_NR_MOVE_RANGE			9
#define F2FS_IOC_NR_START_ATOMIC_REPLACE	25
#define XFS_IOC_TYPE				'X'
#define XFS_IOC_NR_SWAPEXT			109

/*
 * f2fs: MOVE_RANGE moves blocks between the file of the ioctl and the one
 * of dst_fd (at offset 0 in the native and the 32-bit argument alike); an
 * atomic write replaces the file's contents at its commit (with
 * START_ATOMIC_REPLACE, by nothing: a truncation), whatever the writes
 * between were checked against, so its start and its commit are writes.
 */
static int check_f2fs_ioctl(struct file *file, unsigned int cmd,
			    unsigned long arg)
{
	int err;

	if (_IOC_TYPE(cmd) != F2FS_IOCTL_MAGIC)
		return 0;
	switch (_IOC_NR(cmd)) {
	case F2FS_IOC_NR_MOVE_RANGE:
		err = denywrite_check_writer(file);
		return err ?: check_arg_fd(arg, offsetof(struct f2fs_move_range,
							 dst_fd));
	case F2FS_IOC_NR_START_ATOMIC_WRITE:
	case F2FS_IOC_NR_COMMIT_ATOMIC_WRITE:
	case F2FS_IOC_NR_START_ATOMIC_REPLACE:
		return denywrite_check_writer(file);
	}
	return 0;
}

/*
 * The ioctls that swap or move a file's blocks, or replace its contents,
 * on the filesystems that have them, and that no write hook sees: the file
 * of the ioctl and the other one are both changed.  XFS_IOC_EXCHANGE_RANGE
 * and FICLONE pass remap_verify_area(), so file_permission.
 */
static int check_block_ioctl(struct file *file, unsigned int cmd,
			     unsigned long arg)
{
	unsigned long magic = file_inode(file)->i_sb->s_magic;
	int err;

	if (magic == EXT4_SUPER_MAGIC && cmd == EXT4_IOC_SWAP_BOOT)
		return denywrite_check_writer(file);
	if (magic == EXT4_SUPER_MAGIC && cmd == EXT4_IOC_MOVE_EXT) {
		err = denywrite_check_writer(file);
		return err ?: check_arg_fd(arg, offsetof(struct move_extent,
							 donor_fd));
	}
	if (magic == F2FS_SUPER_MAGIC)
		return check_f2fs_ioctl(file, cmd, arg);
	/* struct xfs_swapext: s64 sx_version, sx_fdtarget, sx_fdtmp. */
	if (magic == XFS_SUPER_MAGIC && _IOC_TYPE(cmd) == XFS_IOC_TYPE &&
	    _IOC_NR(cmd) == XFS_IOC_NR_SWAPEXT) {
		err = check_arg_fd64(arg, sizeof(s64));
		return err ?: check_arg_fd64(arg, 2 * sizeof(s64));
	}
	return 0;
}

/*
 * Is @file a loop device, or a partition of one?  The node's own major is
 * the partition's (BLOCK_EXT_MAJOR, or LOOP_MAJOR with loop.max_part), and
 * the driver's ioctls reach the whole device from either.
 */
static bool is_loop_device(struct file *file)
{
	if (!IS_ENABLED(CONFIG_BLOCK) || !S_ISBLK(file_inode(file)->i_mode))
		return false;
	return file_bdev(file)->bd_disk->major == LOOP_MAJOR;
}

/*
 * A loop device writes its file with ->write_iter(), which no hook sees:
 * refuse to bind it to a protected file for writing.
 */
static int check_loop_ioctl(struct file *file, unsigned int cmd,
			    unsigned long arg)
{
	struct loop_config config;

	if (!(file->f_mode & FMODE_WRITE) || !is_loop_device(file))
		return 0;
	switch (cmd) {
	case LOOP_SET_FD:
	case LOOP_CHANGE_FD:
		return check_writer_fd(arg);
	case LOOP_CONFIGURE:
		if (copy_from_user(&config, (void __user *)arg, sizeof(config)) ||
		    (config.info.lo_flags & LO_FLAGS_READ_ONLY))
			return 0;
		return check_writer_fd(config.fd);
	}
	return 0;
}

static int hook_file_ioctl(struct file *file, unsigned int cmd,
			   unsigned long arg)
{
	int err;

	if (denywrite_is_off())
		return 0;
	err = check_block_ioctl(file, cmd, arg);
	return err ?: check_loop_ioctl(file, cmd, arg);
}

static struct security_hook_list denywrite_ioctl_hooks[] __ro_after_init = {
	LSM_HOOK_INIT(file_ioctl, hook_file_ioctl),
	LSM_HOOK_INIT(file_ioctl_compat, hook_file_ioctl),
};

/**
 * denywrite_add_ioctl_hooks - register the hooks of ioctls that write
 */
void __init denywrite_add_ioctl_hooks(void)
{
	security_add_hooks(denywrite_ioctl_hooks,
			   ARRAY_SIZE(denywrite_ioctl_hooks), &denywrite_lsmid);
}
