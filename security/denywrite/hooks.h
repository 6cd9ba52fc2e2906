/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * denywrite: LSM hooks
 *
 * Rules are evaluated only when a file is executed or mapped executable;
 * the writer side is a counter test.  In mode off (see mode.c) each hook
 * returns at once but file_release, bprm_committing_creds and sb_delete,
 * which drop what there is in every mode, and mmap_file and file_mprotect,
 * which first note a shared writable mapping of a tmpfs or memfd file
 * (its pins outlive the mode).  The hooks find out what happens and leave
 * the decision, and the mode, to decide.c.  They come in families, a file
 * each (hook_*.c), and denywrite_init() registers each family with its
 * own denywrite_add_*_hooks(): the files executed, the writers, the
 * mappings, and the lifetimes of files and filesystems.
 *
 * In enforce mode, under a rule without "ignore-writers", a hold is exec's
 * own denial of write access (see protect.c): the VFS refuses new writers
 * in get_write_access(), and write_access_denied, which the VFS calls
 * only then, counts and logs the refusal of an open for writing or a
 * truncation.  The write and mapping hooks refuse the writers of the
 * other holds, which they count.
 *
 * Files opened while a fanotify pre-content (HSM) group watches their
 * filesystem are never protected, as 6.12's exe_file_deny_write_access()
 * exempted them: the HSM daemon fills in file contents on demand, also of
 * running binaries, and refusing its writes would fail the page faults of
 * the very process we protect.
 */

#ifndef _SECURITY_DENYWRITE_HOOKS_H
#define _SECURITY_DENYWRITE_HOOKS_H

#include <linux/fs.h>

int denywrite_check_writer(struct file *file);

void denywrite_add_exec_hooks(void);
void denywrite_add_write_hooks(void);
void denywrite_add_mmap_hooks(void);
void denywrite_add_lifetime_hooks(void);

#endif /* _SECURITY_DENYWRITE_HOOKS_H */
