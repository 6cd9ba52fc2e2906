/* sfs.h - shared by sfstest.c, sfsfuzz.c and sfsutil.c: direct access to
 * the denywrite securityfs files, policy snapshots, check output. */
#ifndef SFS_H
#define SFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util.h"

/* Scratch tree, created at the start and removed at the end. */
#define TD "/tmp/sfstest"
/* The state every check starts from (see ensure_baseline()). */
#define BASE_MODE "enforce"
#define BASE_RULES "exec /\nlib " TD "/lib\n"

extern const char *sfs_dir; /* /sys/kernel/security/denywrite */
extern int failures;        /* FAIL lines printed so far */

/* A file's whole content, malloc'ed, NUL-terminated (it may hold NULs). */
struct text {
	char *p;
	size_t len;
};

/* What rules and mode read: the policy, compared byte for byte. */
struct policy {
	struct text rules, mode;
};

/* now_us(), sleep_us(), errname(), read_timeout(), copy_fresh(), rm_rf()
 * come from util.c, shared with dwtest. */
static inline long long now_ms(void)
{
	return now_us() / 1000;
}

/* Read a whole file: 0, or an errno. */
int text_read(const char *path, struct text *t);
void text_free(struct text *t);
bool text_is(const struct text *t, const char *s, size_t len);
/* Write len bytes with one write(2) to a fresh O_WRONLY fd: 0 or errno. */
int file_write(const char *path, const void *data, size_t len);
/* The same, for a NUL-terminated string. */
int file_puts(const char *path, const char *s);

const char *sfs_path(const char *file); /* 4 rotating static buffers */
int sfs_write(const char *file, const void *data, size_t len);
/* 0, or an errno with why set. */
int policy_read(struct policy *p, char *why, size_t whylen);
void policy_free(struct policy *p);
bool policy_same(const struct policy *a, const struct policy *b);
/* "rules changed from '...' to '...'" or NULL if a equals b. */
const char *policy_diff(const struct policy *a, const char *rules,
			size_t rules_len, const char *mode);
/* Put rules and mode back to the given text (as full root): 0 or errno. */
int policy_write(const char *rules, size_t rules_len, const char *mode,
		 char *why, size_t whylen);
/* Number of lines (rules) in the rules text. */
size_t rule_count(const struct text *rules);

/* A C-escaped, one-line, possibly truncated copy of data (for reasons). */
const char *escaped(const void *data, size_t len);

/* Output contract: one line per check, on stdout. */
bool selected(const char *name);
void set_only(const char *list);
void pass(const char *name);
void fail(const char *name, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void stat_line(const char *key, long long value);

/* sha256 of data as 64 lowercase hex digits in out[65]. */
void sha256_hex(const void *data, size_t len, char out[65]);

/* sfsfuzz.c: the bounded fuzz loop, one check. */
#define FUZZ_CHECK "fuzz_writes_give_the_models_errno_policy_and_answer"
struct fuzz_opts {
	uint64_t seed;
	long seconds;    /* stop after this long */
	long max_inputs; /* or after this many inputs (0: no limit) */
};
void fuzz_check(const struct fuzz_opts *o);

#endif
