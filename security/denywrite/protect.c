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
 * A hold is recorded in the file's own security blob: its flags, the
 * second inode it holds, and its place on a list of held files, one list
 * a CPU, so that the switches of the mode can find every hold.  Taking a
 * hold is the inode's counts, a cmpxchg() of the blob's flags and a list
 * insertion under the list's lock; dropping it, the list's lock and the
 * counts.  Nothing is allocated, nothing is looked up, however many files
 * hold one inode.  The helpers of taking and dropping a hold are inlined
 * (__always_inline) into denywrite_file_protect() and the release: every
 * executable mapping under a rule takes that path, and a call costs it
 * more than the helper's own work.
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
 * once for that file: its blob records that it was, so that a writer of a
 * protected file cannot flood the log.
 *
 * There are two kinds of hold.  A denying hold (enforce mode, a rule
 * without "ignore-writers") is exec's own denial: deny_write_access() makes
 * i_writecount negative, which fails if the file is open for writing, and
 * while it is negative the VFS refuses every new writer in
 * get_write_access() before any hook runs.  So a refused writer or a
 * refused protector leaves no trace, and writers and protectors order
 * exactly as they do on a kernel whose exec denies write access, whatever
 * the interleaving.  The hooks refuse nothing for it (the VFS did), and
 * only record the refusal (write_access_denied in hook_write.c).
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
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/shmem_fs.h>
#include <linux/spinlock.h>
#include <linux/srcu.h>
#include <linux/xarray.h>

#include "policy.h"
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
/* The bits of a hold, in a file blob's flags beside DENYWRITE_FILE_HELD. */
#define HOLD_FLAGS	(BIT(HOLD_CHECKED) | BIT(HOLD_TRANSIENT) | \
			 BIT(HOLD_DENIED))

/**
 * struct denywrite_held - the files that hold their inodes, of one CPU
 * @lock: taken to add a file, to drop its hold (at its release, or by a
 *        mode switch), and by the switch to audit mode to change its kind
 * @files: the files, by the &denywrite_file.node of their blobs
 */
struct denywrite_held {
	spinlock_t lock;	/* protects @files and their holds */
	struct hlist_head files;
};

static DEFINE_PER_CPU(struct denywrite_held, held_files);
static atomic_long_t protected_inodes = ATOMIC_LONG_INIT(0);

/*
 * The generation of the marks of audit mode: raised when the mode goes
 * off, so that the marks go with the holds (0 is no mark).
 */
static unsigned int generation = 1;

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
 * A file's hold is taken by the protector whose cmpxchg() sets its flags
 * from 0; another protector of the file racing it (two threads mapping one
 * file) drops the hold on the inodes it took meanwhile, and updates the
 * winner's.  The flags are changed only by the protectors of the file and
 * by the switch to audit mode, with atomic operations, and cleared only
 * when the file is released, when the mode goes off, and for a transient
 * hold or the binary binfmt_misc hands on by the exec that opened it.
 */

/*
 * The inodes a denying hold on @file protects: its own, as exec's denial,
 * and for a backing file (which only a mapping under a "lib" rule holds)
 * the inode of the file the process opened too, so that the mapped file
 * is not written through the merged path either.
 */
static __always_inline void deny_inodes(struct file *file,
					const struct inode *inodes[2])
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
static __always_inline int count_inc(atomic_t *count)
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
static __always_inline bool count_hold(atomic_t *count)
{
	int old = count_inc(count);

	if (!old)
		atomic_long_inc(&protected_inodes);
	return old >= 0;
}

static __always_inline void count_unhold(atomic_t *count)
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
 * (deny_write_access()), which fails at once if the inode is open for
 * writing; then no new writer gets in (get_write_access() fails) until
 * inode_undeny().  The denial is counted before it is made, so that every
 * writer it refuses finds it counted (hook_write_access_denied()); a
 * denial that fails uncounts it, and leaves nothing on i_writecount.
 */
static __always_inline int inode_deny(const struct inode *inode)
{
	atomic_t *count = &((struct inode *)inode)->i_writecount;

	if (!count_hold(&denywrite_inode(inode)->denials))
		return -EOVERFLOW;
	/* Fully ordered: after the count, as a refused writer reads them. */
	if (!atomic_dec_unless_positive(count)) {
		count_unhold(&denywrite_inode(inode)->denials);
		return -ETXTBSY;
	}
	return 0;
}

/*
 * Drop a denying hold of @inode: i_writecount first, then its count, so
 * that a writer refused before finds the count still up unless it reads it
 * after both (a refusal as the last hold goes: not counted).
 */
static __always_inline void inode_undeny(const struct inode *inode)
{
	atomic_inc(&((struct inode *)inode)->i_writecount);
	count_unhold(&denywrite_inode(inode)->denials);
}

static __always_inline int inodes_deny(const struct inode *const inodes[2])
{
	int err = inode_deny(inodes[0]);

	if (err || !inodes[1])
		return err;
	err = inode_deny(inodes[1]);
	if (err)
		inode_undeny(inodes[0]);
	return err;
}

static __always_inline void
inodes_undeny(const struct inode *const inodes[2])
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

static __always_inline void
inodes_unhold(const struct inode *const inodes[2])
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
 * program on tmpfs a walk of its pages.
 */
static bool has_pinned_pages(const struct inode *inode)
{
	XA_STATE(xas, &inode->i_mapping->i_pages, 0);
	struct folio *folio;
	bool pinned = false;

	/*
	 * The flag was set before the mapping it was set for counted in
	 * i_mmap_writable, which the caller has just read as 0: read it
	 * after that count.
	 */
	smp_rmb();
	if (!READ_ONCE(denywrite_inode(inode)->shared_write) ||
	    !shmem_mapping(inode->i_mapping))
		return false;
	rcu_read_lock();
	xas_for_each(&xas, folio, ULONG_MAX) {
		if (xas_retry(&xas, folio) || xa_is_value(folio))
			continue;
		if (folio_maybe_dma_pinned(folio)) {
			pinned = true;
			break;
		}
	}
	rcu_read_unlock();
	return pinned;
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

/*
 * The flags of @file's hold, or NULL if it has none.  A hold is never
 * dropped while its file may still be protected, so a hold found by a
 * thread that protects the file stays; a file with no hold may get one at
 * any time.
 */
static unsigned long *hold_find(struct file *file)
{
	struct denywrite_file *blob = denywrite_file(file);

	return READ_ONCE(blob->flags) & DENYWRITE_FILE_HELD ? &blob->flags :
							      NULL;
}

/*
 * Another protection of a held file: confirm it, check its writers.  With
 * DENYWRITE_HOLD_KEEP_BUSY, writers found are reported once, and the file
 * stays held.  The writers are looked for on every inode a counted hold
 * of @file would hold: the thread that took the hold may not have recorded
 * which ones it holds yet.
 */
static int hold_update(struct file *file, unsigned long *flags,
		       enum denywrite_writers writers, unsigned int hold)
{
	const struct inode *inodes[2];
	int err = 0;

	if (!(hold & DENYWRITE_HOLD_TRANSIENT))
		clear_bit(HOLD_TRANSIENT, flags);
	if (writers == DENYWRITE_WRITERS_CHECK && !test_bit(HOLD_CHECKED, flags)) {
		hold_inodes(file, inodes);
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
static __always_inline void hold_undo(const struct inode *const inodes[2],
				      unsigned long flags)
{
	if (flags & BIT(HOLD_DENIED))
		inodes_undeny(inodes);
	else
		inodes_unhold(inodes);
}

/*
 * Name @file in its inode's blob for the records of refused writers.  Not
 * a backing file: it is freed without a grace period, and the name is
 * read under RCU (denywrite_inode_get_holder()).
 */
static void namer_set(struct file *file)
{
	if (!(file->f_mode & FMODE_BACKING))
		WRITE_ONCE(denywrite_inode(file_inode(file))->namer, file);
}

/*
 * Unname @file, if its inode's blob still names it.  A cmpxchg() without
 * a test first: the release dirties the blob's line anyway (its count).
 */
static void namer_clear(struct file *file)
{
	cmpxchg(&denywrite_inode(file_inode(file))->namer, file, NULL);
}

/*
 * Record the hold of @file on @inodes, of the kind and with the flags
 * @flags, in the file's blob, and put the file on this CPU's list.  If
 * another thread recorded a hold of @file first, drop ours and update
 * that one.
 */
static __always_inline int
hold_record(struct file *file, const struct inode *const inodes[2],
	    unsigned long flags, enum denywrite_writers writers,
	    unsigned int hold)
{
	struct denywrite_file *blob = denywrite_file(file);
	struct denywrite_held *held;

	if (cmpxchg(&blob->flags, 0, flags | DENYWRITE_FILE_HELD)) {
		hold_undo(inodes, flags);
		return hold_update(file, &blob->flags, writers, hold);
	}
	blob->file = file;
	blob->other = inodes[1];
	blob->cpu = raw_smp_processor_id();
	held = per_cpu_ptr(&held_files, blob->cpu);
	spin_lock(&held->lock);
	hlist_add_head(&blob->node, &held->files);
	spin_unlock(&held->lock);
	namer_set(file);
	return 0;
}

/*
 * A counted hold of @file: claim its inodes, check their writers, and hold
 * them.  Out of line, with its own array of inodes: in hold_take(), the
 * array of a denying hold then stays in registers, and the hot path of a
 * hold needs no stack protector's check.
 */
static noinline int hold_take_counted(struct file *file, unsigned long flags,
				      enum denywrite_writers writers,
				      unsigned int hold)
{
	const struct inode *inodes[2];
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
	err = hold_record(file, inodes, flags, writers, hold);
	return err ?: busy ? -ETXTBSY : 0;
}

/*
 * Protect @file, which had no hold when we looked.  A denying hold is
 * exec's denial of write access to its inode, nothing more: no claim, no
 * other check, and no trace if it fails.  A counted hold claims the file's
 * inodes, checks their writers, and holds them.
 */
static __always_inline int hold_take(struct file *file,
				     enum denywrite_writers writers,
				     unsigned int hold)
{
	const struct inode *inodes[2];
	unsigned long flags = 0;
	int err;

	if (writers != DENYWRITE_WRITERS_IGNORE)
		flags |= BIT(HOLD_CHECKED);
	if (hold & DENYWRITE_HOLD_TRANSIENT)
		flags |= BIT(HOLD_TRANSIENT);
	if (!(hold & DENYWRITE_HOLD_DENY))
		return hold_take_counted(file, flags, writers, hold);
	deny_inodes(file, inodes);
	err = inodes_deny(inodes);
	if (!err)
		return hold_record(file, inodes, flags | BIT(HOLD_DENIED),
				   writers, hold);
	/* A protection that cannot fail holds a busy file counted. */
	if (err != -ETXTBSY || writers != DENYWRITE_WRITERS_NONE)
		return err;
	return hold_take_counted(file, flags, writers, hold);
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
 * are.  The caller chooses the kind by the mode it read in the read-side
 * section it calls from, which the switch to audit mode waits for before
 * it makes the denying holds counted ones (denywrite_protect_relax()).
 *
 * Context: inside the policy's SRCU read-side section
 * (&denywrite_policy_srcu), which the decision holds anyway, or in an RCU
 * read-side section where it needs no policy (denywrite_use_root()): the
 * mode switches wait for both (see denywrite_protect_stop()).  Does not
 * sleep.
 * Return: 0, -ETXTBSY, or -EOVERFLOW if the inode has as many holders (or
 * i_writecount as many denials) as a count can take.
 */
int denywrite_file_protect(struct file *file, enum denywrite_writers writers,
			   unsigned int hold)
{
	unsigned long *flags;
	int err = 0;

	/*
	 * Holds are taken and their flags changed only in a read-side
	 * section that saw tracking set: see denywrite_protect_stop().
	 */
	RCU_LOCKDEP_WARN(!srcu_read_lock_held(&denywrite_policy_srcu) &&
			 !rcu_read_lock_held(),
			 "denywrite hold taken outside an (S)RCU section");
	if (!S_ISREG(file_inode(file)->i_mode))
		return 0;
	if (tracking_on()) {
		flags = hold_find(file);
		if (flags)
			err = hold_update(file, flags, writers, hold);
		else
			err = hold_take(file, writers, hold);
	}
	return err;
}

/**
 * denywrite_inode_get_holder - an open file that holds @inode
 * @inode: a held inode
 *
 * For the record of a refused writer: the file that runs or maps @inode,
 * whose path names it.  The inode's blob names it without a reference.  A
 * named file is never a backing file (see namer_set()), so its memory
 * stays a struct file for a grace period after it is freed
 * (SLAB_TYPESAFE_BY_RCU), and may be reused meanwhile: the reference is
 * taken only if the count is not zero, and kept only if the file is still
 * one of @inode.
 *
 * Return: a referenced file of @inode (fput() it), or NULL.
 */
struct file *denywrite_inode_get_holder(struct inode *inode)
{
	struct file *file;

	rcu_read_lock();
	file = READ_ONCE(denywrite_inode(inode)->namer);
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
	unsigned long flags = READ_ONCE(denywrite_file(file)->flags);

	return (flags & DENYWRITE_FILE_HELD) && (flags & BIT(HOLD_TRANSIENT));
}

/*
 * Take the file of @blob off its list, under the list's lock: the flags of
 * its hold, which it no longer has.
 */
static unsigned long blob_unlist(struct denywrite_file *blob)
{
	unsigned long flags = blob->flags;

	hlist_del_init(&blob->node);
	WRITE_ONCE(blob->flags, 0);
	return flags;
}

/*
 * Take @file's hold off its list, if it is still there and @transient_only
 * does not spare it: its flags, or 0 if there was nothing to drop.  Under
 * the list's lock, so that a hold is dropped once, by its release or a
 * mode switch, and changed by the switch to audit mode before or after,
 * never meanwhile.
 */
static __always_inline unsigned long
hold_unlist(struct file *file, bool transient_only)
{
	struct denywrite_file *blob = denywrite_file(file);
	struct denywrite_held *held = per_cpu_ptr(&held_files, blob->cpu);
	unsigned long flags = 0;

	spin_lock(&held->lock);
	if (!hlist_unhashed(&blob->node) &&
	    (!transient_only || test_bit(HOLD_TRANSIENT, &blob->flags)))
		flags = blob_unlist(blob);
	spin_unlock(&held->lock);
	return flags;
}

/* Drop @file's hold, whose flags were @flags, off its inodes. */
static __always_inline void hold_drop(struct file *file,
				      unsigned long flags)
{
	const struct inode *inodes[2] = {
		file_inode(file), denywrite_file(file)->other
	};

	namer_clear(file);
	hold_undo(inodes, flags);
}

/*
 * Drop @file's hold, or only a transient one, if it is still on its list.
 * Called by the one thread that may still protect @file, or by none, for
 * a file that had a hold when it looked (denywrite_file_is_protected()).
 */
static __always_inline void file_drop(struct file *file,
				      bool transient_only)
{
	unsigned long flags = hold_unlist(file, transient_only);

	if (flags)
		hold_drop(file, flags);
}

/**
 * denywrite_file_drop_transient - drop @file's hold if it is transient
 * @file: a file that exec mapped; the ELF interpreter is protected, as the
 *        classic kernel did, from its open until exec has mapped it
 */
void denywrite_file_drop_transient(struct file *file)
{
	if (denywrite_file_is_protected(file))
		file_drop(file, true);
}

/**
 * denywrite_file_drop_held - drop the hold of a file found held
 * @file: a file whose last reference is going (its inodes are still
 *        alive), or a file exec opened and is done with, which lives on:
 *        a binary that binfmt_misc hands to its interpreter as AT_EXECFD,
 *        whose denial exec releases as it swaps in the interpreter
 *
 * The out-of-line half of denywrite_file_drop(), which found @file
 * protected (denywrite_file_is_protected()).  A hold that a mode switch
 * dropped meanwhile is not dropped again.
 *
 * Context: no other thread can protect @file: its last reference is
 * gone, or it is the exec's that opened it.
 */
void denywrite_file_drop_held(struct file *file)
{
	file_drop(file, false);
}

/**
 * denywrite_file_mark_audited - mark @file as a writer already audited
 * @file: a file whose write is let through in audit mode
 *
 * A mark lasts until the mode goes off.  Two writers that race through
 * one file may both be logged.
 *
 * Return: true if it was not marked before (or cannot be: log it then).
 */
bool denywrite_file_mark_audited(struct file *file)
{
	struct denywrite_file *blob = denywrite_file(file);
	unsigned int gen;
	bool first;
	int idx;

	/* As in denywrite_file_protect(). */
	idx = srcu_read_lock(&denywrite_policy_srcu);
	gen = READ_ONCE(generation);
	first = !tracking_on() || xchg(&blob->marked, gen) != gen;
	srcu_read_unlock(&denywrite_policy_srcu, idx);
	return first;
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

/*
 * Wait until every protector that may have read tracking set, or the mode
 * before its change, is done with the file it protects: holds are taken
 * in the policy's SRCU read-side sections, and under the root rule alone
 * in RCU read-side sections (denywrite_file_protect()).
 */
static void wait_for_protectors(void)
{
	synchronize_srcu(&denywrite_policy_srcu);
	synchronize_rcu();
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
 * Audit mode: make the denying hold of the file of @blob a counted one.
 * The counted hold is taken first, so that the inodes stay protected
 * throughout.  Under the lock of the file's list: its release waits.
 */
static void hold_relax(struct denywrite_file *blob, const struct inode *inode)
{
	const struct inode *inodes[2] = { inode, blob->other };

	if (!test_bit(HOLD_DENIED, &blob->flags) || inodes_hold(inodes))
		return;
	clear_bit(HOLD_DENIED, &blob->flags);
	inodes_undeny(inodes);
}

/**
 * denywrite_protect_relax - make the denying holds counted ones
 *
 * Called after the mode went from enforce to audit (see mode.c): the
 * writers of a file held in enforce mode are allowed, and logged, from
 * now on.  After a grace period of the policy's SRCU and one of RCU
 * (wait_for_protectors()), every protector that read enforce mode in its
 * read-side section has recorded its hold, and every later one reads audit
 * mode and takes a counted hold; then every denying hold is made a
 * counted one.  A writer that races the switch may be refused by both
 * kinds a moment, never by neither.
 *
 * Context: process context, outside the policy's SRCU and RCU read-side
 * sections; sleeps for their grace periods.  Each CPU's list is walked
 * under its lock, which the holds and releases of files on it wait for
 * meanwhile.
 */
void denywrite_protect_relax(void)
{
	struct denywrite_held *held;
	struct denywrite_file *blob;
	int cpu;

	wait_for_protectors();
	for_each_possible_cpu(cpu) {
		held = per_cpu_ptr(&held_files, cpu);
		spin_lock(&held->lock);
		hlist_for_each_entry(blob, &held->files, node)
			hold_relax(blob, file_inode(blob->file));
		spin_unlock(&held->lock);
	}
}

/* Take the first file off @held's list: its hold's flags, or 0. */
static unsigned long hold_pop(struct denywrite_held *held,
			      struct file **file)
{
	struct denywrite_file *blob;
	unsigned long flags = 0;

	spin_lock(&held->lock);
	blob = hlist_entry_safe(held->files.first, struct denywrite_file,
				node);
	if (blob) {
		*file = blob->file;
		flags = blob_unlist(blob);
	}
	spin_unlock(&held->lock);
	return flags;
}

/**
 * denywrite_protect_stop - take no more holds and marks, drop all there are
 *
 * Called after the mode went off (see mode.c).  Mode off protects nothing:
 * a file executed or mapped before is protected again when it is executed
 * or mapped again in a mode that protects.
 *
 * denywrite_file_protect() and denywrite_file_mark_audited() test tracking
 * and change a file's blob in the policy's SRCU read-side sections, which
 * the decision holds anyway, or in RCU read-side sections (a hold under
 * the root rule alone): after a grace period of each, every section that
 * saw it set is over, and every later one sees it cleared, so that no hold
 * changes but by release.  A hold is then dropped by whoever takes it off
 * its list first, here or at its file's release, which waits for the
 * list's lock meanwhile; the marks go with the generation.
 *
 * Context: process context, outside the policy's SRCU and RCU read-side
 * sections; sleeps for their grace periods, and gives the CPU up between
 * two holds when the CPU is wanted.
 */
void denywrite_protect_stop(void)
{
	unsigned long flags;
	struct file *file;
	int cpu;

	WRITE_ONCE(tracking, false);
	wait_for_protectors();
	WRITE_ONCE(generation, generation + 1 ?: 1);
	for_each_possible_cpu(cpu) {
		while ((flags = hold_pop(per_cpu_ptr(&held_files, cpu), &file))) {
			hold_drop(file, flags);
			cond_resched();
		}
	}
}

/**
 * denywrite_protect_init - set up the lists of held files
 */
void __init denywrite_protect_init(void)
{
	struct denywrite_held *held;
	int cpu;

	BUILD_BUG_ON(HOLD_FLAGS & DENYWRITE_FILE_HELD);
	for_each_possible_cpu(cpu) {
		held = per_cpu_ptr(&held_files, cpu);
		spin_lock_init(&held->lock);
		INIT_HLIST_HEAD(&held->files);
	}
}
