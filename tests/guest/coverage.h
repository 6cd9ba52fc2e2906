/* coverage.h - shared by the parts of `coverage`, the guest tests of the
 * coverage holes of issue 7: coverage.c (the case table, the checks, the
 * policy and the counters), cov_hold.c (how a case puts its files in place
 * and holds them: overlays, detached mounts, mappings, helper processes)
 * and cov_fdops.c (changes through a descriptor opened before protection).
 */
#ifndef COVERAGE_H
#define COVERAGE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "util.h"

/* The Makefile gives COV_DIR: ovlsleep's ELF interpreter path is linked in
 * under it, so both must agree. */
#ifndef COV_DIR
#error "COV_DIR must come from tests/guest/Makefile"
#endif
#define OVL_DIR COV_DIR "/ovl"
#define OVL_MERGED OVL_DIR "/merged"
#define EXT4_DIR COV_DIR "/ext4"
#define XFS_DIR COV_DIR "/xfs"
#define SFS_DIR "/sys/kernel/security/denywrite"
#define GUEST_LIB "/usr/lib/libdwtest.so"
#define GUEST_PLUGIN "/usr/lib/dwtest/libdwplugin.so"
#define GUEST_LDSO "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"

/* The stats counter a refusal is counted in. */
enum counter { CT_NONE = -1, CT_WRITE, CT_TRUNCATE, CT_EXEC, CT_MMAP, CT_COUNT };

/* A file a probe opens: openat(dirfd, path). */
struct target {
	int dirfd;
	char path[PATH_MAX];
};

/* The state of one case while it runs; run_init() sets every fd to -1. */
struct run {
	const char *dir, *name;  /* where prep put the case's file */
	struct target target[2]; /* [0] the path used, [1] another name */
	struct proc proc;        /* a program holding the file */
	struct helper helper;    /* a forked helper holding it */
	int fd, srcfd, dirfd;    /* descriptors kept for the case */
	void *map;               /* a mapping kept for the case */
	size_t maplen;
	int result[2];           /* errnos recorded while holding */
};

struct cov_case;
struct check;
/* A step of a case: 0, or -1 with the reason in why. */
typedef int (*step_fn)(const struct cov_case *c, struct run *r, char *why,
		       size_t whylen);
/* A probe: the errno of the probed operation (0 = it succeeded), or -1 with
 * the reason in why when it could not be done. */
typedef int (*probe_fn)(struct run *r, const struct check *k, char *why,
			size_t whylen);

struct check {
	const char *what;     /* the behaviour, in the check's name */
	probe_fn probe;
	int idx;              /* target or result index */
	uid_t uid;            /* probe_write: as this user */
	int want;             /* expected errno, 0 = must succeed */
	enum counter counter; /* counter a want of ETXTBSY moves by one */
};

#define MAX_CHECKS 3
struct cov_case {
	const char *name;
	const char *rules; /* the policy, one rule a line, no last newline */
	step_fn prep;      /* files and mounts, before the policy is set */
	const void *prep_arg;
	step_fn hold;      /* make the file protected, after */
	const void *hold_arg;
	struct check checks[MAX_CHECKS];
};

/* --- cov_hold.c -------------------------------------------------------- */
const char *bin(const char *name); /* a helper program next to coverage */
void run_init(struct run *r);
void run_cleanup(struct run *r);
void teardown_mounts(void);
/* write(2) of text to SFS_DIR/name in one call: 0 or the errno. */
int sfs_write(const char *name, const char *text);

struct ovl_file {        /* prep_overlay: a fresh overlay with one file */
	const char *src; /* copied from */
	const char *name;
	bool lower;      /* in the lower layer, else the upper */
};
int prep_overlay(const struct cov_case *c, struct run *r, char *why,
		 size_t whylen);

struct plain_file {          /* prep_plain: one file in its own directory */
	const char *src;
	const char *dir;
	const char *name;
	uid_t owner;
	const char *tmpfs_opts;  /* mount a tmpfs on dir first, if not NULL */
	unsigned long mnt_flags; /* with these flags */
};
int prep_plain(const struct cov_case *c, struct run *r, char *why,
	       size_t whylen);

struct map_def {   /* hold_map: a helper maps target[0] and keeps it */
	uid_t uid; /* as this user */
	int prot;  /* mmap(MAP_PRIVATE) with this */
	int mprot; /* then mprotect to this, if not 0 */
	bool keep_fd;
	int want_err; /* the mmap is expected to fail with this; result[0] */
};
int hold_map(const struct cov_case *c, struct run *r, char *why,
	     size_t whylen);

struct spawn_def {             /* hold_spawn: run a program */
	const char *prog;      /* from bin(), or NULL: target[0] itself */
	const char *lib_path;  /* LD_LIBRARY_PATH for it, if not NULL */
	bool target_arg;       /* target[0] is its argv[1] */
};
int hold_spawn(const struct cov_case *c, struct run *r, char *why,
	       size_t whylen);

int hold_memfd(const struct cov_case *c, struct run *r, char *why,
	       size_t whylen);
int hold_open_tree(const struct cov_case *c, struct run *r, char *why,
		   size_t whylen);
int hold_lazy_umount(const struct cov_case *c, struct run *r, char *why,
		     size_t whylen);
int hold_pivot_root(const struct cov_case *c, struct run *r, char *why,
		    size_t whylen);

int probe_write(struct run *r, const struct check *k, char *why, size_t whylen);
int probe_result(struct run *r, const struct check *k, char *why,
		 size_t whylen);
int probe_exec(struct run *r, const struct check *k, char *why, size_t whylen);

/* --- cov_fdops.c ------------------------------------------------------- */
/* prep_old_writer: a sleeper copy (target[0]) on the case's disk, its
 * prep_arg's type ("xfs"; NULL: ext4), open O_RDWR in r->fd, and a source
 * file in r->srcfd; hold_spawn then runs it. */
int prep_old_writer(const struct cov_case *c, struct run *r, char *why,
		    size_t whylen);
/* prep_shared_map: a sleeper copy on ext4 with a shared writable mapping. */
int prep_shared_map(const struct cov_case *c, struct run *r, char *why,
		    size_t whylen);
int fdop_write(struct run *r, const struct check *k, char *why, size_t whylen);
int fdop_pwrite(struct run *r, const struct check *k, char *why, size_t whylen);
int fdop_pwritev2(struct run *r, const struct check *k, char *why,
		  size_t whylen);
int fdop_io_uring(struct run *r, const struct check *k, char *why,
		  size_t whylen);
int fdop_aio(struct run *r, const struct check *k, char *why, size_t whylen);
/* fallocate(r->fd, k->idx, ...) at a block-aligned offset inside the file;
 * mode 0 grows it past its end. */
int fdop_fallocate(struct run *r, const struct check *k, char *why,
		   size_t whylen);
int fdop_copy_file_range(struct run *r, const struct check *k, char *why,
			 size_t whylen);
int fdop_ficlone(struct run *r, const struct check *k, char *why,
		 size_t whylen);
/* XFS_IOC_SWAPEXT of r->fd's file with a copy of it: as the target if
 * k->idx is 0, as the temporary file if 1. */
int fdop_xfs_swapext(struct run *r, const struct check *k, char *why,
		     size_t whylen);
int fdop_mmap_shared(struct run *r, const struct check *k, char *why,
		     size_t whylen);
void disks_unmount(void);

#endif
