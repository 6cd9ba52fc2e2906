// SPDX-License-Identifier: GPL-2.0-only
/*
 * denywrite: LSM hooks
 *
 * Rules are evaluated only when a file is executed or mapped executable;
 * the writer side is a counter test.  Each hook but file_release returns
 * at once in mode off (see mode.c); the others find out what happens and
 * leave the decision, and the mode, to decide.c.
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
 *   mapping, under "lib" rules, only for files owned by root (of the
 *   mapper's user namespace or an ancestor) or by the mapper's fsuid: a
 *   mapping needs only read access, and must not let a user block another
 *   user's writes.  A mapping that do_mmap() is going to refuse (noexec
 *   mount, no read access) takes no hold.  A file the process already
 *   protects is never refused, nor is a mapping the kernel makes during
 *   exec;
 * - in mmap_backing_file, for the backing file that overlayfs or FUSE
 *   passthrough maps in place of a protected file, so that the protection
 *   lasts as long as the mapping.
 * It is released in file_release, when the file's last reference goes.
 *
 * Writers are refused in file_post_open (a new open for writing),
 * file_permission (write(2), pwritev2(2), aio and io_uring writes,
 * fallocate(2), copy_file_range(2) and clones into it, through any file,
 * also one opened before the protection), mmap_file and file_mprotect (a
 * shared writable mapping) and inode_setattr (ATTR_SIZE: truncate(2),
 * ftruncate(2), O_TRUNC and any other size change).  rename over, unlink
 * and chmod of a protected file stay allowed.
 *
 * Files opened while a fanotify pre-content (HSM) group watches their
 * filesystem are never protected, as 6.12's exe_file_deny_write_access()
 * exempted them: the HSM daemon fills in file contents on demand, also of
 * running binaries, and refusing its writes would fail the page faults of
 * the very process we protect.
 */

#define pr_fmt(fmt) "denywrite: " fmt

#include <linux/binfmts.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/lsm_hooks.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/mnt_idmapping.h>
#include <linux/sched.h>
#include <linux/user_namespace.h>

#include "common.h"
#include "decide.h"
#include "hooks.h"
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
 * Every open of the system passes here: the test of a new writer is inline
 * and every other path is a tail call, so that an open costs a few
 * instructions (see README, "Performance").
 */
static int hook_file_post_open(struct file *file, int mask)
{
	if (denywrite_is_off())
		return 0;
	if (file->f_mode & FMODE_WRITE)
		return check_new_writer(file);
	if (file->f_flags & __FMODE_EXEC)
		return denywrite_use_exec_open(file);
	return 0;
}

static int hook_bprm_check_security(struct linux_binprm *bprm)
{
	if (denywrite_is_off())
		return 0;
	return denywrite_use_covered(bprm->file, &bprm->file->f_path,
				     DENYWRITE_SCOPE_EXEC, DENYWRITE_OP_EXEC, 0);
}

static int hook_mm_replace_exe_file(struct mm_struct *mm, struct file *file)
{
	if (denywrite_is_off())
		return 0;
	return denywrite_use_covered(file, &file->f_path, DENYWRITE_SCOPE_EXEC,
				     DENYWRITE_OP_EXEC, 0);
}

/* Is the owner of @file root, for the mapper, or the mapper itself? */
static bool may_hold_by_mapping(struct file *file)
{
	const struct path *path = file_user_path(file);
	vfsuid_t owner = i_uid_into_vfsuid(mnt_idmap(path->mnt),
					   file_user_inode(file));
	struct user_namespace *ns;

	if (vfsuid_eq_kuid(owner, current_fsuid()))
		return true;
	for (ns = current_user_ns(); ns; ns = ns->parent)
		if (vfsuid_eq_kuid(owner, make_kuid(ns, 0)))
			return true;
	return false;
}

/*
 * PROT_EXEC is being added to a mapping of @file by the process.  Under a
 * policy whose root rule alone has scope "lib" ("all /"), the file is
 * covered without a lookup.
 */
static int protect_mapping(struct file *file)
{
	u8 flags;

	if (!(denywrite_policy_scopes() & DENYWRITE_SCOPE_LIB) ||
	    denywrite_file_is_protected(file) ||
	    !(file->f_mode & FMODE_READ) || path_noexec(file_user_path(file)) ||
	    !may_hold_by_mapping(file))
		return 0;
	if (denywrite_policy_root_alone(DENYWRITE_SCOPE_LIB, &flags))
		return denywrite_use_root(file, DENYWRITE_SCOPE_LIB, flags,
					  DENYWRITE_OP_MMAP, 0);
	return denywrite_use_covered(file, file_user_path(file),
				     DENYWRITE_SCOPE_LIB, DENYWRITE_OP_MMAP, 0);
}

/* A shared writable mapping is a writer that cannot be stopped later. */
static int check_shared_write(struct file *file)
{
	if (!denywrite_inode_protected(file_inode(file)))
		return 0;
	return denywrite_refuse_writer(file);
}

static int hook_mmap_file(struct file *file, unsigned long reqprot,
			  unsigned long prot, unsigned long flags)
{
	int err;

	if (!file || denywrite_is_off())
		return 0;
	if (current->in_execve) {
		denywrite_file_drop_transient(file);
		return 0;
	}
	if ((prot & PROT_WRITE) && (flags & MAP_TYPE) != MAP_PRIVATE) {
		err = check_shared_write(file);
		if (err)
			return err;
	}
	if (!(prot & PROT_EXEC))
		return 0;
	return protect_mapping(file);
}

static int hook_mmap_backing_file(struct vm_area_struct *vma,
				  struct file *backing_file,
				  struct file *user_file)
{
	int err;

	if (denywrite_is_off())
		return 0;
	if ((vma->vm_flags & (VM_SHARED | VM_WRITE)) == (VM_SHARED | VM_WRITE)) {
		err = check_shared_write(backing_file);
		if (err)
			return err;
	}
	if (!denywrite_file_is_protected(user_file))
		return 0;
	return denywrite_file_protect(backing_file, DENYWRITE_WRITERS_NONE, 0);
}

static int hook_file_mprotect(struct vm_area_struct *vma,
			      unsigned long reqprot, unsigned long prot)
{
	struct file *file = vma->vm_file;
	int err;

	if (!file || denywrite_is_off())
		return 0;
	if ((prot & PROT_WRITE) &&
	    (vma->vm_flags & (VM_SHARED | VM_WRITE)) == VM_SHARED) {
		err = check_shared_write(file);
		if (err)
			return err;
	}
	if (!(prot & PROT_EXEC) || (vma->vm_flags & VM_EXEC))
		return 0;
	return protect_mapping(file);
}

static int hook_file_permission(struct file *file, int mask)
{
	const struct inode *inode;

	if (!(mask & MAY_WRITE) || denywrite_is_off())
		return 0;
	inode = file_inode(file);
	if (!S_ISREG(inode->i_mode) || !denywrite_inode_protected(inode))
		return 0;
	return denywrite_refuse_writer(file);
}

static int hook_inode_setattr(struct mnt_idmap *idmap, struct dentry *dentry,
			      struct iattr *attr)
{
	struct inode *inode = d_backing_inode(dentry);

	if (denywrite_is_off() ||
	    !(attr->ia_valid & ATTR_SIZE) || !S_ISREG(inode->i_mode))
		return 0;
	/* ftruncate() and O_TRUNC truncate through a file open already. */
	if (attr->ia_valid & ATTR_FILE ? !denywrite_inode_protected(inode) :
	    !denywrite_inode_write_denied(inode))
		return 0;
	return denywrite_refuse_truncate(dentry);
}

static void hook_file_release(struct file *file)
{
	if (denywrite_inode_tracked(file_inode(file)))
		denywrite_file_release(file);
}

static struct security_hook_list denywrite_hooks[] __ro_after_init = {
	LSM_HOOK_INIT(file_post_open, hook_file_post_open),
	LSM_HOOK_INIT(bprm_check_security, hook_bprm_check_security),
	LSM_HOOK_INIT(mm_replace_exe_file, hook_mm_replace_exe_file),
	LSM_HOOK_INIT(mmap_file, hook_mmap_file),
	LSM_HOOK_INIT(mmap_backing_file, hook_mmap_backing_file),
	LSM_HOOK_INIT(file_mprotect, hook_file_mprotect),
	LSM_HOOK_INIT(file_permission, hook_file_permission),
	LSM_HOOK_INIT(inode_setattr, hook_inode_setattr),
	LSM_HOOK_INIT(file_release, hook_file_release),
};

/**
 * denywrite_add_hooks - register the hooks with the LSM framework
 */
void __init denywrite_add_hooks(void)
{
	security_add_hooks(denywrite_hooks, ARRAY_SIZE(denywrite_hooks),
			   &denywrite_lsmid);
}
