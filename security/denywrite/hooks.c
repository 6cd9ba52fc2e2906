// SPDX-License-Identifier: GPL-2.0-only
/*
 * denywrite: LSM hooks
 *
 * Rules are evaluated only when a file is executed or mapped executable;
 * the writer side is a counter test.  In mode off (see mode.c) each hook
 * returns at once but file_release, bprm_committing_creds and sb_delete,
 * which drop what there is in every mode, and mmap_file and file_mprotect,
 * which first note a shared writable mapping of a tmpfs or memfd file
 * (its pins outlive the mode).  The hooks find out what happens and leave
 * the decision, and the mode, to decide.c.
 *
 * Protection is taken:
 * - in file_post_open, for the files the kernel opens to execute them
 *   (__FMODE_EXEC: the program, a #! or binfmt_misc interpreter, the ELF
 *   interpreter), before exec reads a byte of them, as the classic
 *   open_exec() did: under a "lib" rule for good (they are mapped
 *   executable after exec's point of no return, where a refusal would kill
 *   the process), under an "exec" rule until bprm_check_security confirms
 *   that the file is the program or a #! interpreter, or exec maps it as
 *   the ELF interpreter and the hold goes, as the classic one did;
 * - in bprm_check_security, for files the kernel did not open that way
 *   (a binfmt_misc interpreter opened at registration), and in
 *   mm_replace_exe_file for the file that prctl(PR_SET_MM_EXE_FILE or
 *   PR_SET_MM_MAP) makes the executable, under "exec" rules (the classic
 *   denial failed there with EACCES; we fail with ETXTBSY);
 * - in mmap_file and file_mprotect, when PROT_EXEC is added to a file
 *   mapping, under "lib" rules (see mapping.c: who may hold a file by
 *   mapping it); and when exec maps a file it opened while the mode was
 *   off;
 * - in mmap_backing_file, for the backing file that overlayfs or FUSE
 *   passthrough maps in place of a file protected under a "lib" rule, so
 *   that the protection lasts as long as the mapping.
 * It is released in file_release, when the file's last reference goes, and
 * in bprm_committing_creds for the binary binfmt_misc hands on.
 *
 * In enforce mode, under a rule without "ignore-writers", a hold is exec's
 * own denial of write access (see protect.c): the VFS refuses new writers
 * in get_write_access(), and write_access_denied, which the VFS calls
 * only then, counts and logs the refusal of an open for writing or a
 * truncation.  The hooks below refuse the writers of the other holds,
 * which they count.
 *
 * Writers are refused in file_open (a new open for writing: every open
 * passes there, also the files the kernel opens itself, for nfsd, ksmbd or
 * fanotify's event descriptors, after do_dentry_open() raised i_writecount),
 * file_permission (write(2), pwritev2(2), aio and io_uring writes,
 * splice(2), fallocate(2), copy_file_range(2) and clones into it, through
 * any file, also one opened before the protection, and through a stacked
 * file whose real file is protected), mmap_file and file_mprotect (a shared
 * writable mapping), inode_setattr (ATTR_SIZE: truncate(2), ftruncate(2),
 * O_TRUNC, also with O_RDONLY, and any other size change) and file_ioctl
 * (the ioctls that swap or move a file's blocks, and binding a file open
 * for writing to a loop device, whose writes reach the file without a
 * check).  rename over, unlink and chmod of a protected file stay allowed.
 *
 * Files opened while a fanotify pre-content (HSM) group watches their
 * filesystem are never protected, as 6.12's exe_file_deny_write_access()
 * exempted them: the HSM daemon fills in file contents on demand, also of
 * running binaries, and refusing its writes would fail the page faults of
 * the very process we protect.
 */

#define pr_fmt(fmt) "denywrite: " fmt

#include <linux/binfmts.h>
#include <linux/blkdev.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/lsm_hooks.h>
#include <linux/magic.h>
#include <linux/major.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include <uapi/linux/ext4.h>
#include <uapi/linux/f2fs.h>
#include <uapi/linux/loop.h>

#include "common.h"
#include "decide.h"
#include "hooks.h"
#include "log.h"
#include "mapping.h"
#include "policy.h"
#include "protect.h"

/* A new writer of a protected file (only regular files are writers). */
static noinline int refuse_new_writer(struct file *file)
{
	if (!S_ISREG(file_inode(file)->i_mode))
		return 0;
	return denywrite_refuse_writer(file);
}

/* A new writer on a stacked filesystem: its real inode counts too. */
static noinline int check_stacked_writer(struct file *file)
{
	const struct inode *real = d_real_inode(file->f_path.dentry);

	if (denywrite_inode_write_denied(file_inode(file)) ||
	    (real != file_inode(file) && denywrite_inode_write_denied(real)))
		return refuse_new_writer(file);
	return 0;
}

/* A new writer: refused if the file is protected. */
static __always_inline int check_new_writer(struct file *file)
{
	if (unlikely(file->f_path.dentry->d_flags & DCACHE_OP_REAL))
		return check_stacked_writer(file);
	if (denywrite_inode_write_denied(file_inode(file)))
		return refuse_new_writer(file);
	return 0;
}

/*
 * Every open of the system passes here, after do_dentry_open() raised
 * i_writecount for a writer: the test of a new writer is inline and every
 * other path a tail call, so that an open costs a few instructions.
 */
static int hook_file_open(struct file *file)
{
	if (denywrite_is_off() || !(file->f_mode & FMODE_WRITE))
		return 0;
	/*
	 * The open of an overlayfs file checked its real file already: the
	 * real file overlayfs opens for it is the same writer, not another.
	 */
	if (unlikely(file->f_mode & FMODE_BACKING) &&
	    (backing_file_user_path(file)->dentry->d_flags & DCACHE_OP_REAL))
		return 0;
	return check_new_writer(file);
}

/*
 * The files the kernel opens to execute them are protected here, once
 * do_dentry_open() knows whether a pre-content group watches them.
 */
static int hook_file_post_open(struct file *file, int mask)
{
	if (denywrite_is_off() || !(file->f_flags & __FMODE_EXEC))
		return 0;
	return denywrite_use_exec_open(file);
}

/*
 * The VFS refused an open for writing or a truncation of @path in
 * get_write_access(), after the fact: if a denying hold of ours is among
 * the inode's denials, the refusal is counted and logged.  The refusal is
 * the VFS's, whatever this finds: a hold that has just gone is not
 * logged.
 */
static void hook_write_access_denied(const struct path *path, bool truncate)
{
	if (denywrite_is_off())
		return;
	/*
	 * get_write_access() read i_writecount negative: a denial made after
	 * its count was raised (inode_deny()) is counted when read after.
	 */
	smp_rmb();
	if (!atomic_read(&denywrite_inode(d_inode(path->dentry))->denials))
		return;
	denywrite_record_denied(path, truncate);
}

static int hook_bprm_check_security(struct linux_binprm *bprm)
{
	if (denywrite_is_off())
		return 0;
	return denywrite_use_covered(bprm->file, &bprm->file->f_path,
				     DENYWRITE_SCOPE_EXEC, DENYWRITE_OP_EXEC, 0);
}

/*
 * binfmt_misc's "O" and "C" handlers hand the binary to the interpreter
 * (AT_EXECFD), and exec releases its denial of the binary as it swaps the
 * interpreter in: the binary's hold goes, in every mode.
 */
static void hook_bprm_committing_creds(const struct linux_binprm *bprm)
{
	if (bprm->executable && bprm->executable != bprm->file)
		denywrite_file_drop(bprm->executable);
}

static int hook_mm_replace_exe_file(struct mm_struct *mm, struct file *file)
{
	if (denywrite_is_off())
		return 0;
	return denywrite_use_covered(file, &file->f_path, DENYWRITE_SCOPE_EXEC,
				     DENYWRITE_OP_EXEC, 0);
}

/* Is @file, or the real file behind it on a stacked filesystem, held? */
static bool file_protected(struct file *file)
{
	const struct inode *inode = file_inode(file);

	if (!S_ISREG(inode->i_mode))
		return false;
	if (denywrite_inode_protected(inode))
		return true;
	return unlikely(file->f_path.dentry->d_flags & DCACHE_OP_REAL) &&
	       denywrite_inode_protected(d_real_inode(file->f_path.dentry));
}

/* A write through @file, opened before: refused if the file is held. */
static int check_writer(struct file *file)
{
	if (!file_protected(file))
		return 0;
	return denywrite_refuse_writer(file);
}

static int hook_mmap_file(struct file *file, unsigned long reqprot,
			  unsigned long prot, unsigned long flags)
{
	int err;

	if (!file)
		return 0;
	if (unlikely(prot & PROT_WRITE) && (flags & MAP_TYPE) != MAP_PRIVATE)
		denywrite_shared_write(file);
	if (denywrite_is_off())
		return 0;
	if (current->in_execve) {
		denywrite_exec_mapping(file);
		return 0;
	}
	if (prot & PROT_EXEC) {
		err = denywrite_protect_mapping(file);
		if (err)
			return err;
	}
	/*
	 * A shared writable mapping is a writer that cannot be stopped later;
	 * tested after the protection, which an executable one takes itself.
	 */
	if ((prot & PROT_WRITE) && (flags & MAP_TYPE) != MAP_PRIVATE)
		return check_writer(file);
	return 0;
}

static int hook_mmap_backing_file(struct vm_area_struct *vma,
				  struct file *backing_file,
				  struct file *user_file)
{
	int err;

	if (denywrite_is_off())
		return 0;
	if ((vma->vm_flags & (VM_SHARED | VM_WRITE)) == (VM_SHARED | VM_WRITE)) {
		err = check_writer(backing_file);
		if (err)
			return err;
	}
	if (!(denywrite_policy_scopes() & DENYWRITE_SCOPE_LIB) ||
	    !denywrite_file_is_protected(user_file))
		return 0;
	denywrite_use_backing(backing_file);
	return 0;
}

static int hook_file_mprotect(struct vm_area_struct *vma,
			      unsigned long reqprot, unsigned long prot)
{
	struct file *file = vma->vm_file;
	int err;

	if (!file)
		return 0;
	if (unlikely(prot & PROT_WRITE) && (vma->vm_flags & VM_SHARED))
		denywrite_shared_write(file);
	if (denywrite_is_off())
		return 0;
	if ((prot & PROT_EXEC) && !(vma->vm_flags & VM_EXEC)) {
		err = denywrite_protect_mapping(file);
		if (err)
			return err;
	}
	/* As in mmap_file: a shared mapping made writable, after that. */
	if ((prot & PROT_WRITE) &&
	    (vma->vm_flags & (VM_SHARED | VM_WRITE)) == VM_SHARED)
		return check_writer(file);
	return 0;
}

static int hook_file_permission(struct file *file, int mask)
{
	if (denywrite_is_off() || !(mask & MAY_WRITE))
		return 0;
	return check_writer(file);
}

static int hook_inode_setattr(struct mnt_idmap *idmap, struct dentry *dentry,
			      struct iattr *attr)
{
	struct inode *inode = d_backing_inode(dentry);

	if (denywrite_is_off() ||
	    !(attr->ia_valid & ATTR_SIZE) || !S_ISREG(inode->i_mode) ||
	    !denywrite_inode_truncate_denied(inode, attr->ia_valid))
		return 0;
	return denywrite_refuse_truncate(dentry);
}

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
	err = check_writer(file);
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
		err = check_writer(file);
		return err ?: check_arg_fd(arg, offsetof(struct f2fs_move_range,
							 dst_fd));
	case F2FS_IOC_NR_START_ATOMIC_WRITE:
	case F2FS_IOC_NR_COMMIT_ATOMIC_WRITE:
	case F2FS_IOC_NR_START_ATOMIC_REPLACE:
		return check_writer(file);
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
		return check_writer(file);
	if (magic == EXT4_SUPER_MAGIC && cmd == EXT4_IOC_MOVE_EXT) {
		err = check_writer(file);
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

static void hook_file_release(struct file *file)
{
	if (denywrite_file_is_protected(file))
		denywrite_file_drop(file);
}

/* A filesystem goes away: the rules on it go with it, in any mode. */
static void hook_sb_delete(struct super_block *sb)
{
	struct denywrite_policy_change ch;

	if (denywrite_policy_unmount(sb, &ch))
		denywrite_audit_change("unmount", &ch, 0);
}

static struct security_hook_list denywrite_hooks[] __ro_after_init = {
	LSM_HOOK_INIT(file_open, hook_file_open),
	LSM_HOOK_INIT(file_post_open, hook_file_post_open),
	LSM_HOOK_INIT(write_access_denied, hook_write_access_denied),
	LSM_HOOK_INIT(bprm_check_security, hook_bprm_check_security),
	LSM_HOOK_INIT(bprm_committing_creds, hook_bprm_committing_creds),
	LSM_HOOK_INIT(mm_replace_exe_file, hook_mm_replace_exe_file),
	LSM_HOOK_INIT(mmap_file, hook_mmap_file),
	LSM_HOOK_INIT(mmap_backing_file, hook_mmap_backing_file),
	LSM_HOOK_INIT(file_mprotect, hook_file_mprotect),
	LSM_HOOK_INIT(file_permission, hook_file_permission),
	LSM_HOOK_INIT(inode_setattr, hook_inode_setattr),
	LSM_HOOK_INIT(file_ioctl, hook_file_ioctl),
	LSM_HOOK_INIT(file_ioctl_compat, hook_file_ioctl),
	LSM_HOOK_INIT(file_release, hook_file_release),
	LSM_HOOK_INIT(sb_delete, hook_sb_delete),
};

/**
 * denywrite_add_hooks - register the hooks with the LSM framework
 */
void __init denywrite_add_hooks(void)
{
	security_add_hooks(denywrite_hooks, ARRAY_SIZE(denywrite_hooks),
			   &denywrite_lsmid);
}
