// SPDX-License-Identifier: GPL-2.0-only
/*
 * denywrite: the hooks of lifetimes
 *
 * A hold goes in file_release, when its file's last reference goes: when
 * the last process that runs or maps the file is done, since
 * mm->exe_file, the mappings and fork all share that reference.  The
 * rules on a filesystem go in sb_delete, when it goes away.  Both run in
 * every mode.
 */

#include <linux/fs.h>
#include <linux/lsm_hooks.h>

#include "common.h"
#include "hooks.h"
#include "log.h"
#include "policy.h"
#include "protect.h"

static void hook_file_release(struct file *file)
{
	denywrite_file_drop(file);
}

/* A filesystem goes away: the rules on it go with it, in any mode. */
static void hook_sb_delete(struct super_block *sb)
{
	struct denywrite_policy_change ch;

	if (denywrite_policy_unmount(sb, &ch))
		denywrite_audit_change("unmount", &ch, 0);
}

static struct security_hook_list denywrite_lifetime_hooks[] __ro_after_init = {
	LSM_HOOK_INIT(file_release, hook_file_release),
	LSM_HOOK_INIT(sb_delete, hook_sb_delete),
};

/**
 * denywrite_add_lifetime_hooks - register the hooks of lifetimes
 */
void __init denywrite_add_lifetime_hooks(void)
{
	security_add_hooks(denywrite_lifetime_hooks,
			   ARRAY_SIZE(denywrite_lifetime_hooks),
			   &denywrite_lsmid);
}
