/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * denywrite: the decision, its log and its counters
 */

#ifndef _SECURITY_DENYWRITE_LOG_H
#define _SECURITY_DENYWRITE_LOG_H

#include <linux/fs.h>

#include "common.h"

/**
 * enum denywrite_op - operations denywrite can refuse
 * @DENYWRITE_OP_WRITE: open for writing a protected file
 * @DENYWRITE_OP_TRUNCATE: change the size of a protected file
 * @DENYWRITE_OP_EXEC: execute a covered file that is open for writing
 * @DENYWRITE_OP_MMAP: map executable a covered file open for writing
 * @DENYWRITE_OP_COUNT: number of operations
 */
enum denywrite_op {
	DENYWRITE_OP_WRITE,
	DENYWRITE_OP_TRUNCATE,
	DENYWRITE_OP_EXEC,
	DENYWRITE_OP_MMAP,
	DENYWRITE_OP_COUNT,
};

struct denywrite_policy;
struct denywrite_rule;

int denywrite_refuse_file(enum denywrite_op op, struct file *file,
			  const struct denywrite_rule *rule);
int denywrite_refuse_dentry(enum denywrite_op op, struct dentry *dentry);
const char *denywrite_op_name(enum denywrite_op op);
long denywrite_denied(enum denywrite_op op);
long denywrite_audited(void);
void denywrite_audit_mode(enum denywrite_mode old, enum denywrite_mode mode,
			  int err);
void denywrite_audit_policy(const char *op, size_t old_count,
			    const struct denywrite_policy *policy, int err);

#endif /* _SECURITY_DENYWRITE_LOG_H */
