// SPDX-License-Identifier: GPL-2.0-only
/*
 * denywrite: executable mappings
 *
 * A mapping (mmap() or mprotect() adding PROT_EXEC) needs only read access
 * to the file, and MAP_DENYWRITE was taken away from userspace because it
 * let any reader block in-place writes.  So a mapping holds a file only if
 * the mapper owns it, or if its owner is root (of the mapper's user
 * namespace or one above) and nobody else may write it.
 *
 * The hooks run before the kernel checks the mapping's arguments, and a
 * later LSM or do_mmap() may still refuse it.  The hold a mapping takes
 * is therefore pending until the mapping's syscall returns, when a task
 * work checks that the process maps the file executable, and drops the
 * hold if not (see denywrite_mapping_begin()).  The record of the mapping
 * under way is the task's blob: a mapping allocates nothing.
 */

#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/mnt_idmapping.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include <linux/user_namespace.h>
#include <asm/syscall.h>

#include "common.h"
#include "decide.h"
#include "mapping.h"
#include "policy.h"
#include "protect.h"

/*
 * May a mapping of @file by the current process hold it?  The group and
 * other write bits say whether anyone but the owner may write the file:
 * with POSIX ACLs the group bits are the ACL's mask, which bounds every
 * named user and group entry, so an ACL that lets another user write shows
 * as group write.
 */
static bool may_hold_by_mapping(struct file *file)
{
	const struct path *path = file_user_path(file);
	const struct inode *inode = file_user_inode(file);
	vfsuid_t owner = i_uid_into_vfsuid(mnt_idmap(path->mnt), inode);
	struct user_namespace *ns;

	if (vfsuid_eq_kuid(owner, current_fsuid()))
		return true;
	/* Group or others may write it. */
	if (inode->i_mode & 0022)
		return false;
	for (ns = current_user_ns(); ns; ns = ns->parent)
		if (vfsuid_eq_kuid(owner, make_kuid(ns, 0)))
			return true;
	return false;
}

/* Does @vma map @file executable, itself or through its backing file? */
static bool maps_file(const struct vm_area_struct *vma,
		      const struct file *file)
{
	const struct file *mapped = vma->vm_file;

	if (!(vma->vm_flags & VM_EXEC) || !mapped)
		return false;
	if (mapped == file)
		return true;
	return (mapped->f_mode & FMODE_BACKING) &&
	       path_equal(file_user_path((struct file *)mapped),
			  &file->f_path);
}

/*
 * Does the process map @file executable?  At @start if it is known (the
 * mprotect()ed mapping), else anywhere: new mappings go below the others,
 * which comes soon in the walk from the bottom.
 */
static bool mapped_exec(const struct file *file, unsigned long start)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	bool found = false;

	if (!mm)
		return true;
	mmap_read_lock(mm);
	if (start) {
		vma = vma_lookup(mm, start);
		found = vma && maps_file(vma, file);
	}
	if (!found) {
		VMA_ITERATOR(vmi, mm, 0);

		for_each_vma(vmi, vma) {
			if (maps_file(vma, file)) {
				found = true;
				break;
			}
		}
	}
	mmap_read_unlock(mm);
	return found;
}

/*
 * The record of a mapping under way: the task's own, which the mapping's
 * syscall takes and gives back when it returns, or a new one for a second
 * mapping in the same syscall (an mprotect() over the mappings of two
 * files).
 */
static struct denywrite_pending *pending_get(void)
{
	struct denywrite_pending *own = &denywrite_task(current)->pending;

	if (!own->file)
		return own;
	return kzalloc(sizeof(*own), GFP_KERNEL);
}

static void pending_put(struct denywrite_pending *pending)
{
	if (pending == &denywrite_task(current)->pending)
		pending->file = NULL;
	else
		kfree(pending);
}

/*
 * The syscall of a mapping returned: keep its hold if the mapping is
 * there.  It is, if the syscall succeeded (at worst a mapping another
 * thread unmapped at once keeps its hold, as if it had closed it late);
 * else the process's mappings tell (a syscall that failed may have mapped
 * part of a range).
 */
static void mapping_done(struct callback_head *work)
{
	struct denywrite_pending *pending =
		container_of(work, struct denywrite_pending, work);
	struct file *file = pending->file;
	bool mapped = !syscall_get_error(current, current_pt_regs()) ||
		      mapped_exec(file, pending->start);

	denywrite_mapping_end(pending, mapped);
	fput(file);
	pending_put(pending);
}

/*
 * Protect @file for a mapping, with a pending hold, and make the task
 * check the mapping when its syscall returns.
 */
static int protect_pending(struct file *file, unsigned long start)
{
	struct denywrite_pending *pending;
	u8 flags;
	int err;

	pending = pending_get();
	if (!pending)
		return -ENOMEM;
	pending->start = start;
	denywrite_mapping_begin(pending, file);
	if (denywrite_policy_root_alone(DENYWRITE_SCOPE_LIB, &flags))
		err = denywrite_use_root(file, DENYWRITE_SCOPE_LIB, flags,
					 DENYWRITE_OP_MMAP,
					 DENYWRITE_HOLD_PENDING);
	else
		err = denywrite_use_covered(file, file_user_path(file),
					    DENYWRITE_SCOPE_LIB,
					    DENYWRITE_OP_MMAP,
					    DENYWRITE_HOLD_PENDING);
	/* Nothing to wait for: refused, not covered, or held for good. */
	if (err || !denywrite_file_pending(file)) {
		denywrite_mapping_cancel(pending);
		pending_put(pending);
		return err;
	}
	/* A kernel thread never returns to user space: keep the hold. */
	if (!(current->flags & PF_KTHREAD)) {
		init_task_work(&pending->work, mapping_done);
		get_file(file);
		if (!task_work_add(current, &pending->work, TWA_RESUME))
			return 0;
		fput(file);
	}
	denywrite_mapping_end(pending, true);
	pending_put(pending);
	return 0;
}

/**
 * denywrite_protect_mapping - PROT_EXEC is being added to a mapping of @file
 * @file: the file
 * @start: where the mapping is (mprotect), or 0 (mmap: not known yet)
 *
 * Under a policy whose root rule alone has scope "lib" ("all /"), the file
 * is covered without a lookup.  A file the process already protects is
 * never refused.  A mapping that do_mmap() is going to refuse for the file
 * itself (noexec mount, no read access) takes no hold, nor one that is not
 * there when its syscall returns.
 *
 * Return: 0, -ETXTBSY if the mode refuses it, -ENOMEM.
 */
int denywrite_protect_mapping(struct file *file, unsigned long start)
{
	if (!(denywrite_policy_scopes() & DENYWRITE_SCOPE_LIB) ||
	    !S_ISREG(file_inode(file)->i_mode) ||
	    denywrite_file_is_protected(file, true) ||
	    !(file->f_mode & FMODE_READ) || path_noexec(file_user_path(file)) ||
	    !may_hold_by_mapping(file))
		return 0;
	return protect_pending(file, start);
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

/**
 * denywrite_exec_mapping - exec maps @file, past its point of no return
 * @file: the program or the ELF interpreter
 *
 * The transient hold of an ELF interpreter under an "exec" rule goes, as
 * the classic one did.  A file exec opened or checked while the mode was
 * off, and that exec maps once it is on, gets the hold it would have had:
 * the program under an "exec" rule, the interpreter under a "lib" rule.
 * Its writers are not checked: exec can no longer fail.
 */
void denywrite_exec_mapping(struct file *file)
{
	bool program = is_exec_program(file);

	if (!program)
		denywrite_file_drop_transient(file);
	if (denywrite_file_is_protected(file, false))
		return;
	if (program)
		denywrite_use_late(file, DENYWRITE_SCOPE_EXEC);
	else
		denywrite_use_late(file, DENYWRITE_SCOPE_LIB);
}
