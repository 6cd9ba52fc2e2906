// SPDX-License-Identifier: GPL-2.0
/* Runs every test table; usage: denywritectl-test PATH-TO-DENYWRITECTL */
#include "test.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

static void run_table(const struct test *t, unsigned int *passed,
		      unsigned int *failed)
{
	for (; t->name; t++) {
		char why[1024] = "";

		fflush(stdout);
		if (t->fn(why, sizeof(why)) == 0) {
			printf("PASS %s\n", t->name);
			++*passed;
		} else {
			printf("FAIL %s: %s\n", t->name, why);
			++*failed;
		}
	}
}

int main(int argc, char **argv)
{
	static const struct test *const tables[] = {
		cli_tests, policy_tests, json_tests, proc_tests, e2e_tests,
	};
	char tmpl[] = "/tmp/denywritectl-test.XXXXXX";
	unsigned int passed = 0, failed = 0;

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
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		run_table(tables[i], &passed, &failed);
	printf("%u passed, %u failed\n", passed, failed);
	nftw(test_tmpdir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	free((char *)test_tool);
	return failed ? 1 : 0;
}
