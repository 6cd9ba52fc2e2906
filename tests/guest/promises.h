/* promises.h - shared by the parts of `promises`, the guest tests of the
 * README's promises that nothing else tests (issue 8, section 4):
 * promises.c (the table of cases, the runner, the counters), prm_cases.c
 * (what each case does) and prm_sys.c (the case's context: processes,
 * mappings, mounts it cleans up; the kernel log; forked children; the
 * prctl(PR_SET_MM_MAP) stub).
 *
 * Each case is one row and one check.  The runner gives it a fresh tree
 * under PRM_DIR, runs its prep step with no rules, sets the row's mode and
 * rules by writing SFS mode and rules, reads stats, runs the case, reads
 * stats again and cleans up.  The case returns the errno of the operation
 * the check is about (0: it succeeded); the check passes iff that is the
 * row's errno, the counters moved by exactly the row's amounts, and the
 * protected count is back where it was once the case's holders are gone.
 */
#ifndef PROMISES_H
#define PROMISES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "sfs.h"
#include "util.h"

#define PRM_DIR "/tmp/prm"
#define PRM_BIN PRM_DIR "/bin"   /* prog (the sleeper), next (execvia) */
#define PRM_LIB PRM_DIR "/lib"   /* lib.so (libdwtest.so) */
#define PRM_OTHER PRM_DIR "/other"
#define PRM_PROG PRM_BIN "/prog"
#define PRM_NEXT PRM_BIN "/next"
#define PRM_SO PRM_LIB "/lib.so"
/* Where the guest keeps the programs (qemu/initramfs.list). */
#ifndef GUEST_BIN
#define GUEST_BIN "/tests/bin"
#endif
#define SLEEPER GUEST_BIN "/sleeper"
#define EXECVIA GUEST_BIN "/execvia"
#define GUEST_LIB "/usr/lib/libdwtest.so"

/* --- the case's context (prm_sys.c) ------------------------------------ */

#define CTX_PROCS 6
#define CTX_FDS 6
#define CTX_MAPS 4
#define CTX_UNDO 4

struct mapping {
	void *addr;
	size_t len;
};

/* Everything a case leaves behind, undone by ctx_cleanup() in this order:
 * processes killed and reaped, mappings unmapped, descriptors closed,
 * binfmt_misc entries removed, the rules cleared, mounts detached (the
 * last one first), files outside PRM_DIR unlinked. */
struct ctx {
	struct proc procs[CTX_PROCS];
	int nprocs;
	int fds[CTX_FDS];
	int nfds;
	struct mapping maps[CTX_MAPS];
	int nmaps;
	char binfmt[CTX_UNDO][64];
	int nbinfmt;
	char mounts[CTX_UNDO][256];
	int nmounts;
	char unlinks[CTX_UNDO][256];
	int nunlinks;
};

void ctx_init(struct ctx *c);
void ctx_cleanup(struct ctx *c);
int ctx_fd(struct ctx *c, int fd);           /* keeps fd; returns it */
void ctx_close(struct ctx *c, int fd);       /* closes a kept fd now */
void ctx_mount(struct ctx *c, const char *dir);
void ctx_unlink(struct ctx *c, const char *path);
void ctx_binfmt(struct ctx *c, const char *name);
/* A mapping of path (the whole file) with prot, kept: MAP_PRIVATE, or
 * with PROT_WRITE a shared writable one.  Its fd is closed unless fd_out
 * is given (then kept, and returned there).  The mapping, or NULL with
 * errno set (the mmap's errno: a refusal). */
struct mapping *ctx_map(struct ctx *c, const char *path, int prot,
			int *fd_out);
void ctx_unmap(struct ctx *c, struct mapping *m);

/* Start argv[0] (a path) with argv, wait until /proc/PID/exe reads exe and
 * the program said it runs (ready.h).  The process, kept, or NULL with why
 * set; *exec_err is the execve's errno when that is why. */
struct proc *ctx_start(struct ctx *c, char *const argv[], const char *exe,
		       int *exec_err, char *why, size_t whylen);
/* ctx_start of path alone, which is also its exe. */
struct proc *ctx_run(struct ctx *c, const char *path, char *why,
		     size_t whylen);
void ctx_stop(struct ctx *c, struct proc *p); /* SIGKILL, reap, now */
/* Wait for p's next "R" (a program it exec'ed says it runs). */
int proc_next_ready(struct proc *p, char *why, size_t whylen);

/* A forked child named comm runs fn(arg, out, outlen) and exits with the
 * errno it returns; what it writes to out comes back in out.  0 with
 * *err and *pid set, or -1 with why (it died, or timed out and was
 * killed). */
typedef int (*child_fn)(const void *arg, char *out, size_t outlen);
int child_run(const char *comm, child_fn fn, const void *arg, char *out,
	      size_t outlen, int *err, pid_t *pid, char *why, size_t whylen);

/* A forked child unmaps this program's own file and calls
 * prctl(PR_SET_MM, PR_SET_MM_MAP) with exe_fd, as CRIU's restorer does,
 * then pauses until killed.  The child, kept in c, with *err the prctl's
 * errno; or NULL with why. */
struct proc *mm_map_child(struct ctx *c, int exe_fd, int *err, char *why,
			  size_t whylen);

/* The kernel log.  klog_open() marks its end; klog_record() waits until a
 * record of type 1400 (AVC) from pid arrives and copies its text after
 * "audit(...): " to body.  0, or -1 with why. */
int klog_open(char *why, size_t whylen);
int klog_record(int fd, pid_t pid, int timeout_ms, char *body, size_t len,
		char *why, size_t whylen);

/* --- policy and counters (promises.c) ---------------------------------- */

/* Replace the rules (one rule a line, "" for none); the mode is kept. */
int set_rules(const char *rules, char *why, size_t whylen);
/* Set the mode; the rules are kept. */
int set_mode(const char *mode, char *why, size_t whylen);
/* The "protected" line of stats, or -1 with why. */
long long protected_now(char *why, size_t whylen);

/* open(path, O_WRONLY) and close: 0 or the errno (util.h probe_open). */
int probe_write(const char *path);
/* 0 if got is want; else -1 with why "<what>: got X, expected Y". */
int expect(const char *what, int got, int want, char *why, size_t whylen);

/* --- the cases (prm_cases.c) ------------------------------------------- */

typedef int (*case_fn)(struct ctx *c, const void *arg, char *why,
		       size_t whylen);

/* Each returns the errno of the operation its check is about, or -1 with
 * why when something else went wrong (a precondition, a postcondition, a
 * helper that did not start). */
int case_exec_away(struct ctx *c, const void *arg, char *why, size_t whylen);
int case_munmap(struct ctx *c, const void *arg, char *why, size_t whylen);
int case_mode_off_drops_holds(struct ctx *c, const void *arg, char *why,
			      size_t whylen);
int case_release_after_off(struct ctx *c, const void *arg, char *why,
			   size_t whylen);
int case_mode_off_drops_marks(struct ctx *c, const void *arg, char *why,
			      size_t whylen);
int case_many_holders(struct ctx *c, const void *arg, char *why,
		      size_t whylen);
int case_chmod(struct ctx *c, const void *arg, char *why, size_t whylen);
int case_ftruncate_old_fd(struct ctx *c, const void *arg, char *why,
			  size_t whylen);
int case_map_with_writer(struct ctx *c, const void *arg, char *why,
			 size_t whylen);
int case_rule_change(struct ctx *c, const void *arg, char *why,
		     size_t whylen);
int case_umount(struct ctx *c, const void *arg, char *why, size_t whylen);
int case_binfmt(struct ctx *c, const void *arg, char *why, size_t whylen);
int case_execveat(struct ctx *c, const void *arg, char *why, size_t whylen);
int case_mm_map(struct ctx *c, const void *arg, char *why, size_t whylen);
int case_lib_outside(struct ctx *c, const void *arg, char *why,
		     size_t whylen);
int case_lib_across_mount(struct ctx *c, const void *arg, char *why,
			  size_t whylen);
int case_protected_count(struct ctx *c, const void *arg, char *why,
			 size_t whylen);
int case_audit_record(struct ctx *c, const void *arg, char *why,
		      size_t whylen);
int case_audit_count(struct ctx *c, const void *arg, char *why,
		     size_t whylen);
int case_query(struct ctx *c, const void *arg, char *why, size_t whylen);

/* Prep steps, before the row's policy is set. */
int prep_mount(struct ctx *c, const void *arg, char *why, size_t whylen);
int prep_binfmt(struct ctx *c, const void *arg, char *why, size_t whylen);
int prep_usrlib(struct ctx *c, const void *arg, char *why, size_t whylen);
int prep_mount_lib(struct ctx *c, const void *arg, char *why, size_t whylen);
int prep_query(struct ctx *c, const void *arg, char *why, size_t whylen);

/* Arguments of the cases, in the rows of promises.c. */
struct munmap_arg {
	bool keep_fd; /* the fd stays open after munmap, closed after */
};
struct holders_arg {
	bool first_mapped_first; /* unmap in the order mapped, else reversed */
};
enum after_map { AM_NOTHING, AM_NEW_WRITER, AM_WRITE_OLD_FD };
struct map_arg {
	bool mprotect;        /* mmap PROT_READ, then mprotect PROT_EXEC */
	bool shared_writer;   /* the writer is a shared writable mapping */
	enum after_map after; /* the operation checked, after the mapping */
};
struct rule_change_arg {
	bool map;          /* hold by mmap PROT_EXEC of lib.so, else run prog */
	const char *rules; /* the rules written while it holds */
};
struct umount_arg {
	bool clear_first; /* remove the rules, then umount */
	int flags;        /* umount2 flags */
};
struct binfmt_arg {
	const char *name; /* entry name, and the magic's suffix */
	const char *flags;
};
struct execveat_arg {
	bool dirfd;  /* W/bin's fd and "prog"; else prog's fd, AT_EMPTY_PATH */
	bool writer; /* prog is open for writing meanwhile */
};
struct mm_map_arg {
	bool writer;
};
struct across_mount_arg {
	bool covered; /* a rule above the mount covers the library on it */
};
struct lib_outside_arg {
	const char *outside; /* mapped: must stay writable */
	const char *inside;  /* mapped after: must be protected */
};
enum audit_op { AO_WRITE, AO_TRUNCATE, AO_EXEC, AO_MMAP };
struct audit_arg {
	enum audit_op op;
};
/* How a writer of the running prog writes, in audit mode. */
enum audit_writer { AW_OLD_FD, AW_NEW_FD, AW_TRUNCATING_FD };
struct audit_count_arg {
	enum audit_writer how;
};
struct query_arg {
	uid_t opener, writer; /* euid when opening query, when writing it */
	const char *answer;   /* expected answer, when the write succeeds */
};
#define PRM_Q PRM_DIR "/q"
#define PRM_Q_FILE PRM_Q "/f"
#define PRM_MNT PRM_DIR "/mnt"

#endif
