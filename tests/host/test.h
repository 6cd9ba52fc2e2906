/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny test harness.  It first prints "PLAN host N", N being the number
 * of tests in its tables; then each test prints one line, "PASS <name>",
 * "FAIL <name>: <reason>" or "SKIP <name>: <reason>" (a test that cannot
 * run here, e.g. without CAP_MAC_ADMIN); figures are "STAT host <key>
 * <value>" lines.  The run ends with "N passed, N failed, N skipped".
 */
#ifndef DENYWRITECTL_TEST_H
#define DENYWRITECTL_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Returns TEST_PASS, TEST_FAIL or TEST_SKIP, with the reason in why. */
typedef int (*test_fn)(char *why, size_t whylen);

enum { TEST_PASS, TEST_FAIL, TEST_SKIP };

struct test {
	const char *name;
	test_fn fn;
};

#define TEST(name) static int name(char *why, size_t whylen)
#define T(name) { #name, name }

/* Fail the running test with a reason unless cond holds. */
#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			snprintf(why, whylen, __VA_ARGS__);		\
			return 1;					\
		}							\
	} while (0)

/* End the running test as skipped, with a reason. */
#define SKIP(...)							\
	do {								\
		snprintf(why, whylen, __VA_ARGS__);			\
		return TEST_SKIP;					\
	} while (0)

#define CHECK_STR(got, want)						\
	CHECK(strcmp((got), (want)) == 0, "got '%s', want '%s'",	\
	      (got), (want))

/* Tables, each ending with { NULL, NULL }. */
extern const struct test cli_tests[];
extern const struct test policy_tests[];
extern const struct test json_tests[];
extern const struct test proc_tests[];
extern const struct test e2e_tests[];
extern const struct test load_tests[];
extern const struct test why_tests[];
extern const struct test util_tests[];
extern const struct test log_tests[];
extern const struct test golden_tests[];
extern const struct test roundtrip_tests[];
extern const struct test mask_tests[];

/* Set by the harness: the denywritectl binary and a scratch directory. */
extern const char *test_tool;
extern const char *test_tmpdir;

/* Helpers (harness.c). */
void write_file(const char *path, const char *content);
/* root/rel holding content, its directories made. */
void tree_file(const char *root, const char *rel, const char *content);
/* The rules.d directory under /etc, /run or /usr/lib. */
#define RULES_D "denywrite/rules.d"
/* A policy file under a new scratch dir holding text; its path in file. */
void policy_file(char *file, size_t size, const char *text);
char *read_file(const char *path);	/* malloc'd; NULL if unreadable */
/* Whether the file at path holds want; what it holds in got. */
bool file_is(const char *path, const char *want, char *got, size_t size);
/* A new empty directory under test_tmpdir, in buf. */
void make_tmpdir(char *buf, size_t size, const char *name);
/* Print "STAT host key value". */
void stat_line(const char *key, double value);
/* Milliseconds on the monotonic clock. */
double now_ms(void);
/*
 * The time a timed test may take: limit_ms, or 30 times that under
 * valgrind (make memcheck sets DENYWRITECTL_TEST_VALGRIND), which checks
 * leaks, not speed.
 */
double time_limit(double limit_ms);

#endif
