// SPDX-License-Identifier: GPL-2.0
/* Runs every test table; usage: denywritectl-test PATH-TO-DENYWRITECTL */
#include "test.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

const char *test_tool;
const char *test_tmpdir;

void write_file(const char *path, const char *content)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(content, f) == EOF || fclose(f) != 0) {
		fprintf(stderr, "write %s: %s\n", path, strerror(errno));
		exit(2);
	}
}

void tree_file(const char *root, const char *rel, const char *content)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(path, 0755) != 0 && errno != EEXIST) {
			fprintf(stderr, "mkdir %s: %s\n", path, strerror(errno));
			exit(2);
		}
		*p = '/';
	}
	write_file(path, content);
}

void policy_file(char *file, size_t size, const char *text)
{
	make_tmpdir(file, size, "policy");
	strncat(file, "/p", size - strlen(file) - 1);
	write_file(file, text);
}

bool file_is(const char *path, const char *want, char *got, size_t size)
{
	char *s = read_file(path);
	bool same = s && strcmp(s, want) == 0;

	snprintf(got, size, "%s", s ? s : "(unreadable)");
	free(s);
	return same;
}

char *read_file(const char *path)
{
	int fd = open(path, O_RDONLY);
	char *buf = NULL;
	size_t len;

	if (fd < 0)
		return NULL;
	if (read_all(fd, 1u << 24, &buf, &len) != 0)
		buf = NULL;
	close(fd);
	return buf;
}

void make_tmpdir(char *buf, size_t size, const char *name)
{
	static unsigned int counter;

	snprintf(buf, size, "%s/%s.%u", test_tmpdir, name, ++counter);
	if (mkdir(buf, 0755) != 0) {
		fprintf(stderr, "mkdir %s: %s\n", buf, strerror(errno));
		exit(2);
	}
}

static int remove_entry(const char *path, const struct stat *st, int flag,
			struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void stat_line(const char *key, double value)
{
	printf("STAT host %s %.1f\n", key, value);
}

double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

double time_limit(double limit_ms)
{
	return getenv("DENYWRITECTL_TEST_VALGRIND") ? 30 * limit_ms : limit_ms;
}

static const struct test *const tables[] = {
	cli_tests, policy_tests, json_tests, util_tests, proc_tests,
	e2e_tests, load_tests, why_tests, log_tests, golden_tests,
	roundtrip_tests, mask_tests,
};

#define N_TABLES (sizeof(tables) / sizeof(tables[0]))

static unsigned int count_tests(void)
{
	unsigned int n = 0;

	for (size_t i = 0; i < N_TABLES; i++)
		for (const struct test *t = tables[i]; t->name; t++)
			n++;
	return n;
}

/* One line for the test's reason: no newline may split it. */
static void one_line(char *s)
{
	for (; *s; s++)
		if (*s == '\n' || *s == '\r')
			*s = ' ';
}

static void run_table(const struct test *t, unsigned int count[3])
{
	static const char *const verdict[] = { "PASS", "FAIL", "SKIP" };

	for (; t->name; t++) {
		char why[4096] = "";
		int rc;

		fflush(stdout);
		rc = t->fn(why, sizeof(why));
		if (rc != TEST_PASS && rc != TEST_SKIP)
			rc = TEST_FAIL;
		one_line(why);
		if (rc == TEST_PASS)
			printf("PASS %s\n", t->name);
		else
			printf("%s %s: %s\n", verdict[rc], t->name,
			       *why ? why : "no reason given");
		count[rc]++;
	}
}

int main(int argc, char **argv)
{
	char tmpl[] = "/tmp/denywritectl-test.XXXXXX";
	unsigned int count[3] = { 0 };

	if (argc != 2) {
		fprintf(stderr, "usage: %s PATH-TO-DENYWRITECTL\n", argv[0]);
		return 2;
	}
	test_tool = realpath(argv[1], NULL);
	test_tmpdir = mkdtemp(tmpl);
	if (!test_tool || !test_tmpdir || chmod(test_tmpdir, 0755) != 0) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	printf("PLAN host %u\n", count_tests());
	for (size_t i = 0; i < N_TABLES; i++)
		run_table(tables[i], count);
	printf("%u passed, %u failed, %u skipped\n", count[TEST_PASS],
	       count[TEST_FAIL], count[TEST_SKIP]);
	nftw(test_tmpdir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	free((char *)test_tool);
	return count[TEST_FAIL] ? 1 : 0;
}
