/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * denywrite: per-inode protection count and per-file holds
 */

#ifndef _SECURITY_DENYWRITE_PROTECT_H
#define _SECURITY_DENYWRITE_PROTECT_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/fs.h>

#include "common.h"

/**
 * struct denywrite_inode - inode security blob
 * @holders: number of counted holds on this inode: each open file (struct
 *           file) that was executed or mapped executable under a rule, and
 *           whose writers the hooks refuse (audit mode, "ignore-writers",
 *           or writers found by a protection that cannot fail), holds its
 *           inode once, and the inode behind it on a stacked filesystem
 *           (see denywrite_file_protect()), until its last reference is
 *           dropped.  Changed with atomic operations only.
 * @denials: number of denying holds on this inode: holds that denied
 *           write access through i_writecount, as exec does (enforce mode,
 *           no "ignore-writers").  The VFS refuses the writers of those
 *           itself, with stock's ordering: see denywrite_file_protect().
 * @claims: number of protectors checking this inode's writers for a
 *          counted hold now; a protector that finds none turns its claim
 *          into a hold.  New writers are refused while a claim or a
 *          counted hold is up, writes through files opened before only
 *          while a counted hold is, so that a protector that fails leaves
 *          no trace on them.  See denywrite_file_protect().
 * @shared_write: set for good once a tmpfs or memfd file (shmem) was
 *                mapped shared writable: long-term pins of its pages are
 *                looked for only then (see has_pinned_pages())
 * @namer: a file that holds this inode, or NULL: the path the record of a
 *         refused writer names (denywrite_inode_get_holder()).  Set by each
 *         hold of a file that is not a backing file, cleared with cmpxchg()
 *         by whatever drops that file's hold; it holds no reference.
 */
struct denywrite_inode {
	atomic_t holders;
	atomic_t denials;
	atomic_t claims;
	bool shared_write;
	struct file *namer;
};

/**
 * struct denywrite_file - file security blob
 * @flags: the HOLD_* bits of the file's hold (protect.c), with HOLD_HELD
 *         while it has one: set with cmpxchg() from 0 by the protector
 *         that takes the hold, changed with atomic bit operations by the
 *         protectors of the file and the switch to audit mode, and cleared
 *         under the lock of the list the file is on by whatever drops the
 *         hold
 * @file: the file, for the walks of the lists
 * @other: the second inode the hold holds (a stacked file's), or NULL
 * @node: on the list of held files of the CPU @cpu while the file has a
 *        hold, empty otherwise
 * @cpu: the CPU whose list @node is on; @file, @other and @cpu are
 *       written before the file goes on it
 * @marked: the generation of holds (protect.c) in which a write through
 *          the file was audited, or 0: the write was logged, later ones
 *          are not (denywrite_file_mark_audited())
 *
 * A hold lives with its file, so that finding and dropping it takes no
 * lookup; the lists are for the mode switches, which drop or change every
 * hold there is.
 */
struct denywrite_file {
	unsigned long flags;
	struct file *file;
	const struct inode *other;
	struct hlist_node node;
	int cpu;
	unsigned int marked;
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
 * denywrite_inode_protected - do the hooks refuse @inode's writers now?
 * @inode: the inode
 *
 * For writes through a file that is already open: no ordering with
 * protectors is needed there, the writer's count was raised at open.  A
 * denying hold is not counted here: while it is up, no file of @inode is
 * open for writing (the VFS refuses new ones), and the writers that
 * i_writecount never counted (a memfd's own descriptor) write as they do
 * on a kernel whose exec denies write access.
 *
 * Return: true if some file holds @inode with a counted hold.
 */
static inline bool denywrite_inode_protected(const struct inode *inode)
{
	return atomic_read(&denywrite_inode(inode)->holders) > 0;
}

/**
 * denywrite_inode_held - does any file hold @inode now?
 * @inode: the inode
 *
 * Return: true if some file holds @inode, with a counted or a denying hold.
 */
static inline bool denywrite_inode_held(const struct inode *inode)
{
	const struct denywrite_inode *blob = denywrite_inode(inode);

	return atomic_read(&blob->holders) | atomic_read(&blob->denials);
}

/**
 * denywrite_inode_write_denied - would a new writer of @inode be refused?
 * @inode: the inode; the caller has already raised i_writecount for it
 *
 * Inline: every open for writing asks.
 *
 * Return: true if @inode is protected, or a protector is checking it.
 */
static inline bool denywrite_inode_write_denied(const struct inode *inode)
{
	const struct denywrite_inode *blob = denywrite_inode(inode);
	int claims;

	/* Pairs with the barrier in denywrite_file_protect(). */
	smp_mb();
	claims = atomic_read(&blob->claims);
	/* A protector raises holders before it drops its claim. */
	smp_rmb();
	return claims | atomic_read(&blob->holders);
}

/**
 * denywrite_inode_truncate_denied - would this size change be refused?
 * @inode: the inode
 * @ia_valid: the ATTR_* bits of the change
 *
 * ftruncate() changes the size through a file opened for writing before
 * (ATTR_FILE): refused only by a hold, as a write(2) is.  A truncating
 * open (ATTR_OPEN, also with O_RDONLY) and truncate(2) are new writers:
 * the VFS raised i_writecount for them just before, and they are refused
 * while a protector checks the writers too.
 *
 * Return: true if the change must be refused.
 */
static inline bool denywrite_inode_truncate_denied(const struct inode *inode,
						   unsigned int ia_valid)
{
	if ((ia_valid & (ATTR_FILE | ATTR_OPEN)) == ATTR_FILE)
		return denywrite_inode_protected(inode);
	return denywrite_inode_write_denied(inode);
}

/**
 * enum denywrite_writers - how denywrite_file_protect() treats writers
 * @DENYWRITE_WRITERS_CHECK: the file must not be open for writing nor have
 *                           a shared writable mapping, unless this file
 *                           passed the check before
 * @DENYWRITE_WRITERS_IGNORE: the file must not have a shared writable
 *                            mapping (rule option ignore-writers)
 * @DENYWRITE_WRITERS_NONE: check nothing, and do not check again later: the
 *                          file backs one that passed its checks
 */
enum denywrite_writers {
	DENYWRITE_WRITERS_CHECK,
	DENYWRITE_WRITERS_IGNORE,
	DENYWRITE_WRITERS_NONE,
};

/*
 * The hold may be dropped by denywrite_file_drop_transient(); a later
 * protection without it makes it stay.
 */
#define DENYWRITE_HOLD_TRANSIENT	BIT(0)
/*
 * Hold the file even when writers are found, and do not check them again
 * later (audit mode: they are logged once, and allowed).
 */
#define DENYWRITE_HOLD_KEEP_BUSY	BIT(1)
/*
 * Deny write access to the file's inode as exec does, through i_writecount
 * (enforce mode, no "ignore-writers"): see denywrite_file_protect().
 */
#define DENYWRITE_HOLD_DENY		BIT(2)

int denywrite_file_protect(struct file *file, enum denywrite_writers writers,
			   unsigned int hold);
bool denywrite_file_transient(struct file *file);
struct file *denywrite_inode_get_holder(struct inode *inode);
void denywrite_shared_write(struct file *file);
void denywrite_file_drop_transient(struct file *file);
void denywrite_file_drop_held(struct file *file);
bool denywrite_file_mark_audited(struct file *file);
long denywrite_protected_inodes(void);
void denywrite_protect_start(void);
void denywrite_protect_relax(void);
void denywrite_protect_stop(void);
void denywrite_protect_init(void);

/* Set in a file blob's flags while the file has a hold (protect.c). */
#define DENYWRITE_FILE_HELD	BIT(3)

/**
 * denywrite_file_is_protected - does @file hold its inode?
 * @file: the file
 *
 * Inline: every executable mapping and every release asks.  A hint, as a
 * protection may be racing with it.
 *
 * Return: true if @file was executed or mapped executable under a rule.
 */
static inline bool denywrite_file_is_protected(const struct file *file)
{
	return READ_ONCE(denywrite_file(file)->flags) & DENYWRITE_FILE_HELD;
}

/**
 * denywrite_file_drop - drop @file's hold, if it has one
 * @file: as for denywrite_file_drop_held()
 *
 * Inline: every release asks, and only a held file calls out.
 */
static inline void denywrite_file_drop(struct file *file)
{
	if (denywrite_file_is_protected(file))
		denywrite_file_drop_held(file);
}

#endif /* _SECURITY_DENYWRITE_PROTECT_H */
