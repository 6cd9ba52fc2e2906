/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * denywrite: executable mappings
 */

#ifndef _SECURITY_DENYWRITE_MAPPING_H
#define _SECURITY_DENYWRITE_MAPPING_H

#include <linux/fs.h>
#include <linux/sched.h>

#include "common.h"
#include "protect.h"

/**
 * struct denywrite_task - the task blob
 * @pending: the record of the task's mapping under way while @pending.file
 *           is set (see mapping.c); only the task itself uses it, in its
 *           syscall and in the task work that runs when the syscall returns
 */
struct denywrite_task {
	struct denywrite_pending pending;
};

static inline struct denywrite_task *denywrite_task(const struct task_struct *task)
{
	return task->security + denywrite_blob_sizes.lbs_task;
}

int denywrite_protect_mapping(struct file *file, unsigned long start);
void denywrite_exec_mapping(struct file *file);

#endif /* _SECURITY_DENYWRITE_MAPPING_H */
