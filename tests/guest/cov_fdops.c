/* cov_fdops.c - changes of a running file through a descriptor opened
 * before it was protected (issue 7, section 4), on ext4: tmpfs has no
 * ZERO_RANGE, COLLAPSE_RANGE nor INSERT_RANGE, so there an old kernel
 * would answer EOPNOTSUPP instead of letting the change through; and on
 * XFS with reflinks, for FICLONE and XFS_IOC_SWAPEXT, which ext4 does not
 * have.  Each filesystem is an image made by the Makefile (cov-ext4.img,
 * cov-xfs.img), copied to COV_DIR and attached to a loop device.
 *
 * Each fdop_* writes bytes the file already holds where it can, so a
 * change that gets through does not break the running program. */
#include "coverage.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <linux/fs.h>
#include <linux/io_uring.h>
#include <linux/loop.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define CHUNK 16        /* bytes written by the write-like probes */
#define BLOCK 4096      /* the images' block size (mkfs's -b, XFS's default) */

/* The filesystems of the cases, each mounted once, when a case needs it. */
static struct disk {
	const char *type;  /* the filesystem type, and the image's cov-TYPE.img */
	const char *dir;   /* its mount point */
	bool mounted;
} disks[] = {
	{ "ext4", EXT4_DIR, false },
	{ "xfs", XFS_DIR, false },
};

static int loop_attach(const char *img, char *dev, size_t devlen)
{
	struct loop_config lc;
	int ctl, n, lfd, ifd, err = 0;

	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	n = ctl < 0 ? -1 : ioctl(ctl, LOOP_CTL_GET_FREE);
	if (n < 0)
		return -1;
	close(ctl);
	snprintf(dev, devlen, "/dev/loop%d", n);
	lfd = open(dev, O_RDWR | O_CLOEXEC);
	ifd = open(img, O_RDWR | O_CLOEXEC);
	memset(&lc, 0, sizeof(lc));
	lc.fd = (unsigned int)ifd;
	lc.info.lo_flags = LO_FLAGS_AUTOCLEAR;
	if (lfd < 0 || ifd < 0 || ioctl(lfd, LOOP_CONFIGURE, &lc))
		err = errno;
	if (ifd >= 0)
		close(ifd);
	if (err) {
		if (lfd >= 0)
			close(lfd);
		errno = err;
		return -1;
	}
	return lfd; /* autoclear: detached once unmounted and closed */
}

static int disk_mount(struct disk *d, char *why, size_t whylen)
{
	char img[64], src[64], dev[32] = "(no loop device)";
	int lfd;

	if (d->mounted)
		return 0;
	snprintf(img, sizeof(img), COV_DIR "/%s.img", d->type);
	snprintf(src, sizeof(src), "cov-%s.img", d->type);
	umount2(d->dir, MNT_DETACH);
	if (mkdir_p(d->dir, 0755) || copy_fresh(bin(src), img, 0600)) {
		snprintf(why, whylen, "copy %s to %s: %s", bin(src), img,
			 errtxt(errno));
		return -1;
	}
	lfd = loop_attach(img, dev, sizeof(dev));
	if (lfd < 0 || mount(dev, d->dir, d->type, 0, NULL)) {
		snprintf(why, whylen, "attach %s to %s and mount it as %s: %s",
			 img, dev, d->type, errtxt(errno));
		if (lfd >= 0)
			close(lfd);
		return -1;
	}
	close(lfd);
	d->mounted = true;
	return 0;
}

void disks_unmount(void)
{
	for (size_t i = 0; i < sizeof(disks) / sizeof(disks[0]); i++) {
		if (disks[i].mounted && umount2(disks[i].dir, MNT_DETACH))
			fprintf(stderr, "coverage: umount %s: %s\n",
				disks[i].dir, errtxt(errno));
		disks[i].mounted = false;
	}
}

/* The disk of a case: its prep_arg names the type, NULL is ext4. */
static struct disk *case_disk(const struct cov_case *c)
{
	const char *type = c->prep_arg ? c->prep_arg : "ext4";

	for (size_t i = 0; i < sizeof(disks) / sizeof(disks[0]); i++)
		if (strcmp(disks[i].type, type) == 0)
			return &disks[i];
	return NULL;
}

/* A fresh sleeper copy at DIR/prog on the case's disk, as target[0]. */
static int disk_prog(const struct cov_case *c, struct run *r, char *why,
		     size_t whylen)
{
	struct disk *d = case_disk(c);
	char path[64];

	if (!d) {
		snprintf(why, whylen, "no disk of type %s",
			 (const char *)c->prep_arg);
		return -1;
	}
	if (disk_mount(d, why, whylen))
		return -1;
	snprintf(path, sizeof(path), "%s/prog", d->dir);
	r->dir = d->dir;
	if (copy_fresh(bin("sleeper"), path, 0755)) {
		snprintf(why, whylen, "copy the sleeper to %s: %s", path,
			 errtxt(errno));
		return -1;
	}
	r->target[0].dirfd = AT_FDCWD;
	snprintf(r->target[0].path, sizeof(r->target[0].path), "%s", path);
	return 0;
}

int prep_old_writer(const struct cov_case *c, struct run *r, char *why,
		    size_t whylen)
{
	char src[64];

	if (disk_prog(c, r, why, whylen))
		return -1;
	snprintf(src, sizeof(src), "%s/src", r->dir);
	r->fd = open(r->target[0].path, O_RDWR | O_CLOEXEC);
	if (r->fd < 0 || make_blob(src, 2 * BLOCK) ||
	    (r->srcfd = open(src, O_RDONLY | O_CLOEXEC)) < 0) {
		snprintf(why, whylen, "open %s for writing, make %s: %s",
			 r->target[0].path, src, errtxt(errno));
		return -1;
	}
	return 0;
}

int prep_shared_map(const struct cov_case *c, struct run *r, char *why,
		    size_t whylen)
{
	int fd;

	if (disk_prog(c, r, why, whylen))
		return -1;
	fd = open(r->target[0].path, O_RDWR | O_CLOEXEC);
	r->maplen = BLOCK;
	r->map = fd < 0 ? MAP_FAILED : mmap(NULL, r->maplen,
					    PROT_READ | PROT_WRITE, MAP_SHARED,
					    fd, 0);
	if (r->map == MAP_FAILED) {
		r->map = NULL;
		snprintf(why, whylen, "shared writable mapping of %s: %s",
			 r->target[0].path, errtxt(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd); /* the mapping keeps the file open for writing */
	return 0;
}

/* The first CHUNK bytes of the file, to write back in place. */
static int head(struct run *r, char *buf, char *why, size_t whylen)
{
	if (pread(r->fd, buf, CHUNK, 0) != CHUNK) {
		snprintf(why, whylen, "read the head of %s: %s",
			 r->target[0].path, errtxt(errno));
		return -1;
	}
	return 0;
}

/* The errno of a write-like call that returned n (CHUNK if it succeeded). */
static int write_result(ssize_t n, char *why, size_t whylen)
{
	if (n == CHUNK)
		return 0;
	if (n >= 0) {
		snprintf(why, whylen, "short write: %zd of %d bytes", n, CHUNK);
		return -1;
	}
	return errno;
}

int fdop_write(struct run *r, const struct check *k, char *why, size_t whylen)
{
	char buf[CHUNK];

	(void)k;
	if (head(r, buf, why, whylen) || lseek(r->fd, 0, SEEK_SET)) {
		return -1;
	}
	return write_result(write(r->fd, buf, CHUNK), why, whylen);
}

int fdop_pwrite(struct run *r, const struct check *k, char *why, size_t whylen)
{
	char buf[CHUNK];

	(void)k;
	if (head(r, buf, why, whylen))
		return -1;
	return write_result(pwrite(r->fd, buf, CHUNK, 0), why, whylen);
}

int fdop_pwritev2(struct run *r, const struct check *k, char *why,
		  size_t whylen)
{
	char buf[CHUNK];
	struct iovec iov = { buf, CHUNK };

	(void)k;
	if (head(r, buf, why, whylen))
		return -1;
	return write_result(pwritev2(r->fd, &iov, 1, 0, RWF_DSYNC), why,
			    whylen);
}

/* io_uring without liburing: one IORING_OP_WRITE, submitted and waited
 * for in one io_uring_enter. */
struct ring {
	int fd;
	struct io_uring_params p;
	void *sq, *cq;
	size_t sqlen, cqlen;
	struct io_uring_sqe *sqes;
};

static void ring_close(struct ring *q)
{
	if (q->sqes && q->sqes != MAP_FAILED)
		munmap(q->sqes, q->p.sq_entries * sizeof(*q->sqes));
	if (q->cq && q->cq != MAP_FAILED && q->cq != q->sq)
		munmap(q->cq, q->cqlen);
	if (q->sq && q->sq != MAP_FAILED)
		munmap(q->sq, q->sqlen);
	if (q->fd >= 0)
		close(q->fd);
}

static void *ring_map(int fd, size_t len, off_t off)
{
	return mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		    fd, off);
}

static int ring_open(struct ring *q)
{
	memset(q, 0, sizeof(*q));
	q->fd = (int)syscall(__NR_io_uring_setup, 1, &q->p);
	if (q->fd < 0)
		return -1;
	q->sqlen = q->p.sq_off.array + q->p.sq_entries * sizeof(unsigned);
	q->cqlen = q->p.cq_off.cqes +
		   q->p.cq_entries * sizeof(struct io_uring_cqe);
	if (q->p.features & IORING_FEAT_SINGLE_MMAP)
		q->sqlen = q->cqlen = q->sqlen > q->cqlen ? q->sqlen : q->cqlen;
	q->sq = ring_map(q->fd, q->sqlen, IORING_OFF_SQ_RING);
	q->cq = q->p.features & IORING_FEAT_SINGLE_MMAP ?
			q->sq : ring_map(q->fd, q->cqlen, IORING_OFF_CQ_RING);
	q->sqes = ring_map(q->fd, q->p.sq_entries * sizeof(*q->sqes),
			   IORING_OFF_SQES);
	if (q->sq == MAP_FAILED || q->cq == MAP_FAILED || q->sqes == MAP_FAILED)
		return -1;
	return 0;
}

#define RING_PTR(base, off) ((unsigned *)((char *)(base) + (off)))

/* Submit one write and wait for it: 0 and its result in *res, or -1. */
static int ring_write(struct ring *q, int fd, const void *buf, int *res)
{
	unsigned *tail = RING_PTR(q->sq, q->p.sq_off.tail);
	unsigned idx = *tail & *RING_PTR(q->sq, q->p.sq_off.ring_mask);
	unsigned *head = RING_PTR(q->cq, q->p.cq_off.head);
	struct io_uring_cqe *cqes = (void *)((char *)q->cq + q->p.cq_off.cqes);
	struct io_uring_sqe *sqe = &q->sqes[idx];

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_WRITE;
	sqe->fd = fd;
	sqe->addr = (uint64_t)(uintptr_t)buf;
	sqe->len = CHUNK;
	sqe->off = 0;
	RING_PTR(q->sq, q->p.sq_off.array)[idx] = idx;
	__atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, q->fd, 1, 1, IORING_ENTER_GETEVENTS,
		    NULL, 0) < 0)
		return -1;
	if (__atomic_load_n(RING_PTR(q->cq, q->p.cq_off.tail), __ATOMIC_ACQUIRE) ==
	    *head) {
		errno = EAGAIN;
		return -1;
	}
	*res = cqes[*head & *RING_PTR(q->cq, q->p.cq_off.ring_mask)].res;
	__atomic_store_n(head, *head + 1, __ATOMIC_RELEASE);
	return 0;
}

int fdop_io_uring(struct run *r, const struct check *k, char *why,
		  size_t whylen)
{
	char buf[CHUNK];
	struct ring q;
	int res = 0, ok;

	(void)k;
	if (head(r, buf, why, whylen))
		return -1;
	ok = ring_open(&q) == 0 && ring_write(&q, r->fd, buf, &res) == 0;
	if (!ok)
		snprintf(why, whylen, "io_uring: %s", errtxt(errno));
	ring_close(&q);
	if (!ok)
		return -1;
	return write_result(res < 0 ? (errno = -res, -1) : res, why, whylen);
}

/* Linux aio: io_setup, io_submit of one IOCB_CMD_PWRITE, io_getevents.
 * A refusal may come from io_submit itself or in the completion. */
int fdop_aio(struct run *r, const struct check *k, char *why, size_t whylen)
{
	char buf[CHUNK];
	aio_context_t ctx = 0;
	struct iocb cb, *cbs[1] = { &cb };
	struct io_event ev;
	struct timespec ts = { WAIT_MS / 1000, 0 };
	long n;
	int err = 0;

	(void)k;
	if (head(r, buf, why, whylen))
		return -1;
	if (syscall(__NR_io_setup, 1, &ctx)) {
		snprintf(why, whylen, "io_setup: %s", errtxt(errno));
		return -1;
	}
	memset(&cb, 0, sizeof(cb));
	cb.aio_fildes = (uint32_t)r->fd;
	cb.aio_lio_opcode = IOCB_CMD_PWRITE;
	cb.aio_buf = (uint64_t)(uintptr_t)buf;
	cb.aio_nbytes = CHUNK;
	n = syscall(__NR_io_submit, ctx, 1, cbs);
	if (n < 0) {
		err = errno;
	} else if (syscall(__NR_io_getevents, ctx, 1, 1, &ev, &ts) != 1) {
		snprintf(why, whylen, "io_getevents: no completion: %s",
			 errtxt(errno));
		err = -1;
	} else {
		err = write_result(ev.res < 0 ? (errno = (int)-ev.res, -1)
					      : (ssize_t)ev.res,
				   why, whylen);
	}
	syscall(__NR_io_destroy, ctx);
	return err;
}

int fdop_fallocate(struct run *r, const struct check *k, char *why,
		   size_t whylen)
{
	struct stat st;
	off_t off = 2 * BLOCK;

	if (fstat(r->fd, &st) || st.st_size < 4 * BLOCK) {
		snprintf(why, whylen, "%s is too small or unreadable: %s",
			 r->target[0].path, errtxt(errno));
		return -1;
	}
	if (k->idx == 0) /* growth: allocate past the end */
		off = (st.st_size + BLOCK - 1) / BLOCK * BLOCK;
	return fallocate(r->fd, k->idx, off, BLOCK) ? errno : 0;
}

int fdop_copy_file_range(struct run *r, const struct check *k, char *why,
			 size_t whylen)
{
	loff_t in = 0, out = 0;

	(void)k;
	return write_result(copy_file_range(r->srcfd, &in, r->fd, &out, CHUNK,
					    0),
			    why, whylen);
}

int fdop_ficlone(struct run *r, const struct check *k, char *why,
		 size_t whylen)
{
	(void)k;
	(void)why;
	(void)whylen;
	return ioctl(r->fd, FICLONE, r->srcfd) ? errno : 0;
}

/*
 * XFS_IOC_SWAPEXT, from fs/xfs/libxfs/xfs_fs.h (the ABI of xfs_fsr; the
 * command's size field is sizeof(struct xfs_swapext), so a wrong layout
 * is refused with ENOTTY, and the checks that expect success see it).
 */
struct xfs_bstime {
	long tv_sec;
	int32_t tv_nsec;
};

struct xfs_bstat {
	uint64_t bs_ino;
	uint16_t bs_mode, bs_nlink;
	uint32_t bs_uid, bs_gid, bs_rdev;
	int32_t bs_blksize;
	int64_t bs_size;
	struct xfs_bstime bs_atime, bs_mtime, bs_ctime;
	int64_t bs_blocks;
	uint32_t bs_xflags;
	int32_t bs_extsize, bs_extents;
	uint32_t bs_gen;
	uint16_t bs_projid_lo, bs_forkoff, bs_projid_hi, bs_sick, bs_checked;
	unsigned char bs_pad[2];
	uint32_t bs_cowextsize, bs_dmevmask;
	uint16_t bs_dmstate, bs_aextents;
};

struct xfs_swapext {
	int64_t sx_version, sx_fdtarget, sx_fdtmp;
	int64_t sx_offset, sx_length;
	char sx_pad[16];
	struct xfs_bstat sx_stat;
};

#define XFS_IOC_SWAPEXT _IOWR('X', 109, struct xfs_swapext)

/*
 * Swap the blocks of the old writer fd's file with those of a fresh copy
 * of it (same size, same bytes, opened O_RDWR as XFS requires): k->idx 0
 * makes the old writer's file the target, 1 the temporary file.  XFS
 * checks that the target's times are still those of sx_stat.
 */
int fdop_xfs_swapext(struct run *r, const struct check *k, char *why,
		     size_t whylen)
{
	struct xfs_swapext sx;
	struct stat st;
	char tmp[64];
	int tfd, err;

	snprintf(tmp, sizeof(tmp), "%s/swap", r->dir);
	if (copy_fresh(r->target[0].path, tmp, 0755) ||
	    (tfd = open(tmp, O_RDWR | O_CLOEXEC)) < 0) {
		snprintf(why, whylen, "copy %s to %s: %s", r->target[0].path,
			 tmp, errtxt(errno));
		return -1;
	}
	memset(&sx, 0, sizeof(sx));
	sx.sx_fdtarget = k->idx ? tfd : r->fd;
	sx.sx_fdtmp = k->idx ? r->fd : tfd;
	if (fstat((int)sx.sx_fdtarget, &st)) {
		snprintf(why, whylen, "fstat the target: %s", errtxt(errno));
		close(tfd);
		return -1;
	}
	sx.sx_length = st.st_size;
	sx.sx_stat.bs_mtime.tv_sec = st.st_mtim.tv_sec;
	sx.sx_stat.bs_mtime.tv_nsec = (int32_t)st.st_mtim.tv_nsec;
	sx.sx_stat.bs_ctime.tv_sec = st.st_ctim.tv_sec;
	sx.sx_stat.bs_ctime.tv_nsec = (int32_t)st.st_ctim.tv_nsec;
	err = ioctl(tfd, XFS_IOC_SWAPEXT, &sx) ? errno : 0;
	close(tfd);
	return err;
}

/* A new shared writable mapping through the old fd. */
int fdop_mmap_shared(struct run *r, const struct check *k, char *why,
		     size_t whylen)
{
	void *p;

	(void)k;
	(void)why;
	(void)whylen;
	p = mmap(NULL, BLOCK, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
	if (p == MAP_FAILED)
		return errno;
	munmap(p, BLOCK);
	return 0;
}
