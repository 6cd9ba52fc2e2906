// SPDX-License-Identifier: GPL-2.0-only
/*
 * denywrite: executable mappings
 *
 * A mapping (mmap() or mprotect() adding PROT_EXEC) needs only read access
 * to the file, and MAP_DENYWRITE was taken away from userspace because it
 * let any reader block in-place writes.  So a mapping holds a file only if
 * the mapper owns it, or if its owner is root (of the mapper's user
 * namespace or one above) and nobody else may write it.  Whether anyone
 * else may is read in the mode bits, and only on the filesystems where
 * they decide it (see denywrite_mode_decides_writes()).
 *
 * The hooks run before the kernel checks the mapping's arguments, and a
 * later LSM or do_mmap() may still refuse it.  The hook refuses to hold
 * for what it can see itself: a file that is not regular, not open for
 * reading, on a noexec mount, or one the mapper may not hold.  A mapping
 * refused later for its length, offset, flags or memory leaves its file
 * held until the file is closed: the caller could have taken that hold
 * with a mapping that succeeds.  One refused by a later LSM (IMA
 * appraisal) does too (the admin guide's limits).
 */

#include <kunit/visibility.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <linux/mm.h>
#include <linux/mnt_idmapping.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/task_work.h>
#include <linux/user_namespace.h>

#include "common.h"
#include "decide.h"
#include "mapping.h"
#include "policy.h"
#include "protect.h"

/**
 * denywrite_mode_decides_writes - do @inode's mode bits decide its writers?
 * @inode: the inode of a file being mapped executable
 *
 * They do where the kernel checks them itself: generic_permission(), and
 * the local filesystems whose ->permission adds a check of their own to it
 * (btrfs, nilfs2, reiserfs).  On a stacked one (overlayfs, ecryptfs) and
 * where a server or another node decides (FUSE, NFS, SMB, 9p, Ceph, AFS,
 * Coda, OrangeFS, GFS2, OCFS2), other users may write a file whose mode
 * says only root may: the caller asks again of the real inode.
 *
 * Return: true if the mode bits and POSIX ACLs decide who may write @inode.
 */
VISIBLE_IF_KUNIT bool denywrite_mode_decides_writes(const struct inode *inode)
{
	if (!inode->i_op->permission ||
	    inode->i_op->permission == generic_permission)
		return true;
	switch (inode->i_sb->s_magic) {
	case BTRFS_SUPER_MAGIC:
	case NILFS_SUPER_MAGIC:
	case REISERFS_SUPER_MAGIC:
		return true;
	}
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(denywrite_mode_decides_writes);

/*
 * Only root may write @dentry's file, by the mode bits of @inode, where
 * they decide it: of the real inode too on overlayfs, whose permission
 * check asks the real one's with the mounter's credentials.
 */
static bool only_owner_may_write(struct dentry *dentry,
				 const struct inode *inode)
{
	const struct inode *real = d_real_inode(dentry);

	/* Group or others may write it. */
	if (inode->i_mode & 0022)
		return false;
	if (real != inode)
		return !(real->i_mode & 0022) &&
		       denywrite_mode_decides_writes(real);
	return denywrite_mode_decides_writes(inode);
}

/*
 * May a mapping of a file that the mapper does not own hold it, @owner
 * being the owner of @inode, the file's at @path?  Its owner must be root
 * of the mapper's user namespace or one above, and nobody else may write
 * it.  The group and other write bits say whether anyone but the owner
 * may: with POSIX ACLs the group bits are the ACL's mask, which bounds
 * every named user and group entry, so an ACL that lets another user
 * write shows as group write.  Out of line: the mapper's own files need
 * none of this, nor the registers it takes.
 */
static noinline bool may_hold_as_root(const struct path *path,
				      const struct inode *inode,
				      vfsuid_t owner)
{
	struct user_namespace *ns;

	if (!only_owner_may_write(path->dentry, inode))
		return false;
	for (ns = current_user_ns(); ns; ns = ns->parent)
		if (vfsuid_eq_kuid(owner, make_kuid(ns, 0)))
			return true;
	return false;
}

/* May a mapping of @file by the current process hold it? */
static bool may_hold_by_mapping(struct file *file)
{
	const struct path *path = file_user_path(file);
	const struct inode *inode = file_user_inode(file);
	vfsuid_t owner = i_uid_into_vfsuid(mnt_idmap(path->mnt), inode);

	if (vfsuid_eq_kuid(owner, current_fsuid()))
		return true;
	return may_hold_as_root(path, inode, owner);
}

/**
 * denywrite_protect_mapping - PROT_EXEC is being added to a mapping of @file
 * @file: the file
 *
 * Under a policy whose root rule alone has scope "lib" ("all /"), the file
 * is covered without a lookup.  A file the process already protects is
 * never refused.  A mapping that do_mmap() is going to refuse for the file
 * itself (noexec mount, no read access) takes no hold.
 *
 * Return: 0, -ETXTBSY if the mode refuses it, -ENOMEM.
 */
int denywrite_protect_mapping(struct file *file)
{
	u8 flags;

	if (!(denywrite_policy_scopes() & DENYWRITE_SCOPE_LIB) ||
	    denywrite_file_is_protected(file) ||
	    !(file->f_mode & FMODE_READ) || path_noexec(file_user_path(file)) ||
	    !may_hold_by_mapping(file))
		return 0;
	if (denywrite_policy_root_alone(DENYWRITE_SCOPE_LIB, &flags))
		return denywrite_use_root(file, flags);
	return denywrite_use_covered(file, file_user_path(file),
				     DENYWRITE_SCOPE_LIB, DENYWRITE_OP_MMAP, 0);
}

/* Is @file the program that the current exec runs? */
static bool is_exec_program(const struct file *file)
{
	bool program;

	rcu_read_lock();
	program = rcu_access_pointer(current->mm->exe_file) == file;
	rcu_read_unlock();
	return program;
}

/*
 * The ELF interpreter's transient hold goes when exec returns to user
 * space, once exec has mapped the whole interpreter: the classic kernel
 * kept its denial until then too (load_elf_binary() releases it after
 * load_elf_interp()).
 */
static void drop_interpreter(struct callback_head *work)
{
	struct denywrite_task *task =
		container_of(work, struct denywrite_task, work);
	struct file *file = task->interpreter;

	task->interpreter = NULL;
	denywrite_file_drop_transient(file);
	fput(file);
}

/*
 * Drop @file's transient hold when exec returns, if it has one: true if
 * it has (or it is already to go).
 */
static bool defer_transient_drop(struct file *file)
{
	struct denywrite_task *task = denywrite_task(current);

	if (task->interpreter)
		return task->interpreter == file;
	if (!denywrite_file_transient(file))
		return false;
	task->interpreter = get_file(file);
	init_task_work(&task->work, drop_interpreter);
	if (task_work_add(current, &task->work, TWA_RESUME))
		drop_interpreter(&task->work);
	return true;
}

/**
 * denywrite_exec_mapping - exec maps @file, past its point of no return
 * @file: the program or the ELF interpreter
 *
 * The transient hold of an ELF interpreter under an "exec" rule goes when
 * exec returns, as the classic one did.  A file exec opened or checked
 * while the mode was off, and that exec maps once it is on, gets the hold
 * it would have had: the program under an "exec" rule, the interpreter
 * under a "lib" rule.  Its writers are not checked: exec can no longer
 * fail.
 */
void denywrite_exec_mapping(struct file *file)
{
	bool program = is_exec_program(file);

	if (!program && defer_transient_drop(file))
		return;
	if (denywrite_file_is_protected(file))
		return;
	if (program)
		denywrite_use_late(file, DENYWRITE_SCOPE_EXEC);
	else
		denywrite_use_late(file, DENYWRITE_SCOPE_LIB);
}
