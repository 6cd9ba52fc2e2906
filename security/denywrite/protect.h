/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * denywrite: per-inode protection count and per-file mark
 */

#ifndef _SECURITY_DENYWRITE_PROTECT_H
#define _SECURITY_DENYWRITE_PROTECT_H

#include <linux/atomic.h>
#include <linux/fs.h>

#include "common.h"

/**
 * struct denywrite_inode - inode security blob
 * @holders: number of open files (struct file) that protect this inode:
 *           each file that was executed or mapped executable under a rule
 *           counts once, until its last reference is dropped.  Changed
 *           with atomic operations only; see denywrite_file_protect() for
 *           the ordering against i_writecount.
 */
struct denywrite_inode {
	atomic_t holders;
};

/* The file holds one count of its inode's denywrite_inode.holders. */
#define DENYWRITE_FILE_PROTECTED	0
/* The check for writers was done (passed, or was audited) for this file. */
#define DENYWRITE_FILE_CHECKED		1

/**
 * struct denywrite_file - file security blob
 * @flags: DENYWRITE_FILE_* bits, changed with atomic bit operations; each
 *         bit is set at most once in a file's life and read without locks.
 */
struct denywrite_file {
	unsigned long flags;
};

static inline struct denywrite_inode *denywrite_inode(const struct inode *inode)
{
	return inode->i_security + denywrite_blob_sizes.lbs_inode;
}

static inline struct denywrite_file *denywrite_file(const struct file *file)
{
	return file->f_security + denywrite_blob_sizes.lbs_file;
}

/**
 * denywrite_file_is_protected - does @file hold a protection count?
 * @file: the file
 *
 * Return: true if @file was executed or mapped executable under a rule.
 */
static inline bool denywrite_file_is_protected(const struct file *file)
{
	return test_bit(DENYWRITE_FILE_PROTECTED, &denywrite_file(file)->flags);
}

/**
 * enum denywrite_writers - how denywrite_file_protect() treats writers
 * @DENYWRITE_WRITERS_CHECK: refuse if the file is open for writing, unless
 *                           this file passed the check before
 * @DENYWRITE_WRITERS_IGNORE: do not look (rule option ignore-writers)
 * @DENYWRITE_WRITERS_ALLOWED: writers were found and allowed (audit mode):
 *                             do not look, and do not look again later
 */
enum denywrite_writers {
	DENYWRITE_WRITERS_CHECK,
	DENYWRITE_WRITERS_IGNORE,
	DENYWRITE_WRITERS_ALLOWED,
};

bool denywrite_inode_write_denied(struct inode *inode);
int denywrite_file_protect(struct file *file, enum denywrite_writers writers);
void denywrite_file_release(struct file *file);
long denywrite_protected_inodes(void);

#endif /* _SECURITY_DENYWRITE_PROTECT_H */
