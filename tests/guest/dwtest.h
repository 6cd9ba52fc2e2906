/* dwtest.h - shared between dwtest.c (driver), policy.c (CLI, stats, kernel
 * log), scenarios.c (the matrix) and extras.c (lsm-only tests). */
#ifndef DWTEST_H
#define DWTEST_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

/* The matrix's files are made under DW_DIR, on the filesystem of DW_TMP. */
#define DW_TMP "/tmp"
#define DW_DIR DW_TMP "/dw"
/* Overridable only to dry-run the /usr/lib scenarios off the guest, from
 * a scratch build (see README.md). */
#ifndef DW_USRLIB
#define DW_USRLIB "/usr/lib"
#endif
#define GUEST_LIB DW_USRLIB "/libdwtest.so"
#define GUEST_PLUGIN_DIR DW_USRLIB "/dwtest"
#define GUEST_PLUGIN GUEST_PLUGIN_DIR "/libdwplugin.so"
#define GUEST_LDSO "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"

enum kernel { K_STOCK, K_REMOVED, K_LSM };
enum mode { M_OFF, M_AUDIT, M_ENFORCE, M_COUNT };
enum ruleset { RS_EXEC_ROOT, RS_LIB_USRLIB, RS_ALL_ROOT, RS_NONE, RS_COUNT };
/* Which scope a scenario's target needs to be covered; NEVER = always allowed. */
enum scope { SC_EXEC, SC_LIB, SC_NEVER };
/* Where the target lives. */
enum loc { LOC_TMP, LOC_USRLIB };
/* The operation a denial would be counted as (stats key denied_<op>). */
enum op { OP_WRITE, OP_TRUNCATE, OP_EXEC, OP_MMAP };

extern const char *const mode_names[M_COUNT];
extern const char *const op_names[];

struct ruleset_def {
	const char *label; /* as printed in names and MATRIX lines */
	const char *flag;  /* denywritectl add FLAG PATH; NULL for none */
	const char *path;
};
extern const struct ruleset_def rulesets[RS_COUNT];

/* The expected-outcome model. */
bool covered(enum ruleset rs, enum scope sc, enum loc loc);
bool expect_denied(enum kernel k, enum ruleset rs, enum mode m, enum scope sc,
		   enum loc loc);

/* Run-wide configuration. */
struct config {
	enum kernel kernel;
	char bindir[4096]; /* where sleeper, forker, dynsleep... live */
	const char *cli;   /* path of denywritectl */
	const char *sfs;   /* securityfs directory of denywrite */
	/* --fs: the filesystem type the matrix must run on, else NULL. */
	const char *fs;
};
extern struct config cfg;
/* "<bindir>/<name>" in a static buffer (4 slots). */
const char *bin(const char *name);

/* --- output of a test unit (runs in a forked child of the driver) ------ */
/* Emit "PASS name" or "FAIL name: reason" (reason printf-style, one line).
 * A unit emits each of its declared names exactly once (see run_unit). */
void emit_check(const char *name, bool pass, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Emit "SKIP name: reason": the check did not run.  The report counts it
 * apart and fails the run unless the suite allows that skip. */
void emit_skip(const char *name, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Emit "STAT <group> <key> <value>": a figure for the report. */
void emit_stat(const char *key, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void emit_matrix(const char *rs_label, const char *mode, const char *scenario,
		 const char *result);
/* FAIL every declared name of this unit not yet emitted. */
void fail_rest(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "<scenario>_<denied|allowed>_in_<mode>[<ruleset>]" into buf. */
void check_name(char *buf, size_t len, const char *scenario, bool denied,
		const char *mode, const char *rs_label);

/* --- policy.c ---------------------------------------------------------- */
/* Run denywritectl with up to 4 args.  0 on exit 0; else -1 and the reason
 * (one line) in why. */
int cli(char *why, size_t whylen, const char *a1, const char *a2,
	const char *a3, const char *a4);
/* clear + add + mode, then read back mode and rules to check them. */
int apply_policy(const char *flag, const char *path, const char *mode,
		 char *why, size_t whylen);
int apply_ruleset(enum ruleset rs, enum mode m, char *why, size_t whylen);
int restore_default_policy(char *why, size_t whylen);

enum stat_key { ST_RULES, ST_PROTECTED, ST_DENIED_WRITE, ST_DENIED_TRUNCATE,
		ST_DENIED_EXEC, ST_DENIED_MMAP, ST_AUDITED, ST_COUNT };
struct stats {
	long long v[ST_COUNT];
};
int read_stats(struct stats *s, char *why, size_t whylen);
/* Expected deltas of the five counters (denied_* and audited). */
struct deltas {
	long long denied[4]; /* by enum op */
	long long audited;
};
/* NULL if after-before equals exp, else a static description. */
const char *check_deltas(const struct stats *before, const struct stats *after,
			 const struct deltas *exp);

/* Kernel log: mark the current end, then wait for a new line containing
 * "denywrite" and "op=<op>". */
struct klog {
	int fd;
};
int klog_mark(struct klog *k, char *why, size_t whylen);
int klog_wait(struct klog *k, const char *op, int timeout_ms, char *why,
	      size_t whylen);
void klog_close(struct klog *k);

/* Guard for tests that change printk rate limiting (only when the real
 * securityfs interface is present). */
void printk_ratelimit_off(void);
void printk_ratelimit_restore(void);

/* --- scenarios.c / extras.c -------------------------------------------- */
struct probe {
	int err;           /* errno of the probed operation, 0 = it succeeded */
	char other[48];    /* non-errno outcome for MATRIX (e.g. "cp-exit-2") */
	bool setup_failed; /* the probe did not happen; why says why */
	int extra_denials; /* ETXTBSY seen on retries (write_after_reaped) */
	char why[768];
};
struct scenario_env {
	enum ruleset rs;
	enum mode mode;
};
struct scenario {
	const char *name;
	enum scope scope;
	enum loc loc;
	enum op op;
	/* Why it runs only with denywrite (on the lsm kernel), or NULL: it
	 * runs on every kernel, so that the stock kernel's outcome of each
	 * other scenario is compared with classic mode (scripts/report.py). */
	const char *lsm_only;
	/* The operation also truncates (O_TRUNC): audit mode lets the open
	 * through, so the truncation is a second operation enforce would
	 * refuse, and is audited too. */
	bool also_truncates;
	/* Either run, or exe_op: "start a fresh sleeper copy at /tmp/dw/exe,
	 * return the errno of one operation on it". */
	void (*run)(const struct scenario_env *env, struct probe *p);
	int (*exe_op)(struct probe *p);
};
extern const struct scenario scenarios[];
extern const size_t n_scenarios;
void run_scenario(const struct scenario *s, const struct scenario_env *env,
		  struct probe *p);

struct extra {
	const char *name;         /* for --only */
	const char *const *checks; /* names it emits, NULL-terminated */
	void (*run)(void);
	int timeout_ms;
};
extern const struct extra extras[];
extern const size_t n_extras;

/* Set up a failed probe: printf-style reason. */
void setup_fail(struct probe *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
