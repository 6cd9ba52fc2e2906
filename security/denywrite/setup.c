// SPDX-License-Identifier: GPL-2.0-only
/*
 * denywrite: registration, boot parameters and the boot policy
 *
 * Booting with lsm=...,denywrite gives the classic behaviour: mode enforce
 * and the rule "exec /".  denywrite.mode= and denywrite.default= change
 * that.
 */

#define pr_fmt(fmt) "denywrite: " fmt

#include <linux/err.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/lsm_hooks.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <uapi/linux/lsm.h>

#include "common.h"
#include "hooks.h"
#include "mapping.h"
#include "policy.h"
#include "protect.h"

bool denywrite_enabled __ro_after_init;
static bool denywrite_classic __initdata = true;

static int __init set_mode(char *str)
{
	if (denywrite_mode_parse(str, &denywrite_mode))
		pr_warn("unknown denywrite.mode=%s, keeping %s\n", str,
			denywrite_mode_name(denywrite_mode));
	return 1;
}
__setup("denywrite.mode=", set_mode);

static int __init set_default(char *str)
{
	if (!strcmp(str, "classic"))
		denywrite_classic = true;
	else if (!strcmp(str, "none"))
		denywrite_classic = false;
	else
		pr_warn("unknown denywrite.default=%s, keeping %s\n", str,
			denywrite_classic ? "classic" : "none");
	return 1;
}
__setup("denywrite.default=", set_default);

struct lsm_blob_sizes denywrite_blob_sizes __ro_after_init = {
	/* A file that holds its inode records its hold in its own blob. */
	.lbs_file = sizeof(struct denywrite_file),
	.lbs_inode = sizeof(struct denywrite_inode),
	/* The ELF interpreter whose hold goes when exec returns. */
	.lbs_task = sizeof(struct denywrite_task),
};

const struct lsm_id denywrite_lsmid = {
	.name = DENYWRITE_NAME,
	.id = LSM_ID_DENYWRITE,
};

/*
 * Exec leaves the denial of writes to running programs to the policy,
 * once it is in force: exe_file_take_over_write_denial().  A kernel on
 * which denywrite is not active, or could not load the classic policy,
 * keeps exec's own denial.  Boot parameters that make the policy deny
 * less say so.
 */
static void __init take_over_exec_denial(void)
{
	exe_file_take_over_write_denial();
	if (!denywrite_classic)
		pr_warn("denywrite.default=none: no rules, writes to running programs are allowed until a policy is loaded\n");
	if (denywrite_get_mode() == DENYWRITE_MODE_OFF)
		pr_warn("denywrite.mode=off: writes to running programs are allowed until the mode is audit or enforce\n");
	if (denywrite_get_mode() == DENYWRITE_MODE_AUDIT)
		pr_warn("denywrite.mode=audit: writes to running programs are allowed, and logged, until the mode is enforce\n");
}

/*
 * The classic policy names no object, so it is published here, before the
 * first exec.
 */
static int __init denywrite_init(void)
{
	int err;

	denywrite_protect_init();
	denywrite_add_lifetime_hooks();
	denywrite_add_exec_hooks();
	denywrite_add_write_hooks();
	denywrite_add_mmap_hooks();
	denywrite_mode_init();
	denywrite_enabled = true;
	if (denywrite_classic) {
		err = denywrite_policy_classic();
		if (err) {
			pr_err("cannot load the classic policy (%d): exec keeps denying writes to running programs itself\n",
			       err);
			return 0;
		}
	}
	take_over_exec_denial();
	pr_info("up, mode %s, %s policy\n", denywrite_mode_name(denywrite_mode),
		denywrite_classic ? "classic" : "empty");
	return 0;
}

DEFINE_LSM(denywrite) = {
	.name = DENYWRITE_NAME,
	.init = denywrite_init,
	.blobs = &denywrite_blob_sizes,
};
