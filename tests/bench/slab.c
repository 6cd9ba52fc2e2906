/*
 * slab.c - the memory figures of dwbench --slab FILES.
 *
 * Slab in /proc/meminfo before and after creating FILES empty files (1000
 * a directory) and stat'ing each, and the LSM blob caches as SLUB shows
 * them in /sys/kernel/slab: present or not, merged into another cache (the
 * name is then a symlink) or not, object and slot size.  The files stay
 * (removing 100,000 files takes seconds of a benchmark boot that ends
 * right after); dwbench --smoke removes its whole directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"

#define PER_DIR 1000

static long meminfo_kb(const char *key)
{
	char line[256];
	size_t n = strlen(key);
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (v < 0 && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':')
			v = strtol(line + n + 1, NULL, 10);
	fclose(f);
	return v;
}

static void file_name(char *buf, size_t len, const char *root, long i)
{
	snprintf(buf, len, "%s/d%03ld/f%04ld", root, i / PER_DIR, i % PER_DIR);
}

static int create_and_stat(struct ctx *c, const char *root, long n)
{
	char path[PATH_LEN + 64];
	struct stat st;
	long i;
	int fd;

	if (mkdir(root, 0755))
		return fail(c, root);
	for (i = 0; i < n; i++) {
		if (i % PER_DIR == 0) {
			snprintf(path, sizeof(path), "%s/d%03ld", root, i / PER_DIR);
			if (mkdir(path, 0755))
				return fail(c, path);
		}
		file_name(path, sizeof(path), root, i);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0)
			return fail(c, path);
		close(fd);
	}
	for (i = 0; i < n; i++) {
		file_name(path, sizeof(path), root, i);
		if (stat(path, &st))
			return fail(c, path);
	}
	return 0;
}

static long sys_number(const char *cache, const char *attr)
{
	char path[PATH_LEN];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/slab/%s/%s", cache, attr);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static void blob_cache(const char *group, const char *cache)
{
	static const char *const attrs[] = { "object_size", "slab_size" };
	char path[PATH_LEN];
	struct stat st;
	size_t i;
	long v;

	snprintf(path, sizeof(path), "/sys/kernel/slab/%s", cache);
	printf("STAT %s %s_present %d\n", group, cache, lstat(path, &st) == 0);
	if (lstat(path, &st))
		return;
	printf("STAT %s %s_merged %d\n", group, cache, S_ISLNK(st.st_mode));
	for (i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		v = sys_number(cache, attrs[i]);
		if (v >= 0)
			printf("STAT %s %s_%s %ld\n", group, cache, attrs[i], v);
	}
}

int slab_measure(struct ctx *c, const char *group, long n)
{
	char root[PATH_LEN + 8];
	long before, after;
	int rc;

	snprintf(root, sizeof(root), "%s/slab", c->dir);
	rm_tree(root);
	before = meminfo_kb("Slab");
	rc = create_and_stat(c, root, n);
	after = meminfo_kb("Slab");
	if (!rc && (before < 0 || after < 0)) {
		snprintf(c->err, sizeof(c->err), "no Slab line in /proc/meminfo");
		rc = -1;
	}
	if (!rc) {
		printf("STAT %s slab_files %ld\n", group, n);
		printf("STAT %s slab_kb_before %ld\n", group, before);
		printf("STAT %s slab_kb_after %ld\n", group, after);
		printf("STAT %s slab_growth_kb %ld\n", group, after - before);
		blob_cache(group, "lsm_inode_cache");
		blob_cache(group, "lsm_file_cache");
	}
	if (rc)
		printf("FAIL slab_growth_is_measured: %s\n", c->err);
	else
		printf("PASS slab_growth_is_measured\n");
	fflush(stdout);
	return rc;
}
