/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * denywrite: executable mappings
 */

#ifndef _SECURITY_DENYWRITE_MAPPING_H
#define _SECURITY_DENYWRITE_MAPPING_H

#include <linux/fs.h>
#include <linux/sched.h>
#include <linux/types.h>

#include "common.h"

/**
 * struct denywrite_task - the task blob
 * @work: drops @interpreter's hold when exec returns to user space
 * @interpreter: the ELF interpreter whose transient hold is to go, or
 *               NULL; only the task itself uses it, in exec and in @work
 */
struct denywrite_task {
	struct callback_head work;
	struct file *interpreter;
};

static inline struct denywrite_task *denywrite_task(const struct task_struct *task)
{
	return task->security + denywrite_blob_sizes.lbs_task;
}

int denywrite_protect_mapping(struct file *file);
#if IS_ENABLED(CONFIG_KUNIT)
bool denywrite_mode_decides_writes(const struct inode *inode);
#endif
void denywrite_exec_mapping(struct file *file);

#endif /* _SECURITY_DENYWRITE_MAPPING_H */
