// SPDX-License-Identifier: GPL-2.0-only
/*
 * denywrite: LSM hooks
 *
 * Rules are evaluated only when a file is executed or mapped executable;
 * the writer side is a counter test.
 *
 * Protection is taken:
 * - in file_post_open, for files the kernel opens to execute (__FMODE_EXEC:
 *   the binary, a #! or binfmt_misc interpreter, the ELF interpreter), under
 *   "lib" rules.  These files are mapped executable after exec's point of
 *   no return, where a refusal would kill the process, so the check is done
 *   at open, where the classic open_exec() did it;
 * - in bprm_check_security, for the binary and each interpreter, under
 *   "exec" rules, and in mm_replace_exe_file for the file that
 *   prctl(PR_SET_MM_EXE_FILE or PR_SET_MM_MAP) makes the executable, as the
 *   classic denial did (it failed with EACCES; we fail with ETXTBSY);
 * - in mmap_file and file_mprotect, when PROT_EXEC is added to a file
 *   mapping, under "lib" rules.  A file the process already protects is
 *   never refused, nor is a mapping the kernel makes during exec.
 * It is released in file_release, when the file's last reference goes (not
 * in file_free_security, where the inode may be gone already).
 *
 * Writers are refused in file_open (FMODE_WRITE) and inode_setattr
 * (ATTR_SIZE: truncate(2), ftruncate(2), O_TRUNC and any other size
 * change).  rename over, unlink and chmod of a protected file stay allowed.
 *
 * Files opened while a fanotify pre-content (HSM) group watches their
 * filesystem are never protected, as 6.12's exe_file_deny_write_access()
 * exempted them: the HSM daemon fills in file contents on demand, also of
 * running binaries, and refusing its writes would fail the page faults of
 * the very process we protect.
 */

#define pr_fmt(fmt) "denywrite: " fmt

#include <linux/binfmts.h>
#include <linux/fs.h>
#include <linux/lsm_hooks.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/sched.h>

#include "common.h"
#include "log.h"
#include "policy.h"
#include "protect.h"

/* Protect @file if a rule of @scope covers it; refuse @op if it must. */
static int protect_covered(struct file *file, u8 scope, enum denywrite_op op)
{
	const struct denywrite_rule *rule;
	enum denywrite_writers writers;
	int idx, err = 0;

	if (denywrite_get_mode() == DENYWRITE_MODE_OFF ||
	    FMODE_FSNOTIFY_HSM(file->f_mode))
		return 0;

	idx = srcu_read_lock(&denywrite_policy_srcu);
	rule = denywrite_policy_match(denywrite_policy_current(),
				      &file->f_path, scope);
	if (rule) {
		writers = rule->flags & DENYWRITE_RULE_IGNORE_WRITERS ?
			  DENYWRITE_WRITERS_IGNORE : DENYWRITE_WRITERS_CHECK;
		err = denywrite_file_protect(file, writers);
		if (err) {
			err = denywrite_refuse_file(op, file, rule);
			if (!err)
				denywrite_file_protect(file,
						       DENYWRITE_WRITERS_ALLOWED);
		}
	}
	srcu_read_unlock(&denywrite_policy_srcu, idx);
	return err;
}

static int hook_file_post_open(struct file *file, int mask)
{
	if (!(file->f_flags & __FMODE_EXEC))
		return 0;
	return protect_covered(file, DENYWRITE_SCOPE_LIB, DENYWRITE_OP_EXEC);
}

static int hook_bprm_check_security(struct linux_binprm *bprm)
{
	return protect_covered(bprm->file, DENYWRITE_SCOPE_EXEC,
			       DENYWRITE_OP_EXEC);
}

static int hook_mm_replace_exe_file(struct mm_struct *mm, struct file *file)
{
	return protect_covered(file, DENYWRITE_SCOPE_EXEC, DENYWRITE_OP_EXEC);
}

static int protect_mapping(struct file *file)
{
	if (denywrite_file_is_protected(file) || current->in_execve)
		return 0;
	return protect_covered(file, DENYWRITE_SCOPE_LIB, DENYWRITE_OP_MMAP);
}

static int hook_mmap_file(struct file *file, unsigned long reqprot,
			  unsigned long prot, unsigned long flags)
{
	if (!file || !(prot & PROT_EXEC))
		return 0;
	return protect_mapping(file);
}

static int hook_file_mprotect(struct vm_area_struct *vma,
			      unsigned long reqprot, unsigned long prot)
{
	if (!vma->vm_file || !(prot & PROT_EXEC) || (vma->vm_flags & VM_EXEC))
		return 0;
	return protect_mapping(vma->vm_file);
}

static int hook_file_open(struct file *file)
{
	struct inode *inode = file_inode(file);

	if (denywrite_get_mode() == DENYWRITE_MODE_OFF ||
	    !(file->f_mode & FMODE_WRITE) || !S_ISREG(inode->i_mode) ||
	    !denywrite_inode_write_denied(inode))
		return 0;
	return denywrite_refuse_file(DENYWRITE_OP_WRITE, file, NULL);
}

static int hook_inode_setattr(struct mnt_idmap *idmap, struct dentry *dentry,
			      struct iattr *attr)
{
	struct inode *inode = d_backing_inode(dentry);

	if (denywrite_get_mode() == DENYWRITE_MODE_OFF ||
	    !(attr->ia_valid & ATTR_SIZE) || !S_ISREG(inode->i_mode) ||
	    !denywrite_inode_write_denied(inode))
		return 0;
	return denywrite_refuse_dentry(DENYWRITE_OP_TRUNCATE, dentry);
}

static void hook_file_release(struct file *file)
{
	denywrite_file_release(file);
}

static struct security_hook_list denywrite_hooks[] __ro_after_init = {
	LSM_HOOK_INIT(file_post_open, hook_file_post_open),
	LSM_HOOK_INIT(bprm_check_security, hook_bprm_check_security),
	LSM_HOOK_INIT(mm_replace_exe_file, hook_mm_replace_exe_file),
	LSM_HOOK_INIT(mmap_file, hook_mmap_file),
	LSM_HOOK_INIT(file_mprotect, hook_file_mprotect),
	LSM_HOOK_INIT(file_open, hook_file_open),
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
