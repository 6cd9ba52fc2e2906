/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny test harness: each test prints "PASS <name>" or
 * "FAIL <name>: <reason>", and the run ends with "N passed, M failed".
 */
#ifndef DENYWRITECTL_TEST_H
#define DENYWRITECTL_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef int (*test_fn)(char *why, size_t whylen);

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

#define CHECK_STR(got, want)						\
	CHECK(strcmp((got), (want)) == 0, "got '%s', want '%s'",	\
	      (got), (want))

/* Tables, each ending with { NULL, NULL }. */
extern const struct test cli_tests[];
extern const struct test policy_tests[];
extern const struct test json_tests[];
extern const struct test proc_tests[];
extern const struct test e2e_tests[];

/* Set by the harness: the denywritectl binary and a scratch directory. */
extern const char *test_tool;
extern const char *test_tmpdir;

/* Helpers (harness.c). */
void write_file(const char *path, const char *content);
char *read_file(const char *path);	/* malloc'd; NULL if unreadable */
/* A new empty directory under test_tmpdir, in buf. */
void make_tmpdir(char *buf, size_t size, const char *name);

#endif
