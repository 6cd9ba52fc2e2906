/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * denywrite: the decision
 */

#ifndef _SECURITY_DENYWRITE_DECIDE_H
#define _SECURITY_DENYWRITE_DECIDE_H

#include <linux/fs.h>
#include <linux/path.h>
#include <linux/types.h>

#include "log.h"

int denywrite_use_covered(struct file *file, const struct path *path,
			  u8 scope, enum denywrite_op op, unsigned int hold);
int denywrite_use_root(struct file *file, u8 scope, u8 flags,
		       enum denywrite_op op, unsigned int hold);
int denywrite_use_exec_open(struct file *file);
void denywrite_use_late(struct file *file, u8 scope);
void denywrite_use_backing(struct file *file);
int denywrite_refuse_writer(struct file *file);
void denywrite_record_denied(const struct path *path, bool truncate);
int denywrite_refuse_truncate(struct dentry *dentry);

#endif /* _SECURITY_DENYWRITE_DECIDE_H */
