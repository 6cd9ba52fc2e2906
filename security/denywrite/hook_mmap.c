// SPDX-License-Identifier: GPL-2.0-only
/*
 * denywrite: the hooks of mappings
 *
 * Protection is taken in mmap_file and file_mprotect, when PROT_EXEC is
 * added to a file mapping, under "lib" rules (see mapping.c: who may hold
 * a file by mapping it), and when exec maps a file it opened while the
 * mode was off; and in mmap_backing_file, for the backing file that
 * overlayfs or FUSE passthrough maps in place of a file protected under a
 * "lib" rule, so that the protection lasts as long as the mapping.  A
 * shared writable mapping is a writer of its file, refused as a write is
 * (hook_write.c).
 */

#include <linux/fs.h>
#include <linux/lsm_hooks.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/sched.h>

#include "common.h"
#include "decide.h"
#include "hooks.h"
#include "mapping.h"
#include "policy.h"
#include "protect.h"

/*
 * The protection a mapping of @file with @prot takes once the mode is not
 * off: exec's mapping of the file it runs, or a hold of an executable
 * mapping.  Inline in both callers, so that a private mapping's path ends
 * in a tail call.
 */
static __always_inline int mmap_protect(struct file *file, unsigned long prot)
{
	if (current->in_execve) {
		denywrite_exec_mapping(file);
		return 0;
	}
	if (prot & PROT_EXEC)
		return denywrite_protect_mapping(file);
	return 0;
}

/*
 * A shared writable mapping of @file: a writer that cannot be stopped
 * later, tested after the protection, which an executable one takes
 * itself.  Out of line: the mappings of programs and libraries are
 * private, and their path needs no frame.
 */
static noinline int mmap_shared_write(struct file *file, unsigned long prot)
{
	int err;

	denywrite_shared_write(file);
	if (denywrite_is_off())
		return 0;
	err = mmap_protect(file, prot);
	return err ?: denywrite_check_writer(file);
}

static int hook_mmap_file(struct file *file, unsigned long reqprot,
			  unsigned long prot, unsigned long flags)
{
	if (!file)
		return 0;
	if (unlikely(prot & PROT_WRITE) && (flags & MAP_TYPE) != MAP_PRIVATE)
		return mmap_shared_write(file, prot);
	if (denywrite_is_off())
		return 0;
	return mmap_protect(file, prot);
}

static int hook_mmap_backing_file(struct vm_area_struct *vma,
				  struct file *backing_file,
				  struct file *user_file)
{
	int err;

	if (denywrite_is_off())
		return 0;
	if ((vma->vm_flags & (VM_SHARED | VM_WRITE)) == (VM_SHARED | VM_WRITE)) {
		err = denywrite_check_writer(backing_file);
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
		return denywrite_check_writer(file);
	return 0;
}

static struct security_hook_list denywrite_mmap_hooks[] __ro_after_init = {
	LSM_HOOK_INIT(mmap_file, hook_mmap_file),
	LSM_HOOK_INIT(mmap_backing_file, hook_mmap_backing_file),
	LSM_HOOK_INIT(file_mprotect, hook_file_mprotect),
};

/**
 * denywrite_add_mmap_hooks - register the hooks of mappings
 */
void __init denywrite_add_mmap_hooks(void)
{
	security_add_hooks(denywrite_mmap_hooks,
			   ARRAY_SIZE(denywrite_mmap_hooks), &denywrite_lsmid);
}
