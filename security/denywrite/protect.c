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
 * its place.  A hold on either holds both inodes, so that writes through
 * the merged path and to the real file are refused alike, and the backing
 * file's hold lasts as long as the mapping does, whatever the opened file
 * does.
 *
 * In audit mode, writes through a file that was let through are logged
 * once for that file: the file is marked in a second table, so that a
 * writer of a protected file cannot flood the log.
 *
 * Writers and protectors race without a lock, Dekker style.  The VFS
 * raises i_writecount before the file_post_open and inode_setattr hooks
 * run; a protector raises the inode's claims, then reads i_writecount; a
 * new writer (having raised i_writecount) reads claims and holders.  A full
 * barrier on each side between its increment and its reads guarantees that
 * at least one of them sees the other, so a new writer and an exec can both
 * fail but never both succeed.  A protector that finds no writer raises
 * holders before it drops its claim, so a writer that finds no claim finds
 * the hold.  A writer whose file is open already is refused only by a
 * hold: the protectors that might race with it see its i_writecount and
 * back off, and must not make its writes fail while they do.
 */

#include <linux/atomic.h>
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/rhashtable.h>
#include <linux/hash.h>
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
 * Taken by a mapping whose syscall has not returned yet: dropped if the
 * mapping is not there when it returns (see denywrite_mapping_end()).
 */
#define HOLD_PENDING	2
/* The HOLD_* bits, in the low bits of a slot beside the file pointer. */
#define HOLD_FLAGS	(BIT(HOLD_CHECKED) | BIT(HOLD_TRANSIENT) | \
			 BIT(HOLD_PENDING))

/**
 * struct denywrite_hold - a file that holds its inodes, in the holds table
 * @node: in the holds table
 * @file: the file, the key
 * @inodes: the inodes held: the file's, and the other one of a stacked
 *          file (see hold_inodes()) or NULL
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
 * only by the threads that protect its file, with atomic bit operations,
 * and removed only when its file is released, for a transient hold by the
 * exec that opened the file for itself, and for a pending hold when the
 * mapping that took it ends without it (denywrite_mapping_end()).
 */

/*
 * The inodes a hold on @file protects.  Both outlive the file: the real
 * inode of an overlayfs file is pinned by its overlayfs inode, the user
 * inode of a backing file by the backing file's user path.
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

static bool inode_hold(const struct inode *inode)
{
	int old = count_inc(&denywrite_inode(inode)->holders);

	if (!old)
		atomic_long_inc(&protected_inodes);
	return old >= 0;
}

static void inode_unhold(const struct inode *inode)
{
	if (atomic_dec_and_test(&denywrite_inode(inode)->holders))
		atomic_long_dec(&protected_inodes);
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

/*
 * Pages of a tmpfs or memfd file that are pinned long-term (io_uring fixed
 * buffers, RDMA) are written without the file, also after the mapping they
 * were pinned through is gone.  Only shmem lets such pins write a file
 * (other filesystems need to track dirty pages, and GUP refuses them), and
 * F_SEAL_WRITE refuses them the same way (memfd_wait_for_pins()).  Called
 * under RCU.
 */
static bool has_pinned_pages(struct address_space *mapping)
{
	XA_STATE(xas, &mapping->i_pages, 0);
	struct folio *folio;

	if (!shmem_mapping(mapping))
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
		    has_pinned_pages(inodes[i]->i_mapping))
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

	if (!atomic_read(&blob->holders))
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
	if (!(hold & DENYWRITE_HOLD_PENDING))
		clear_bit(HOLD_PENDING, flags);
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
		inodes_unhold(inodes);
		return -ENOMEM;
	}
	if (!tracking_on()) {
		kmem_cache_free(hold_cache, hold);
		inodes_unhold(inodes);
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
	inodes_unhold(inodes);
	if (IS_ERR(old))
		return PTR_ERR(old);
	return hold_update(file, &old->flags, writers, how);
}

/*
 * Protect @file, which had no hold when we looked: claim its inodes, check
 * their writers, hold them, and record the hold: in the slot of its inode
 * if that is free and the file is not stacked (no allocation, no table),
 * else in the table.  If another thread recorded a hold of @file first,
 * drop ours and update that one.
 */
static int hold_take(struct file *file, enum denywrite_writers writers,
		     unsigned int hold)
{
	const struct inode *inodes[2];
	struct denywrite_inode *blob;
	unsigned long flags = 0, slot;
	bool busy;
	int err;

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

	if (writers != DENYWRITE_WRITERS_IGNORE)
		flags |= BIT(HOLD_CHECKED);
	if (hold & DENYWRITE_HOLD_TRANSIENT)
		flags |= BIT(HOLD_TRANSIENT);
	if (hold & DENYWRITE_HOLD_PENDING)
		flags |= BIT(HOLD_PENDING);
	if (inodes[1]) {
		err = hold_insert(file, inodes, flags, writers, hold);
	} else {
		blob = denywrite_inode(inodes[0]);
		slot = cmpxchg(&blob->slot, 0, (unsigned long)file | flags);
		if (!slot) {
			err = 0;
		} else if (!slot_has(slot, file)) {
			err = hold_insert(file, inodes, flags, writers, hold);
		} else {
			inodes_unhold(inodes);
			err = hold_update(file, &blob->slot, writers, hold);
		}
	}
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
 * denywrite_file_held - does @file, whose inode is protected, hold it?
 * @file: the file
 * @settled: only if the mapping that took the hold, if one did, is there
 *
 * The lookup behind denywrite_file_is_protected().
 *
 * Return: true if @file was executed or mapped executable under a rule.
 */
bool denywrite_file_held(struct file *file, bool settled)
{
	unsigned long *flags = hold_find(file);

	return flags && !(settled && test_bit(HOLD_PENDING, flags));
}

/*
 * Drop the hold of @file in the slot of its inode, @blob, which @slot
 * was read from, unless denywrite_protect_stop() dropped it first.
 */
static void slot_drop(struct file *file, struct denywrite_inode *blob,
		      unsigned long slot)
{
	if (try_cmpxchg(&blob->slot, &slot, 0))
		inode_unhold(file_inode(file));
}

/* Drop a hold of the table, unless another thread removed it first. */
static void table_remove(struct denywrite_hold *hold)
{
	if (rhashtable_remove_fast(&holds, &hold->node, hold_params))
		return;
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
 * Mappings under way, hashed by file: see denywrite_mapping_begin().  The
 * lock of a bucket orders the end of one mapping of a file, which may drop
 * its hold, with the beginning of the others.
 */
#define PENDING_BITS	6
static struct pending_bucket {
	spinlock_t lock;	/* protects list */
	struct hlist_head list;
} pendings[1 << PENDING_BITS];

static struct pending_bucket *pending_bucket(const struct file *file)
{
	return &pendings[hash_ptr(file, PENDING_BITS)];
}

/**
 * denywrite_mapping_begin - a mapping of @file may take a hold
 * @pending: the mapping, until denywrite_mapping_end()
 * @file: the file being mapped executable
 *
 * mmap_file and file_mprotect run before the kernel checks the mapping's
 * arguments, and a later LSM or do_mmap() may still refuse it.  So a hold
 * that a mapping takes is pending (DENYWRITE_HOLD_PENDING) until the
 * mapping's syscall returns, and dropped then if the mapping is not there:
 * a refused mapping leaves no hold, also while its descriptor stays open.
 * A pending hold protects the file as any other, and a second mapping of
 * the file while one is under way begins its own.
 *
 * Context: process context, before the protection.
 */
void denywrite_mapping_begin(struct denywrite_pending *pending,
			     struct file *file)
{
	struct pending_bucket *bucket = pending_bucket(file);

	pending->file = file;
	spin_lock(&bucket->lock);
	hlist_add_head(&pending->node, &bucket->list);
	spin_unlock(&bucket->lock);
}

/**
 * denywrite_mapping_cancel - a mapping took no hold of its own
 * @pending: from denywrite_mapping_begin()
 *
 * The file was not covered, the mapping was refused, or its hold was
 * confirmed already: the other mappings of the file under way decide
 * about a pending hold.
 */
void denywrite_mapping_cancel(struct denywrite_pending *pending)
{
	struct pending_bucket *bucket = pending_bucket(pending->file);

	spin_lock(&bucket->lock);
	hlist_del(&pending->node);
	spin_unlock(&bucket->lock);
}

/* Drop the hold of @file whose flags are @flags, in the slot or the table. */
static void hold_drop(struct file *file, unsigned long *flags)
{
	struct denywrite_hold *hold = hold_entry(file, flags);

	if (hold)
		table_remove(hold);
	else
		slot_drop(file, denywrite_inode(file_inode(file)),
			  READ_ONCE(*flags));
}

/**
 * denywrite_mapping_end - the syscall of a mapping returned
 * @pending: from denywrite_mapping_begin()
 * @mapped: is @pending's file mapped executable by the process now?
 *
 * A pending hold of the file is confirmed if the mapping is there.  If it
 * is not, the hold is dropped, unless another mapping of the same file is
 * under way: the last one to end decides.  A hold that another protection
 * (an exec) confirmed meanwhile stays.
 */
void denywrite_mapping_end(struct denywrite_pending *pending, bool mapped)
{
	struct pending_bucket *bucket = pending_bucket(pending->file);
	struct file *file = pending->file;
	struct denywrite_pending *other;
	unsigned long *flags;
	bool others = false;

	spin_lock(&bucket->lock);
	hlist_del(&pending->node);
	hlist_for_each_entry(other, &bucket->list, node) {
		if (other->file == file) {
			others = true;
			break;
		}
	}
	rcu_read_lock();
	flags = hold_find(file);
	if (flags && test_bit(HOLD_PENDING, flags)) {
		if (mapped)
			clear_bit(HOLD_PENDING, flags);
		else if (!others)
			hold_drop(file, flags);
	}
	rcu_read_unlock();
	spin_unlock(&bucket->lock);
}

/**
 * denywrite_file_drop_transient - drop @file's hold if it is transient
 * @file: a file that exec maps; the ELF interpreter is protected, as the
 *        classic kernel did, from its open until exec maps it
 */
void denywrite_file_drop_transient(struct file *file)
{
	struct denywrite_inode *blob = denywrite_inode(file_inode(file));
	unsigned long slot = READ_ONCE(blob->slot);

	if (slot_has(slot, file) && (slot & BIT(HOLD_TRANSIENT)))
		slot_drop(file, blob, slot);
	if (atomic_read(&blob->holders))
		table_drop(file, true);
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
	mark = kzalloc(sizeof(*mark), GFP_KERNEL);
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
	struct denywrite_inode *blob = denywrite_inode(file_inode(file));
	unsigned long slot = READ_ONCE(blob->slot);

	/*
	 * The last reference is gone: no other thread can protect @file any
	 * more.  The slot first, for nearly every held file is there; then
	 * the table, if the inode is still held.
	 */
	if (slot_has(slot, file))
		slot_drop(file, blob, slot);
	if (atomic_read(&blob->holders))
		table_drop(file, false);
	if (atomic_read(&blob->marks))
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

/**
 * denywrite_sweep_sb - drop the holds recorded in the slots of @sb's inodes
 * @sb: the superblock
 *
 * An inode on the list is not freed (evict() takes it off first), so its
 * blob can be read under s_inode_list_lock.  The list can hold millions of
 * inodes: when the CPU is wanted, the walk pins the inode it stands on,
 * lets the lock go and reschedules, as drop_pagecache_sb() does; the
 * pinned inode stays on the list, where the walk goes on.
 *
 * Visible for the KUnit tests; denywrite_protect_stop() sweeps every
 * superblock.
 *
 * Context: process context; may sleep.
 */
VISIBLE_IF_KUNIT void denywrite_sweep_sb(struct super_block *sb)
{
	struct inode *inode, *toput_inode = NULL;
	struct denywrite_inode *blob;
	unsigned long slot;

	spin_lock(&sb->s_inode_list_lock);
	list_for_each_entry(inode, &sb->s_inodes, i_sb_list) {
		blob = denywrite_inode(inode);
		slot = READ_ONCE(blob->slot);
		if (slot && try_cmpxchg(&blob->slot, &slot, 0))
			inode_unhold(inode);
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

static void sb_drop_slots(struct super_block *sb, void *unused)
{
	denywrite_sweep_sb(sb);
}

/* Drop every record of the table @ht, with @remove. */
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

static void mark_remove_entry(void *entry)
{
	mark_remove(entry);
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
	size_t i;
	int err;

	/* The HOLD_* bits of a slot are free in a file pointer. */
	BUILD_BUG_ON(__alignof__(struct file) <= HOLD_FLAGS);

	for (i = 0; i < ARRAY_SIZE(pendings); i++) {
		spin_lock_init(&pendings[i].lock);
		INIT_HLIST_HEAD(&pendings[i].list);
	}
	hold_cache = KMEM_CACHE(denywrite_hold, 0);
	if (!hold_cache)
		return -ENOMEM;
	err = rhashtable_init(&holds, &hold_params);
	if (!err)
		err = rhashtable_init(&marks, &mark_params);
	return err;
}
