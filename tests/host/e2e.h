/* SPDX-License-Identifier: GPL-2.0 */
/*
 * End-to-end runs of the denywritectl binary against a fake securityfs
 * tree (plain files) named by DENYWRITE_SECURITYFS.  Reads see what the
 * test wrote; for writes the test checks what the tool wrote.
 */
#ifndef DENYWRITECTL_E2E_H
#define DENYWRITECTL_E2E_H

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "test.h"

#define FAKE_STATS "rules 2\nprotected 5\ndenied_write 3\ndenied_truncate 1\n" \
	"denied_exec 0\ndenied_mmap 4\naudited 7\n"
#define CAP_MSG "changing the policy needs CAP_MAC_ADMIN"
#define HINT "Try 'denywritectl --help'.\n"
/* What add and del say on stderr unless -q. */
#define NOTE(cmd) "denywritectl: note: " cmd ": a runtime change, lost at " \
	"the next load or reload unless it is written to a file in " \
	"/etc/denywrite/rules.d/ (--persist does)\n"

struct fake {
	char root[PATH_MAX];
	char dir[PATH_MAX + 16];
};

struct opts {
	const struct fake *sfs;	/* NULL: leave DENYWRITE_SECURITYFS unset */
	const char *input;	/* stdin; NULL: /dev/null */
	const char *stdout_path;	/* NULL: captured */
	int uid;		/* run as this uid/gid; -1: as we are */
	const char *env;	/* "NAME=value" to set, or NULL */
	unsigned int timeout;	/* seconds before SIGALRM kills it; 0: none */
};

struct run {
	int status;		/* exit code, or 128 + signal */
	char *out;
	char *err;
	double ms;		/* how long it ran */
};

void fake_file(const struct fake *f, const char *name, const char *s);
/* The contents of a file of the fake tree, malloc'd ("" if missing). */
char *fake_read(const struct fake *f, const char *name);
/* A fake securityfs with lsm listing `lsm` (NULL: no lsm file). */
void fake_init(struct fake *f, const char *lsm, const char *rules);
/* Active, mode enforce, rules "exec /" and "lib,ignore-writers /usr/lib". */
void fake_default(struct fake *f);

/* Run "denywritectl [FIRST] ARGS..."; ARGS are NULL-terminated. */
void run_tool_cmd(struct run *r, const struct opts *o, const char *first,
		  va_list ap);
/* Run "denywritectl ARGS..." (NULL-terminated); free with run_free. */
void run_tool(struct run *r, const struct opts *o, ...);
void run_free(struct run *r);

/* Whether this process has CAP_MAC_ADMIN (33) in its effective set. */
bool privileged(void);

/* Run ARGS... (NULL-terminated), compare exit code, stdout and stderr. */
int expect(char *why, size_t whylen, const struct opts *o, int code,
	   const char *out, const char *err, ...);

/* EXPECT(opts, code, stdout, stderr, ARGS...): the usual shape of a test. */
#define EXPECT(...)							\
	do {								\
		if (expect(why, whylen, __VA_ARGS__, (char *)NULL))	\
			return TEST_FAIL;				\
	} while (0)

/* Compare a file of the fake tree with what it should hold. */
#define CHECK_FAKE(f, name, want)					\
	do {								\
		char *got_ = fake_read((f), (name));			\
		int same_ = strcmp(got_, (want)) == 0;			\
									\
		snprintf(why, whylen, "%s holds '%s', want '%s'", (name), \
			 got_, (want));					\
		free(got_);						\
		if (!same_)						\
			return TEST_FAIL;				\
	} while (0)

/*
 * For a command that changes the policy: without CAP_MAC_ADMIN it must say
 * so, and the rest of the test, which needs it, is skipped.
 */
#define NEEDS_CAP(o, cmd, ...)						\
	do {								\
		if (!privileged()) {					\
			EXPECT((o), 1, "", "denywritectl: " cmd ": " CAP_MSG "\n", \
			       cmd, __VA_ARGS__);			\
			SKIP("needs CAP_MAC_ADMIN (refusal checked)");	\
		}							\
	} while (0)

/*
 * Run a change "CMD ARGS..." (NULL-terminated) that must fail with
 * err_want (or the CAP_MAC_ADMIN message when we lack it) and leave the
 * fake tree's `file` empty.
 */
int refused(char *why, size_t whylen, const struct fake *f, const char *file,
	    const char *err_want, const char *cmd, ...);

/* A directory under the scratch dir, canonical, with a file "bin" in it. */
void make_target(char *dir, size_t size);

/* Copy /bin/sleep to path and start it as "ARGV0 60"; its pid. */
pid_t start_sleeper_at(const char *path, const char *argv0);
/* Copy /bin/sleep to dir/sleeper and start it ("sleeper 60"). */
pid_t start_sleeper(const char *dir, char *path, size_t size);
/* A child that holds path open for writing (fd 3) until stopped. */
pid_t start_writer(const char *path);
void stop(pid_t pid);

/*
 * name in a directory of test data: $env if set (the Makefile sets it),
 * else dir relative to the tool's directory; in buf.
 */
const char *data_path(char *buf, size_t size, const char *env,
		      const char *dir, const char *name);

/* name in policy-tool/dist ($DENYWRITECTL_TEST_DIST), in buf. */
const char *dist_path(char *buf, size_t size, const char *name);

/* Check a successful run whose stdout starts with want (all of it if
 * whole), and free it. */
int check_success(char *why, size_t whylen, struct run *r, const char *want,
		  bool whole);

#endif
