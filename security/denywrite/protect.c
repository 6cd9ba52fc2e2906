// SPDX-License-Identifier: GPL-2.0-only
/*
 * denywrite: protecting files from writers
 *
 * An inode is protected while its holders count is above zero.  A file
 * (struct file) that is executed or mapped executable under a rule holds
 * its inode once; the hold is dropped when the file's last reference goes
 * (file_release), which is when the last process that runs or maps it has
 * exited, exec'ed something else or unmapped it: the executed file is
 * referenced by mm->exe_file and by its mappings, a mapped library by its
 * mappings, and fork() shares those references.
 *
 * Files that are never protected (nearly all of them) carry nothing: no
 * file blob, no allocation at open.  A hold is recorded in the slot of its
 * inode's blob when that is free and the file is not stacked, which is the
 * common case of an inode held by one file at a time (a program, a library
 * mapped by one process, a file mapped and unmapped again and again); the
 * other holds, of a library that many processes opened each for itself,
 * go into a hash table keyed by the file.  A file whose inode has no
 * holder at all is never looked up.
 *
 * On a stacked filesystem (overlayfs, FUSE passthrough) two files stand
 * for one: the file the process opened, on the stacking inode, and the
 * backing file on the real inode, which mmap() puts into the mapping in
 * its place.  A counted hold on either holds both inodes, so that writes
 * through the merged path and to the real file are refused alike.  A
 * denying hold holds its own inode only, as exec's denial does; the
 * backing file of a mapping under a "lib" rule gets a hold of its own
 * (mmap_backing_file), which lasts as long as the mapping does.
 *
 * In audit mode, writes through a file that was let through are logged
 * once for that file: the file is marked in a second table, so that a
 * writer of a protected file cannot flood the log.
 *
 * There are two kinds of hold.  A denying hold (enforce mode, a rule
 * without "ignore-writers") is exec's own denial: deny_write_access() makes
 * i_writecount negative, which fails if the file is open for writing, and
 * while it is negative the VFS refuses every new writer in
 * get_write_access() before any hook runs.  So a refused writer or a
 * refused protector leaves no trace, and writers and protectors order
 * exactly as they do on a kernel whose exec denies write access, whatever
 * the interleaving.  The hooks refuse nothing for it (the VFS did), and
 * only record the refusal (see hooks.c).
 *
 * A counted hold (audit mode, "ignore-writers", or a protection that cannot
 * fail and found writers) raises the inode's holders count, and the hooks
 * refuse the writers.  Writers and protectors of counted holds race
 * without a lock, Dekker style.  The VFS raises i_writecount before the
 * file_open and inode_setattr hooks run; a protector raises the inode's
 * claims, then reads i_writecount; a new writer (having raised
 * i_writecount) reads claims and holders.  A full barrier on each side
 * between its increment and its reads guarantees that at least one of them
 * sees the other, so a new writer and an exec can both fail but never both
 * succeed.  A protector that finds no writer raises holders before it
 * drops its claim, so a writer that finds no claim finds the hold.  A
 * writer whose file is open already is refused only by a hold: the
 * protectors that might race with it see its i_writecount and back off,
 * and must not make its writes fail while they do.
 */

#include <linux/atomic.h>
#include <linux/dcache.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/rhashtable.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/shmem_fs.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "protect.h"

/* Set once the writers of the file were checked (or allowed). */
#define HOLD_CHECKED	0
/*
 * Taken when the kernel opened the file to execute it under an "exec" rule
 * only: kept if it turns out to be the program (bprm_check_security),
 * dropped when exec maps it as the ELF interpreter.
 */
#define HOLD_TRANSIENT	1
/*
 * A denying hold: it took one of i_writecount's denials of each inode it
 * holds (see deny_inodes()) and counts in their denials, not in holders.
 * Cleared, and the hold made a counted one, by the switch to audit mode
 * only (denywrite_protect_relax()).
 */
#define HOLD_DENIED	2
/* The HOLD_* bits, in the low bits of a slot beside the file pointer. */
#define HOLD_FLAGS	(BIT(HOLD_CHECKED) | BIT(HOLD_TRANSIENT) | \
			 BIT(HOLD_DENIED))

/**
 * struct denywrite_hold - a file that holds its inodes, in the holds table
 * @node: in the holds table
 * @file: the file, the key
 * @inodes: the inodes held: the file's, and for a counted hold the other
 *          one of a stacked file (see hold_inodes()) or NULL
 * @flags: HOLD_* bits, changed with atomic bit operations
 * @rcu: to free it after lookups under RCU
 */
struct denywrite_hold {
	struct rhash_head node;
	struct file *file;
	const struct inode *inodes[2];
	unsigned long flags;
	struct rcu_head rcu;
};

static const struct rhashtable_params hold_params = {
	.key_len = sizeof(struct file *),
	.key_offset = offsetof(struct denywrite_hold, file),
	.head_offset = offsetof(struct denywrite_hold, node),
	.automatic_shrinking = true,
};

/**
 * struct denywrite_mark - a file whose writes were audited once
 * @node: in the marks table
 * @file: the file, the key
 * @inode: its inode
 * @rcu: to free it after lookups under RCU
 */
struct denywrite_mark {
	struct rhash_head node;
	struct file *file;
	const struct inode *inode;
	struct rcu_head rcu;
};

static const struct rhashtable_params mark_params = {
	.key_len = sizeof(struct file *),
	.key_offset = offsetof(struct denywrite_mark, file),
	.head_offset = offsetof(struct denywrite_mark, node),
	.automatic_shrinking = true,
};

static struct rhashtable holds, marks;
static struct kmem_cache *hold_cache __ro_after_init;
static atomic_long_t protected_inodes = ATOMIC_LONG_INIT(0);

/*
 * Holds and marks are taken only while this is set, that is, while the
 * mode is not off; see denywrite_protect_stop().
 */
static bool tracking;

/* May holds and marks be taken? */
static bool tracking_on(void)
{
	/* Pairs with the smp_store_release() in denywrite_protect_start(). */
	return smp_load_acquire(&tracking);
}

/*
 * A file's hold is in its inode's slot or in the table, found in that
 * order; the slot is taken with cmpxchg() when it is free, the table dedups
 * its entries.  Two threads that protect one file at the same time record
 * it once: the one that finds the other's record drops its own hold on the
 * inodes.  One race leaves a file with a hold in each place (a thread went
 * to the table because another file had the slot, which a second thread
 * found free a moment later); both are dropped when the file is released,
 * and the file is held, as it should be, until then.  A record is changed
 * only by the threads that protect its file and by the switch to audit
 * mode, with atomic operations, and removed only when its file is
 * released, when the mode goes off, and for a transient hold or the
 * binary binfmt_misc hands on by the exec that opened the file.
 */

/*
 * The inodes a denying hold on @file protects: its own, as exec's denial,
 * and for a backing file (which only a mapping under a "lib" rule holds)
 * the inode of the file the process opened too, so that the mapped file
 * is not written through the merged path either.
 */
static void deny_inodes(struct file *file, const struct inode *inodes[2])
{
	inodes[0] = file_inode(file);
	inodes[1] = NULL;
	if ((file->f_mode & FMODE_BACKING) && file_user_inode(file) != inodes[0])
		inodes[1] = file_user_inode(file);
}

/*
 * The inodes a counted hold on @file protects.  Both outlive the file: the
 * real inode of an overlayfs file is pinned by its overlayfs inode, the
 * user inode of a backing file by the backing file's user path.
 */
static void hold_inodes(struct file *file, const struct inode *inodes[2])
{
	inodes[0] = file_inode(file);
	if (file->f_mode & FMODE_BACKING)
		inodes[1] = file_user_inode(file);
	else
		inodes[1] = d_real_inode(file->f_path.dentry);
	if (inodes[1] == inodes[0])
		inodes[1] = NULL;
}

/*
 * Raise a count unless it would wrap: a holders count that wrapped to zero
 * would leave a file unprotected.  The count before, or -1 if it is full.
 */
static int count_inc(atomic_t *count)
{
	int old = atomic_fetch_add_unless(count, 1, INT_MAX);

	return old == INT_MAX ? -1 : old;
}

static int inodes_claim(const struct inode *const inodes[2])
{
	if (count_inc(&denywrite_inode(inodes[0])->claims) < 0)
		return -EOVERFLOW;
	if (inodes[1] && count_inc(&denywrite_inode(inodes[1])->claims) < 0) {
		atomic_dec(&denywrite_inode(inodes[0])->claims);
		return -EOVERFLOW;
	}
	return 0;
}

static void inodes_unclaim(const struct inode *const inodes[2])
{
	size_t i;

	for (i = 0; i < 2 && inodes[i]; i++)
		atomic_dec(&denywrite_inode(inodes[i])->claims);
}

/*
 * Raise an inode's holders or denials count; the protected inodes count an
 * inode once for each kind of hold it has (both only while the mode goes
 * from audit to enforce, or a hold that cannot fail found writers).
 */
static bool count_hold(atomic_t *count)
{
	int old = count_inc(count);

	if (!old)
		atomic_long_inc(&protected_inodes);
	return old >= 0;
}

static void count_unhold(atomic_t *count)
{
	if (atomic_dec_and_test(count))
		atomic_long_dec(&protected_inodes);
}

static bool inode_hold(const struct inode *inode)
{
	return count_hold(&denywrite_inode(inode)->holders);
}

static void inode_unhold(const struct inode *inode)
{
	count_unhold(&denywrite_inode(inode)->holders);
}

/*
 * A denying hold of @inode: exec's own denial of write access
 * (deny_write_access()), which fails at once, leaving nothing behind, if
 * the inode is open for writing; then no new writer gets in
 * (get_write_access() fails) until inode_undeny().
 */
static int inode_deny(const struct inode *inode)
{
	atomic_t *count = &((struct inode *)inode)->i_writecount;

	if (!atomic_dec_unless_positive(count))
		return -ETXTBSY;
	if (!count_hold(&denywrite_inode(inode)->denials)) {
		atomic_inc(count);
		return -EOVERFLOW;
	}
	return 0;
}

/*
 * Drop a denying hold of @inode: i_writecount first, so that a writer the
 * open hook refuses because it still sees the denial is refused at a point
 * where the VFS would have refused it too.
 */
static void inode_undeny(const struct inode *inode)
{
	atomic_inc(&((struct inode *)inode)->i_writecount);
	count_unhold(&denywrite_inode(inode)->denials);
}

static int inodes_deny(const struct inode *const inodes[2])
{
	int err = inode_deny(inodes[0]);

	if (err || !inodes[1])
		return err;
	err = inode_deny(inodes[1]);
	if (err)
		inode_undeny(inodes[0]);
	return err;
}

static void inodes_undeny(const struct inode *const inodes[2])
{
	inode_undeny(inodes[0]);
	if (inodes[1])
		inode_undeny(inodes[1]);
}

static int inodes_hold(const struct inode *const inodes[2])
{
	if (!inode_hold(inodes[0]))
		return -EOVERFLOW;
	if (inodes[1] && !inode_hold(inodes[1])) {
		inode_unhold(inodes[0]);
		return -EOVERFLOW;
	}
	return 0;
}

static void inodes_unhold(const struct inode *const inodes[2])
{
	inode_unhold(inodes[0]);
	if (inodes[1])
		inode_unhold(inodes[1]);
}

/**
 * denywrite_shared_write - @file is being mapped shared writable
 * @file: the file
 *
 * Called in every mode: a pin taken through such a mapping outlives the
 * mapping, and the mode.
 */
void denywrite_shared_write(struct file *file)
{
	struct inode *inode = file_inode(file);

	if (shmem_mapping(inode->i_mapping))
		WRITE_ONCE(denywrite_inode(inode)->shared_write, true);
}

/*
 * Pages of a tmpfs or memfd file that are pinned long-term (io_uring fixed
 * buffers, RDMA) are written without the file, also after the mapping they
 * were pinned through is gone.  Only shmem lets such pins write a file
 * (other filesystems need to track dirty pages, and GUP refuses them), and
 * F_SEAL_WRITE refuses them the same way (memfd_wait_for_pins()).  A pin
 * for writing needs a shared writable mapping first: the pages of a file
 * never mapped so are not looked at, which spares the exec of every
 * program on tmpfs a walk of its pages.  Called under RCU.
 */
static bool has_pinned_pages(const struct inode *inode)
{
	XA_STATE(xas, &inode->i_mapping->i_pages, 0);
	struct folio *folio;

	/*
	 * The flag was set before the mapping it was set for counted in
	 * i_mmap_writable, which the caller has just read as 0: read it
	 * after that count.
	 */
	smp_rmb();
	if (!READ_ONCE(denywrite_inode(inode)->shared_write) ||
	    !shmem_mapping(inode->i_mapping))
		return false;
	xas_for_each(&xas, folio, ULONG_MAX) {
		if (xas_retry(&xas, folio) || xa_is_value(folio))
			continue;
		if (folio_maybe_dma_pinned(folio))
			return true;
	}
	return false;
}

/* Would a file of these inodes let writes in while it runs? */
static bool has_writers(const struct inode *const inodes[2],
			enum denywrite_writers writers)
{
	size_t i;

	for (i = 0; i < 2 && inodes[i]; i++) {
		/*
		 * A store through a shared writable mapping or a long-term pin
		 * cannot be refused without killing the writer, so such a file
		 * is never run.
		 */
		if (mapping_writably_mapped(inodes[i]->i_mapping) ||
		    has_pinned_pages(inodes[i]))
			return true;
		if (writers == DENYWRITE_WRITERS_CHECK &&
		    inode_is_open_for_write(inodes[i]))
			return true;
	}
	return false;
}

static bool slot_has(unsigned long slot, const struct file *file)
{
	return (slot & ~HOLD_FLAGS) == (unsigned long)file;
}

/* The entry of @file in the holds table, or NULL. */
static noinline struct denywrite_hold *hold_lookup(struct file *file)
{
	return rhashtable_lookup_fast(&holds, &file, hold_params);
}

/*
 * The flags of @file's hold (in its inode's slot, or in its entry of the
 * table), or NULL if it has none.  A record is never removed while its
 * file may still be protected, so a record found by a thread that protects
 * the file stays; a file with no record may get one at any time.
 */
static inline unsigned long *hold_find(struct file *file)
{
	struct denywrite_inode *blob = denywrite_inode(file_inode(file));
	struct denywrite_hold *hold;

	if (!atomic_read(&blob->holders) && !atomic_read(&blob->denials))
		return NULL;
	if (slot_has(READ_ONCE(blob->slot), file))
		return &blob->slot;
	hold = hold_lookup(file);
	return hold ? &hold->flags : NULL;
}

/* The hold in the table whose flags @flags are, or NULL for a slot. */
static struct denywrite_hold *hold_entry(struct file *file,
					 unsigned long *flags)
{
	if (flags == &denywrite_inode(file_inode(file))->slot)
		return NULL;
	return container_of(flags, struct denywrite_hold, flags);
}

/* The inodes that the hold of @file, whose flags are @flags, holds. */
static void held_inodes(struct file *file, unsigned long *flags,
			const struct inode *inodes[2])
{
	struct denywrite_hold *hold = hold_entry(file, flags);

	inodes[0] = file_inode(file);
	inodes[1] = hold ? hold->inodes[1] : NULL;
}

/*
 * Another protection of a held file: confirm it, check its writers.  With
 * DENYWRITE_HOLD_KEEP_BUSY, writers found are reported once, and the file
 * stays held.
 */
static int hold_update(struct file *file, unsigned long *flags,
		       enum denywrite_writers writers, unsigned int hold)
{
	const struct inode *inodes[2];
	int err = 0;

	if (!(hold & DENYWRITE_HOLD_TRANSIENT))
		clear_bit(HOLD_TRANSIENT, flags);
	if (writers == DENYWRITE_WRITERS_CHECK && !test_bit(HOLD_CHECKED, flags)) {
		held_inodes(file, flags, inodes);
		if (has_writers(inodes, writers))
			err = -ETXTBSY;
		if (err && !(hold & DENYWRITE_HOLD_KEEP_BUSY))
			return err;
	}
	if (writers != DENYWRITE_WRITERS_IGNORE)
		set_bit(HOLD_CHECKED, flags);
	return err;
}

/* Drop a hold of @inodes, whose kind is in @flags. */
static void hold_undo(const struct inode *const inodes[2], unsigned long flags)
{
	if (flags & BIT(HOLD_DENIED))
		inodes_undeny(inodes);
	else
		inodes_unhold(inodes);
}

/*
 * Record the hold of @file on @inodes in the table, after another file
 * took the slot or for a stacked file.  Called in the RCU read-side
 * section of denywrite_file_protect(), which it leaves to allocate: the
 * hold is counted already, so that denywrite_protect_stop() leaves
 * file_release on; it is recorded only if holds may still be taken.
 */
static int hold_insert(struct file *file, const struct inode *const inodes[2],
		       unsigned long flags, enum denywrite_writers writers,
		       unsigned int how)
{
	struct denywrite_hold *hold, *old;

	rcu_read_unlock();
	hold = kmem_cache_zalloc(hold_cache, GFP_KERNEL);
	rcu_read_lock();
	if (!hold) {
		hold_undo(inodes, flags);
		return -ENOMEM;
	}
	if (!tracking_on()) {
		kmem_cache_free(hold_cache, hold);
		hold_undo(inodes, flags);
		return 0;
	}
	hold->file = file;
	hold->inodes[0] = inodes[0];
	hold->inodes[1] = inodes[1];
	hold->flags = flags;
	old = rhashtable_lookup_get_insert_fast(&holds, &hold->node,
						hold_params);
	if (!old)
		return 0;
	kmem_cache_free(hold_cache, hold);
	hold_undo(inodes, flags);
	if (IS_ERR(old))
		return PTR_ERR(old);
	return hold_update(file, &old->flags, writers, how);
}

/*
 * Record the hold of @file, of the kind and with the flags @flags: in the
 * slot of its inode if that is free and the hold is on one inode (no
 * allocation, no table), else in the table.  A backing file goes to the
 * table: it is freed without a grace period, and the slot's file is read
 * under RCU (denywrite_inode_get_slot_file()).  If another thread recorded
 * a hold of @file first, drop ours and update that one.
 */
static int hold_record(struct file *file, const struct inode *const inodes[2],
		       unsigned long flags, enum denywrite_writers writers,
		       unsigned int hold)
{
	struct denywrite_inode *blob;
	unsigned long slot;

	if (inodes[1] || (file->f_mode & FMODE_BACKING))
		return hold_insert(file, inodes, flags, writers, hold);
	blob = denywrite_inode(inodes[0]);
	slot = cmpxchg(&blob->slot, 0, (unsigned long)file | flags);
	if (!slot)
		return 0;
	if (!slot_has(slot, file))
		return hold_insert(file, inodes, flags, writers, hold);
	hold_undo(inodes, flags);
	return hold_update(file, &blob->slot, writers, hold);
}

/*
 * Protect @file, which had no hold when we looked.  A denying hold is
 * exec's denial of write access to its inode, nothing more: no claim, no
 * other check, and no trace if it fails.  A counted hold claims the file's
 * inodes, checks their writers, and holds them.
 */
static int hold_take(struct file *file, enum denywrite_writers writers,
		     unsigned int hold)
{
	const struct inode *inodes[2];
	unsigned long flags = 0;
	bool busy;
	int err;

	if (writers != DENYWRITE_WRITERS_IGNORE)
		flags |= BIT(HOLD_CHECKED);
	if (hold & DENYWRITE_HOLD_TRANSIENT)
		flags |= BIT(HOLD_TRANSIENT);
	if (hold & DENYWRITE_HOLD_DENY) {
		deny_inodes(file, inodes);
		err = inodes_deny(inodes);
		if (!err)
			return hold_record(file, inodes, flags | BIT(HOLD_DENIED),
					   writers, hold);
		/* A protection that cannot fail holds a busy file counted. */
		if (err != -ETXTBSY || writers != DENYWRITE_WRITERS_NONE)
			return err;
	}

	hold_inodes(file, inodes);
	err = inodes_claim(inodes);
	if (err)
		return err;
	/* Pairs with the barrier in denywrite_inode_write_denied(). */
	smp_mb();
	busy = writers != DENYWRITE_WRITERS_NONE &&
	       has_writers(inodes, writers);
	if (!busy || (hold & DENYWRITE_HOLD_KEEP_BUSY)) {
		err = inodes_hold(inodes);
		/* Pairs with the smp_rmb() in denywrite_inode_write_denied(). */
		smp_mb();
	}
	inodes_unclaim(inodes);
	if (err)
		return err;
	if (busy && !(hold & DENYWRITE_HOLD_KEEP_BUSY))
		return -ETXTBSY;
	err = hold_record(file, inodes, flags, writers, hold);
	return err ?: busy ? -ETXTBSY : 0;
}

/**
 * denywrite_file_protect - protect @file's inodes from writers
 * @file: a file being executed or mapped executable
 * @writers: how to treat a file that is open for writing
 * @hold: DENYWRITE_HOLD_* flags
 *
 * Idempotent: a file holds its inodes at most once.  If the check that
 * @writers asks for finds a writer, -ETXTBSY is returned, and nothing is
 * held unless @hold has DENYWRITE_HOLD_KEEP_BUSY; also for a file that is
 * held already under a rule that ignored writers.  A file that passed the
 * check (or whose writers were reported and kept) is not checked again, so
 * one exec is refused, or audited, once.  Only regular files are held.
 * Once the mode went off (denywrite_protect_stop()), it does nothing.
 *
 * With DENYWRITE_HOLD_DENY the hold is exec's denial of write access
 * (deny_write_access()): the writers check is i_writecount's, and a file
 * open for writing is refused (or, with DENYWRITE_WRITERS_NONE, held with
 * a counted hold).  A writable shared mapping or a long-term pin of a
 * memfd's pages is no writer then, as for exec; with a counted hold, they
 * are.  A protector that read enforce mode before the mode went to audit
 * takes a counted hold: see denywrite_protect_relax().
 *
 * Return: 0, -ETXTBSY, -ENOMEM, or -EOVERFLOW if the inode has as many
 * holders as a count can take.
 */
int denywrite_file_protect(struct file *file, enum denywrite_writers writers,
			   unsigned int hold)
{
	unsigned long *flags;
	int err = 0;

	if (!S_ISREG(file_inode(file)->i_mode))
		return 0;
	/*
	 * Holds are taken and their records changed only in a read-side
	 * section that saw tracking set: see denywrite_protect_stop().
	 */
	rcu_read_lock();
	if ((hold & DENYWRITE_HOLD_DENY) &&
	    denywrite_get_mode() != DENYWRITE_MODE_ENFORCE)
		hold ^= DENYWRITE_HOLD_DENY | DENYWRITE_HOLD_KEEP_BUSY;
	if (tracking_on()) {
		flags = hold_find(file);
		if (flags)
			err = hold_update(file, flags, writers, hold);
		else
			err = hold_take(file, writers, hold);
	}
	rcu_read_unlock();
	return err;
}

/**
 * denywrite_file_held - does @file, whose inode is held, hold it?
 * @file: the file
 *
 * The lookup behind denywrite_file_is_protected().
 *
 * Return: true if @file was executed or mapped executable under a rule.
 */
bool denywrite_file_held(struct file *file)
{
	return hold_find(file);
}

/**
 * denywrite_inode_get_slot_file - an open file of @inode, from its slot
 * @inode: a held inode
 *
 * For the record of a refusal where the refused operation has no file: the
 * file in the slot is the one that runs or maps @inode, and its path names
 * it.  The slot holds no reference.  A file of the slot is never a backing
 * file (see hold_record()), so its memory stays a struct file for a grace
 * period after it is freed (SLAB_TYPESAFE_BY_RCU), and may be reused
 * meanwhile: the reference is taken only if the count is not zero, and
 * kept only if the file is still one of @inode.
 *
 * Return: a referenced file of @inode (fput() it), or NULL.
 */
struct file *denywrite_inode_get_slot_file(struct inode *inode)
{
	unsigned long slot;
	struct file *file;

	rcu_read_lock();
	slot = READ_ONCE(denywrite_inode(inode)->slot);
	file = (struct file *)(slot & ~HOLD_FLAGS);
	if (file && !atomic_long_inc_not_zero(&file->f_count))
		file = NULL;
	rcu_read_unlock();
	if (file && file_inode(file) != inode) {
		fput(file);
		file = NULL;
	}
	return file;
}

/**
 * denywrite_file_transient - is @file's hold transient?
 * @file: the file
 *
 * Return: true if @file holds its inode until exec is done with it.
 */
bool denywrite_file_transient(struct file *file)
{
	unsigned long *flags;
	bool transient;

	rcu_read_lock();
	flags = hold_find(file);
	transient = flags && test_bit(HOLD_TRANSIENT, flags);
	rcu_read_unlock();
	return transient;
}

/* Drop the hold of @inode that a slot recorded, with the slot's @flags. */
static void slot_undo(const struct inode *inode, unsigned long flags)
{
	const struct inode *inodes[2] = { inode };

	hold_undo(inodes, flags);
}

/*
 * Drop the hold of @file in the slot of its inode, @blob, which @slot
 * was read from, unless denywrite_protect_stop() dropped it first.  The
 * switch to audit mode may change the slot's flags meanwhile: read again.
 */
static void slot_drop(struct file *file, struct denywrite_inode *blob,
		      unsigned long slot)
{
	while (slot_has(slot, file)) {
		if (try_cmpxchg(&blob->slot, &slot, 0)) {
			slot_undo(file_inode(file), slot);
			return;
		}
	}
}

/*
 * Drop a hold of the table, unless another thread removed it first.  The
 * switch to audit mode and this test the kind with test_and_clear_bit():
 * whoever clears HOLD_DENIED undoes the denial.
 */
static void table_remove(struct denywrite_hold *hold)
{
	if (rhashtable_remove_fast(&holds, &hold->node, hold_params))
		return;
	if (test_and_clear_bit(HOLD_DENIED, &hold->flags))
		inodes_undeny(hold->inodes);
	else
		inodes_unhold(hold->inodes);
	kfree_rcu(hold, rcu);
}

/* Drop the hold of @file in the table, if it has one (and is transient). */
static noinline void table_drop(struct file *file, bool transient_only)
{
	struct denywrite_hold *hold;

	rcu_read_lock();
	hold = rhashtable_lookup(&holds, &file, hold_params);
	if (hold && (!transient_only || test_bit(HOLD_TRANSIENT, &hold->flags)))
		table_remove(hold);
	rcu_read_unlock();
}

/*
 * Drop @file's holds, in its inode's slot and in the table, or only a
 * transient one.  Called by the one thread that may still protect @file,
 * or by none.
 */
static void file_drop(struct file *file, bool transient_only)
{
	struct denywrite_inode *blob = denywrite_inode(file_inode(file));
	unsigned long slot = READ_ONCE(blob->slot);

	if (slot_has(slot, file) &&
	    (!transient_only || (slot & BIT(HOLD_TRANSIENT))))
		slot_drop(file, blob, slot);
	if (denywrite_inode_held(file_inode(file)))
		table_drop(file, transient_only);
}

/**
 * denywrite_file_drop_transient - drop @file's hold if it is transient
 * @file: a file that exec mapped; the ELF interpreter is protected, as the
 *        classic kernel did, from its open until exec has mapped it
 */
void denywrite_file_drop_transient(struct file *file)
{
	file_drop(file, true);
}

/**
 * denywrite_file_drop - drop @file's hold, if it has one
 * @file: a file exec opened and is done with, which lives on: a binary
 *        that binfmt_misc hands to its interpreter as AT_EXECFD, whose
 *        denial exec releases as it swaps in the interpreter
 *
 * Context: the exec that opened @file, which no other thread protects.
 */
void denywrite_file_drop(struct file *file)
{
	file_drop(file, false);
}

/**
 * denywrite_file_mark_audited - mark @file as a writer already audited
 * @file: a file whose write is let through in audit mode
 *
 * Return: true if it was not marked before (or cannot be: log it then).
 */
bool denywrite_file_mark_audited(struct file *file)
{
	atomic_t *count = &denywrite_inode(file_inode(file))->marks;
	struct denywrite_mark *mark, *old;

	rcu_read_lock();
	old = atomic_read(count) ?
	      rhashtable_lookup(&marks, &file, mark_params) : NULL;
	rcu_read_unlock();
	if (old)
		return false;
	mark = kzalloc(sizeof(*mark), GFP_KERNEL_ACCOUNT);
	if (!mark)
		return true;
	mark->file = file;
	mark->inode = file_inode(file);
	/* As in denywrite_file_protect(). */
	rcu_read_lock();
	if (!tracking_on()) {
		rcu_read_unlock();
		kfree(mark);
		return true;
	}
	if (count_inc(count) < 0) {
		rcu_read_unlock();
		kfree(mark);
		return true;
	}
	old = rhashtable_lookup_get_insert_fast(&marks, &mark->node,
						mark_params);
	if (old)
		atomic_dec(count);
	rcu_read_unlock();
	if (!old)
		return true;
	kfree(mark);
	return IS_ERR(old);
}

/* Drop a mark, unless another thread removed it first. */
static void mark_remove(struct denywrite_mark *mark)
{
	if (rhashtable_remove_fast(&marks, &mark->node, mark_params))
		return;
	atomic_dec(&denywrite_inode(mark->inode)->marks);
	kfree_rcu(mark, rcu);
}

static noinline void mark_drop(struct file *file)
{
	struct denywrite_mark *mark;

	rcu_read_lock();
	mark = rhashtable_lookup(&marks, &file, mark_params);
	if (mark)
		mark_remove(mark);
	rcu_read_unlock();
}

/**
 * denywrite_file_release - drop @file's hold and mark, if it has them
 * @file: a file whose last reference is going; its inodes are still alive
 */
void denywrite_file_release(struct file *file)
{
	/*
	 * The last reference is gone: no other thread can protect @file any
	 * more.  The slot first, for nearly every held file is there; then
	 * the table, if the inode is still held.
	 */
	file_drop(file, false);
	if (atomic_read(&denywrite_inode(file_inode(file))->marks))
		mark_drop(file);
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

/**
 * denywrite_protect_start - let holds and marks be taken
 *
 * Called before the mode leaves off (see mode.c).
 */
void denywrite_protect_start(void)
{
	/* Whoever sees tracking set sees file_release on. */
	smp_store_release(&tracking, true);
}

/*
 * Call @fn for every inode of @sb whose slot holds a file.  An inode on the
 * list is not freed (evict() takes it off first), so its blob can be read
 * under s_inode_list_lock.  The list can hold millions of inodes: when the
 * CPU is wanted, the walk pins the inode it stands on, lets the lock go
 * and reschedules, as drop_pagecache_sb() does; the pinned inode stays on
 * the list, where the walk goes on.
 */
static void sweep_sb(struct super_block *sb, void (*fn)(struct inode *))
{
	struct inode *inode, *toput_inode = NULL;

	spin_lock(&sb->s_inode_list_lock);
	list_for_each_entry(inode, &sb->s_inodes, i_sb_list) {
		if (READ_ONCE(denywrite_inode(inode)->slot))
			fn(inode);
		if (!need_resched())
			continue;
		spin_lock(&inode->i_lock);
		if (inode->i_state & (I_FREEING | I_WILL_FREE | I_NEW)) {
			spin_unlock(&inode->i_lock);
			continue;
		}
		__iget(inode);
		spin_unlock(&inode->i_lock);
		spin_unlock(&sb->s_inode_list_lock);
		iput(toput_inode);
		toput_inode = inode;
		cond_resched();
		spin_lock(&sb->s_inode_list_lock);
	}
	spin_unlock(&sb->s_inode_list_lock);
	iput(toput_inode);
}

/* Mode off: drop the hold in @inode's slot, unless its release did. */
static void slot_stop(struct inode *inode)
{
	struct denywrite_inode *blob = denywrite_inode(inode);
	unsigned long slot = READ_ONCE(blob->slot);

	if (slot && try_cmpxchg(&blob->slot, &slot, 0))
		slot_undo(inode, slot);
}

/**
 * denywrite_sweep_sb - drop the holds recorded in the slots of @sb's inodes
 * @sb: the superblock
 *
 * The walk gives the CPU up when it is wanted (see sweep_sb()).
 *
 * Visible for the KUnit tests; denywrite_protect_stop() sweeps every
 * superblock.
 *
 * Context: process context; may sleep.
 */
VISIBLE_IF_KUNIT void denywrite_sweep_sb(struct super_block *sb)
{
	sweep_sb(sb, slot_stop);
}

static void sb_drop_slots(struct super_block *sb, void *unused)
{
	denywrite_sweep_sb(sb);
}

/*
 * Audit mode: make the denying hold in @inode's slot a counted one.  The
 * counted hold is taken first, so that the inode stays protected
 * throughout; the slot's file may be released meanwhile (its slot_drop()
 * then sees the flags it finds), or the hold updated (read again).
 */
static void slot_relax(struct inode *inode)
{
	struct denywrite_inode *blob = denywrite_inode(inode);
	unsigned long slot = READ_ONCE(blob->slot);

	if (!(slot & BIT(HOLD_DENIED)) || !inode_hold(inode))
		return;
	do {
		if (!(slot & BIT(HOLD_DENIED))) {
			inode_unhold(inode);
			return;
		}
	} while (!try_cmpxchg(&blob->slot, &slot, slot & ~BIT(HOLD_DENIED)));
	inode_undeny(inode);
}

static void sb_relax_slots(struct super_block *sb, void *unused)
{
	sweep_sb(sb, slot_relax);
}

/* Drop (or change) every record of the table @ht, with @remove. */
static void table_drop_all(struct rhashtable *ht, void (*remove)(void *))
{
	struct rhashtable_iter iter;
	void *entry;

	rhashtable_walk_enter(ht, &iter);
	rhashtable_walk_start(&iter);
	while ((entry = rhashtable_walk_next(&iter))) {
		/* -EAGAIN: the table was resized, entries may come again. */
		if (!IS_ERR(entry))
			remove(entry);
	}
	rhashtable_walk_stop(&iter);
	rhashtable_walk_exit(&iter);
}

static void table_remove_entry(void *entry)
{
	table_remove(entry);
}

/* Audit mode: as slot_relax(), for a hold of the table; see table_remove(). */
static void table_relax_entry(void *entry)
{
	struct denywrite_hold *hold = entry;

	if (!test_bit(HOLD_DENIED, &hold->flags) || inodes_hold(hold->inodes))
		return;
	if (test_and_clear_bit(HOLD_DENIED, &hold->flags))
		inodes_undeny(hold->inodes);
	else
		inodes_unhold(hold->inodes);
}

static void mark_remove_entry(void *entry)
{
	mark_remove(entry);
}

/**
 * denywrite_protect_relax - make the denying holds counted ones
 *
 * Called after the mode went from enforce to audit (see mode.c): the
 * writers of a file held in enforce mode are allowed, and logged, from
 * now on.  After a grace period every protector that read enforce mode in
 * denywrite_file_protect() has recorded its hold, and every later one
 * takes a counted hold; then every denying hold is made a counted one.  A
 * writer that races the switch may be refused by both kinds a moment,
 * never by neither.
 *
 * Context: process context; sleeps for an RCU grace period, and gives the
 * CPU up while it walks the inodes when the CPU is wanted.
 */
void denywrite_protect_relax(void)
{
	synchronize_rcu();
	iterate_supers(sb_relax_slots, NULL);
	table_drop_all(&holds, table_relax_entry);
}

/**
 * denywrite_protect_stop - take no more holds and marks, drop all there are
 *
 * Called after the mode went off (see mode.c).  Mode off protects nothing:
 * a file executed or mapped before is protected again when it is executed
 * or mapped again in a mode that protects.
 *
 * denywrite_file_protect() and denywrite_file_mark_audited() test tracking
 * and change records in RCU read-side sections: after a grace period,
 * every section that saw it set is over, and every later one sees it
 * cleared, so that no record changes but by release.  A record is then
 * dropped by whoever removes it first, here or at its file's release; the
 * inodes of a file released meanwhile stay valid in the walk's read-side
 * section, for their blobs are freed after a grace period.
 *
 * Context: process context; sleeps for an RCU grace period, and gives the
 * CPU up while it walks the inodes when the CPU is wanted.
 */
void denywrite_protect_stop(void)
{
	WRITE_ONCE(tracking, false);
	synchronize_rcu();
	iterate_supers(sb_drop_slots, NULL);
	table_drop_all(&holds, table_remove_entry);
	table_drop_all(&marks, mark_remove_entry);
}

/**
 * denywrite_protect_init - set up the tables of holds and marks
 *
 * Return: 0 or -ENOMEM.
 */
int __init denywrite_protect_init(void)
{
	int err;

	/* The HOLD_* bits of a slot are free in a file pointer. */
	BUILD_BUG_ON(__alignof__(struct file) <= HOLD_FLAGS);

	hold_cache = KMEM_CACHE(denywrite_hold, SLAB_ACCOUNT);
	if (!hold_cache)
		return -ENOMEM;
	err = rhashtable_init(&holds, &hold_params);
	if (!err)
		err = rhashtable_init(&marks, &mark_params);
	return err;
}
