// SPDX-License-Identifier: GPL-2.0-only
/*
 * denywrite: protecting files from writers
 *
 * An inode is protected while its holders count is above zero.  A file
 * (struct file) that is executed or mapped executable under a rule takes
 * one count, once, and marks itself; the count is dropped when the file's
 * last reference goes (file_release), which is when the last process that
 * runs or maps it has exited, exec'ed something else or unmapped it: the
 * executed file is referenced by mm->exe_file and by its mappings, a
 * mapped library by its mappings, and fork() shares those references.
 *
 * Writers and protectors race without a lock, Dekker style.  The VFS
 * raises i_writecount before it calls the file_open and inode_setattr
 * hooks; a protector raises holders, then reads i_writecount; a writer
 * (having raised i_writecount) reads holders.  A full barrier on each side
 * between its increment and its read guarantees that at least one of them
 * sees the other, so a writer and an exec can both fail but never both
 * succeed.
 */

#include <linux/atomic.h>
#include <linux/fs.h>

#include "protect.h"

static atomic_long_t protected_inodes = ATOMIC_LONG_INIT(0);

static void inode_hold(struct inode *inode)
{
	if (atomic_inc_return(&denywrite_inode(inode)->holders) == 1)
		atomic_long_inc(&protected_inodes);
}

static void inode_unhold(struct inode *inode)
{
	if (atomic_dec_and_test(&denywrite_inode(inode)->holders))
		atomic_long_dec(&protected_inodes);
}

/**
 * denywrite_inode_write_denied - would a writer of @inode be refused now?
 * @inode: the inode; the caller has already raised i_writecount for it
 *
 * Return: true if @inode is protected.
 */
bool denywrite_inode_write_denied(struct inode *inode)
{
	/* Pairs with the barrier in denywrite_file_protect(). */
	smp_mb();
	return atomic_read(&denywrite_inode(inode)->holders) > 0;
}

/**
 * denywrite_file_protect - protect @file's inode from writers
 * @file: a file being executed or mapped executable
 * @writers: how to treat an inode that is open for writing
 *
 * Idempotent: a file holds at most one count.  With DENYWRITE_WRITERS_CHECK
 * and the inode open for writing, nothing is held and -ETXTBSY is returned,
 * also for a file that is protected already under a rule that ignored
 * writers; a file that passed the check (or whose writers were allowed) is
 * not checked again, so one exec is refused, or audited, once.
 *
 * Return: 0 or -ETXTBSY.
 */
int denywrite_file_protect(struct file *file, enum denywrite_writers writers)
{
	struct denywrite_file *fblob = denywrite_file(file);
	struct inode *inode = file_inode(file);
	bool mine = !test_bit(DENYWRITE_FILE_PROTECTED, &fblob->flags);

	if (mine)
		inode_hold(inode);
	/* Pairs with the barrier in denywrite_inode_write_denied(). */
	smp_mb();
	if (writers == DENYWRITE_WRITERS_CHECK &&
	    !test_bit(DENYWRITE_FILE_CHECKED, &fblob->flags) &&
	    inode_is_open_for_write(inode)) {
		if (mine)
			inode_unhold(inode);
		return -ETXTBSY;
	}
	/* Another thread protecting the same file may have won the race. */
	if (mine && test_and_set_bit(DENYWRITE_FILE_PROTECTED, &fblob->flags))
		inode_unhold(inode);
	if (writers != DENYWRITE_WRITERS_IGNORE)
		set_bit(DENYWRITE_FILE_CHECKED, &fblob->flags);
	return 0;
}

/**
 * denywrite_file_release - drop @file's protection count, if it holds one
 * @file: a file whose last reference is going; its inode is still alive
 */
void denywrite_file_release(struct file *file)
{
	if (denywrite_file_is_protected(file))
		inode_unhold(file_inode(file));
}

/**
 * denywrite_protected_inodes - number of inodes protected now
 *
 * Return: the number of inodes whose holders count is above zero.
 */
long denywrite_protected_inodes(void)
{
	return atomic_long_read(&protected_inodes);
}
