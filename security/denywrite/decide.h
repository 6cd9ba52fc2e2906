/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * denywrite: the decision
 */

#ifndef _SECURITY_DENYWRITE_DECIDE_H
#define _SECURITY_DENYWRITE_DECIDE_H

#include <linux/compiler.h>
#include <linux/fs.h>
#include <linux/path.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

#include "common.h"
#include "log.h"
#include "policy.h"
#include "protect.h"

/*
 * How a rule with @flags treats the writers of a file it protects: all of
 * them, or only shared writable mappings ("ignore-writers").
 */
static inline enum denywrite_writers denywrite_rule_writers(u8 flags)
{
	return flags & DENYWRITE_RULE_IGNORE_WRITERS ?
	       DENYWRITE_WRITERS_IGNORE : DENYWRITE_WRITERS_CHECK;
}

/*
 * The kind of hold a rule with @flags takes in @mode: in enforce mode,
 * without "ignore-writers", exec's denial of write access (the classic
 * behaviour, by construction); else one the hooks count.
 */
static inline unsigned int denywrite_hold_kind(u8 flags,
					       enum denywrite_mode mode)
{
	if (mode == DENYWRITE_MODE_ENFORCE)
		return flags & DENYWRITE_RULE_IGNORE_WRITERS ?
		       0 : DENYWRITE_HOLD_DENY;
	return mode == DENYWRITE_MODE_AUDIT ? DENYWRITE_HOLD_KEEP_BUSY : 0;
}

/*
 * Protect @file under a rule with @flags in @mode, which the caller read
 * in the read-side section it calls from: -ETXTBSY if busy.
 */
static inline int denywrite_protect(struct file *file, u8 flags,
				    enum denywrite_mode mode,
				    unsigned int hold)
{
	if (mode == DENYWRITE_MODE_OFF)
		return 0;
	return denywrite_file_protect(file, denywrite_rule_writers(flags),
				      hold | denywrite_hold_kind(flags, mode));
}

int denywrite_use_covered(struct file *file, const struct path *path,
			  u8 scope, enum denywrite_op op, unsigned int hold);
int __cold denywrite_busy_root(struct file *file, enum denywrite_mode mode);

/**
 * denywrite_use_root - protect @file for a mapping under the root rule
 * @file: a file being mapped executable
 * @flags: the root rule's DENYWRITE_RULE_* flags; the root rule alone has
 *         scope "lib" now
 *
 * The hot path of executable mappings under "all /": no policy lookup,
 * unless writers are found and the rule is wanted for the log
 * (denywrite_busy_root()).  The hold is taken in an RCU read-side
 * section, which costs less than the policy's SRCU section and is waited
 * for as well (see denywrite_file_protect()); the mode is read inside it.
 * Inline, in the hook's frame: every such mapping comes here.
 *
 * Return: 0, -ETXTBSY if the mode refuses the mapping (writers were
 * found), or another error of denywrite_file_protect().
 */
static __always_inline int denywrite_use_root(struct file *file, u8 flags)
{
	enum denywrite_mode mode;
	int err;

	if (FMODE_FSNOTIFY_HSM(file->f_mode))
		return 0;
	rcu_read_lock();
	mode = denywrite_get_mode();
	err = denywrite_protect(file, flags, mode, 0);
	rcu_read_unlock();
	if (unlikely(err == -ETXTBSY))
		return denywrite_busy_root(file, mode);
	return err;
}

int denywrite_use_exec_open(struct file *file);
void denywrite_use_late(struct file *file, u8 scope);
void denywrite_use_backing(struct file *file);
int denywrite_refuse_writer(struct file *file);
void denywrite_record_denied(const struct path *path, bool truncate);
int denywrite_refuse_truncate(struct dentry *dentry);

#endif /* _SECURITY_DENYWRITE_DECIDE_H */
