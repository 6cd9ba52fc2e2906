// SPDX-License-Identifier: GPL-2.0-only
/*
 * denywrite: registration, boot parameters and the boot policy
 *
 * Booting with lsm=...,denywrite gives the behaviour of kernels before
 * "fs: don't block i_writecount during exec": mode enforce and the rule
 * "exec /".  denywrite.mode= and denywrite.default= change that.  Once
 * denywrite is up, exec no longer denies writes itself
 * (exe_file_write_denial): the policy does.  A kernel on which denywrite
 * is not active keeps exec's classic denial.
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

/*
 * The root is mounted after security_init(), so the boot policy is loaded
 * from an initcall, before init runs the first program.
 */
static int __init load_boot_policy(void)
{
	struct denywrite_policy *policy;
	size_t old_count;
	char *text;

	if (!denywrite_enabled || !denywrite_classic)
		return 0;
	text = kstrdup("exec /", GFP_KERNEL);
	if (!text)
		return -ENOMEM;
	policy = denywrite_policy_parse(text);
	kfree(text);
	if (IS_ERR(policy)) {
		pr_err("cannot load the boot policy: %ld\n", PTR_ERR(policy));
		return PTR_ERR(policy);
	}
	denywrite_policy_replace(policy, &old_count);
	return 0;
}
fs_initcall(load_boot_policy);

/* No file blob: a file that holds its inode is in the holds table. */
struct lsm_blob_sizes denywrite_blob_sizes __ro_after_init = {
	.lbs_inode = sizeof(struct denywrite_inode),
};

const struct lsm_id denywrite_lsmid = {
	.name = DENYWRITE_NAME,
	.id = LSM_ID_DENYWRITE,
};

static int __init denywrite_init(void)
{
	int err = denywrite_protect_init();

	if (err)
		return err;
	denywrite_add_hooks();
	denywrite_mode_init();
	denywrite_enabled = true;
	/* From now on the policy denies writes; exec itself no longer does. */
	exe_file_write_denial = false;
	pr_info("up, mode %s, %s policy\n", denywrite_mode_name(denywrite_mode),
		denywrite_classic ? "classic" : "empty");
	return 0;
}

DEFINE_LSM(denywrite) = {
	.name = DENYWRITE_NAME,
	.init = denywrite_init,
	.blobs = &denywrite_blob_sizes,
};
