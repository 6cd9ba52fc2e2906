// SPDX-License-Identifier: GPL-2.0-only
/*
 * denywrite: the hooks of exec
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
 *   denial failed there with EACCES; we fail with ETXTBSY).
 * It is released in file_release (hook_lifetime.c), when the file's last
 * reference goes, and in bprm_committing_creds for the binary binfmt_misc
 * hands on.
 */

#include <linux/binfmts.h>
#include <linux/fs.h>
#include <linux/lsm_hooks.h>

#include "common.h"
#include "decide.h"
#include "hooks.h"
#include "policy.h"
#include "protect.h"

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

static struct security_hook_list denywrite_exec_hooks[] __ro_after_init = {
	LSM_HOOK_INIT(file_post_open, hook_file_post_open),
	LSM_HOOK_INIT(bprm_check_security, hook_bprm_check_security),
	LSM_HOOK_INIT(bprm_committing_creds, hook_bprm_committing_creds),
	LSM_HOOK_INIT(mm_replace_exe_file, hook_mm_replace_exe_file),
};

/**
 * denywrite_add_exec_hooks - register the hooks of exec
 */
void __init denywrite_add_exec_hooks(void)
{
	security_add_hooks(denywrite_exec_hooks,
			   ARRAY_SIZE(denywrite_exec_hooks), &denywrite_lsmid);
}
