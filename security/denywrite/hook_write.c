// SPDX-License-Identifier: GPL-2.0-only
/*
 * denywrite: the hooks of writers
 *
 * Writers of a file with a counted hold are refused in file_open (a new
 * open for writing: every open passes there, also the files the kernel
 * opens itself, for nfsd, ksmbd or fanotify's event descriptors, after
 * do_dentry_open() raised i_writecount), file_permission (write(2),
 * pwritev2(2), aio and io_uring writes, splice(2), fallocate(2),
 * copy_file_range(2) and clones into it, through any file, also one opened
 * before the protection, and through a stacked file whose real file is
 * protected) and inode_setattr (ATTR_SIZE: truncate(2), ftruncate(2),
 * O_TRUNC, also with O_RDONLY, and any other size change); a shared
 * writable mapping in hook_mmap.c.  The ioctls that change a file's
 * blocks (ext4's, f2fs's and XFS's) and the binding of a file to a
 * writable loop device reach file_permission too: they call
 * rw_verify_area().  rename over, unlink and chmod of a protected file
 * stay allowed.
 *
 * The writers of a denying hold are refused by the VFS, which calls
 * write_access_denied then: the refusal is counted and logged there.
 */

#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/lsm_hooks.h>

#include "common.h"
#include "decide.h"
#include "hooks.h"
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

/**
 * denywrite_check_writer - a write through @file, opened before
 * @file: the file written through, or mapped shared writable
 *
 * Return: -ETXTBSY if the file, or the real file behind it, has a counted
 * hold and the mode is enforce, else 0.
 */
int denywrite_check_writer(struct file *file)
{
	if (!file_protected(file))
		return 0;
	return denywrite_refuse_writer(file);
}

static int hook_file_permission(struct file *file, int mask)
{
	if (denywrite_is_off() || !(mask & MAY_WRITE))
		return 0;
	return denywrite_check_writer(file);
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

static struct security_hook_list denywrite_write_hooks[] __ro_after_init = {
	LSM_HOOK_INIT(file_open, hook_file_open),
	LSM_HOOK_INIT(write_access_denied, hook_write_access_denied),
	LSM_HOOK_INIT(file_permission, hook_file_permission),
	LSM_HOOK_INIT(inode_setattr, hook_inode_setattr),
};

/**
 * denywrite_add_write_hooks - register the hooks of writers
 */
void __init denywrite_add_write_hooks(void)
{
	security_add_hooks(denywrite_write_hooks,
			   ARRAY_SIZE(denywrite_write_hooks), &denywrite_lsmid);
}
