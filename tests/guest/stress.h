/* stress.h - shared by stress.c (driver, checks, kernel interface),
 * stress_round.c (the round engine of the race cases), stress_churn.c
 * (rules added and removed under running programs), stress_window.c
 * (the exec open window and the detector controls), stress_refused.c,
 * stress_shared.c and stress_modeoff.c. */
#ifndef STRESS_H
#define STRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "stress_shm.h"
#include "util.h"

#define SFS "/sys/kernel/security/denywrite"
#define WORK "/tmp/dws"
#define PLUGIN_DIR "/usr/lib/dwtest"
#define PLUGIN_SRC PLUGIN_DIR "/libdwplugin.so"
/* The policy of every case but the flips: programs everywhere, the
 * libraries under PLUGIN_DIR. */
#define POLICY_BASE "exec /\nlib " PLUGIN_DIR "\n"

enum kernel { K_LSM, K_STOCK, K_COUNT };

/* The checks a case can make; each prints one line "<case>_<suffix>". */
enum check {
	CK_NEVER_BOTH,	   /* a write and an exec (or mapping) never both succeed */
	CK_NO_SIGNAL,	   /* no process died of a signal we did not send */
	CK_NO_UNEXPECTED,  /* only ETXTBSY or success; nothing timed out */
	CK_BASELINE,	   /* stats' protected is back to its baseline */
	CK_WRITABLE,	   /* the files are writable once all is reaped */
	CK_CLOSE,	   /* enough close rounds to mean something */
	CK_FLIPPED,	   /* modes and policies did change during the races */
	CK_NO_TORN,	   /* the entry that ran is the one the file says */
	CK_WINDOW_DENIED,  /* no write open while exec has the file open */
	CK_WINDOW_FINISH,  /* that exec finishes once its fault is resolved */
	CK_CTL_TORN,	   /* control: the torn-exec detector can fire */
	CK_CTL_OVERLAP,	   /* control: the both-succeeded detector can fire */
	CK_REFUSED,	   /* enough uses were refused to mean something */
	CK_ROUNDS,	   /* enough rounds ran to mean something */
	CK_COUNT
};
#define CKB(c) (1u << (c))
/* Checks that need denywrite (its stats, or a mode to switch off). */
#define LSM_ONLY_CHECKS (CKB(CK_BASELINE) | CKB(CK_FLIPPED) | CKB(CK_CTL_TORN) | \
			 CKB(CK_CTL_OVERLAP))

/* How a round's users take the file. */
enum kind {
	KIND_EXEC, /* fork + execve of twoface */
	KIND_EXIT, /* as EXEC, racing the exit of a running holder */
	KIND_MAP,  /* a process maps it PROT_EXEC and forks children */
	KIND_DL,   /* persistent stressdl processes dlopen/dlclose it */
};
/* What a writer that got the file writes. */
enum payload {
	PAY_MARK,  /* a unique marker over the last MARK_LEN bytes, again and
		    * again while it holds the file */
	PAY_ENTRY, /* switches e_entry's low byte to the other entry, once */
};
/* Where the writer's delay is steered. */
enum steer {
	STEER_OPEN,  /* writer's open against the user taking the file */
	STEER_CLOSE, /* writer's close against it (the header window) */
	STEER_EXIT,  /* writer's open against the holder's exit */
};

struct tally;
struct scase;
typedef void (*case_fn)(const struct scase *c, struct tally *t);

struct scase {
	const char *name;
	case_fn run;
	unsigned kernels; /* 1 << K_* */
	unsigned checks;  /* CKB() of the checks it makes */
	int budget_ms;
	int min_close;	  /* CK_CLOSE: fewer close rounds is a FAIL */
	enum kind kind;
	enum payload payload;
	enum steer steer;
	bool flips;	  /* modes and policies change during the case */
	bool repeat;	  /* writers keep trying until the users are gone */
	int writers;	  /* writer threads */
	int users;	  /* contending users (EXEC/EXIT/DL) or forked children (MAP) */
	int hold_us;	  /* how long a writer or user holds the file */
};

/* The figures a case measures, printed as STAT lines. */
enum figure {
	ST_ROUNDS,	 /* rounds run */
	ST_WRITER_WON,	 /* a writer got the file, the users were refused */
	ST_EXEC_WON,	 /* a user got the file, the writers were refused */
	ST_BOTH_FAILED,	 /* everyone refused: both saw the other (the window) */
	ST_APART,	 /* both got it, one after the other */
	ST_NOT_IN_FLIGHT, /* one side refused, but it came while the other
			  * held the file already: no race */
	ST_CLOSE,	 /* close rounds that were judged (see CK_CLOSE) */
	ST_STRICT,	 /* rounds judged for CK_NEVER_BOTH */
	ST_BOTH_SUCCEEDED, /* rounds where a write and a use overlapped */
	ST_TORN,	 /* programs that ran another header than they saw */
	ST_KILLED,	 /* processes dead of a signal we did not send */
	ST_MODE_WRITES,	 /* writes to mode during the case */
	ST_POLICY_WRITES, /* whole-policy writes to rules */
	ST_RULE_WRITES,	 /* writes to add and del */
	ST_FORKS,	 /* processes forked */
	ST_STILL_PROTECTED, /* rounds after which the file was not writable at once */
	ST_LAG_MAX_US,	 /* the longest wait, then, until it was */
	ST_WINDOW_ERRNO, /* the exec open window: errno of the writer's open */
	ST_REFUSED,	 /* uses refused while a writer held the file */
	ST_WRITES,	 /* writes through the writer's file meanwhile */
	ST_MAPPINGS,	 /* mappings made (mode off races) */
	ST_MS,		 /* wall time of the case */
	ST_COUNT
};

/* What a case counted.  Failures count per check and keep the first
 * reason; a figure is printed only if the case measured it. */
struct tally {
	long st[ST_COUNT];
	unsigned measured; /* 1 << ST_* */
	long bad[CK_COUNT];
	char why[CK_COUNT][240];
	bool fatal; /* a thread of ours is stuck: no further case can run */
};
void st_add(struct tally *t, enum figure s, long n);
void st_max(struct tally *t, enum figure s, long v);

/* stress.c */
extern enum kernel kernel;
extern int shm_fd;
extern struct shm *shm;
/* "<bindir>/<name>" in a static buffer (4 slots). */
const char *bin(const char *name);
/* Count a failure of check c and keep its first reason. */
void bad(struct tally *t, enum check c, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Copy src to dst as a new inode with a MARK_LEN-byte marker appended. */
int make_target(const char *src, const char *dst);
/* Write text to SFS/name in one write(2); 0 or an errno. */
int sfs_write(const char *name, const char *text);
/* The value of key in SFS/stats, or -1. */
long read_stat(const char *key);
/* Reset every record and the spawn count for a new round. */
void shm_reset(void);
/* Wait (up to timeout_ms) until path opens for writing; the wait in us,
 * or -1 if it never did. */
long wait_writable(const char *path, int timeout_ms);
/* Wait until done(arg) is true, woken by shm_post(); 0, or -1 after
 * timeout_ms. */
int shm_wait_event(bool (*done)(void *), void *arg, int timeout_ms);
/* Reap one child within timeout_ms; note in t how it ended (a signal is
 * CK_NO_SIGNAL unless we sent it, a non-zero exit not in ok_codes is
 * CK_NO_UNEXPECTED).  Returns the pid, 0 on timeout. */
pid_t reap_one(struct tally *t, int timeout_ms, bool we_killed,
	       const int *ok_codes, int *code);
/* Reap every child, killing what is left after timeout_ms. */
void reap_rest(struct tally *t, int timeout_ms);
/* SIGKILL the process group of every child of ours. */
void kill_children(void);

/* stress_round.c: the race cases (exec, exit, mapping, dlopen). */
void run_race(const struct scase *c, struct tally *t);
/* The close rounds of every race case of the run (both sides in flight,
 * one refused), by outcome: stress.c judges them once the cases ran. */
struct race_totals {
	long close, writer_won, exec_won, both_failed;
};
extern struct race_totals race_totals;
/* Would a writer's attempt [t_open, t_close] and a user's record be a
 * write and a use of the file at once?  1 and why if so. */
struct wattempt {
	int err;       /* 0: it got the file */
	int write_err; /* errno of a failed write through it */
	long long t_try, t_got; /* the open was called, it returned */
	long long t_open, t_close;
};
int judge(const struct shm_rec *r, const struct wattempt *a, char *why,
	  size_t len);

/* stress_churn.c: rules added and removed while programs run. */
void run_churn(const struct scase *c, struct tally *t);

/* stress_window.c */
void run_window(const struct scase *c, struct tally *t);
void run_controls(const struct scase *c, struct tally *t);
/* stress_refused.c: refused users against an open writer's writes. */
void run_refused(const struct scase *c, struct tally *t);
/* stress_shared.c: threads that map one open file at once hold it once. */
void run_shared(const struct scase *c, struct tally *t);
/* stress_modeoff.c: mappings racing mode off leave no hold behind. */
void run_modeoff(const struct scase *c, struct tally *t);
/* stress_spawn.c: start a process in a process group of its own, counted
 * in shm->spawned, that waits for generation gate (unless 0), spins the
 * delay_us of its slot and execs path with argv (argv[0] is path) and envp
 * (NULL: ours); a failed execve is recorded in the slot.  The strings must
 * outlive the exec.  Returns the pid or -1. */
pid_t spawn_exec(int slot, const char *path, char *const argv[],
		 char *const envp[], unsigned gate);
/* spawn_exec of twoface at path with its arguments (see twoface.c). */
pid_t spawn_twoface(const char *path, int slot, int hold_us, unsigned gate,
		    unsigned pregen, unsigned postgen);
/* The low bytes of twoface's two entries (A, the e_entry of the file at
 * path, then B); 0, or -1 if they are not what twoface.c promises. */
int twoface_entries(const char *path, unsigned char lo[2]);
/* A fresh copy of twoface with its marker, for case c: WORK/<case>/prog. */
int case_target(const struct scase *c, char *path, size_t len);

#endif
