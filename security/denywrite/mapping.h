/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * denywrite: executable mappings
 */

#ifndef _SECURITY_DENYWRITE_MAPPING_H
#define _SECURITY_DENYWRITE_MAPPING_H

#include <linux/fs.h>

int denywrite_protect_mapping(struct file *file, unsigned long start);
void denywrite_exec_mapping(struct file *file);

#endif /* _SECURITY_DENYWRITE_MAPPING_H */
