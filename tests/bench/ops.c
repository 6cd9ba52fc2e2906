/* ops.c - the operations dwbench times, one table row each. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"

#define EXEC_TIMEOUT 30     /* seconds: one exec of a helper */
#define MACRO_TIMEOUT 900   /* seconds: one run of a macro workload */
#define CONFIGURE_TESTS 250 /* "feature tests" of the configure workload */
#define TREE_DIRS 20
#define TREE_FILES 2000     /* files in the tree of the copy workload */
#define TREE_FILE_SIZE 512

static int open_close(struct ctx *c, const char *path, int flags)
{
	int fd = open(path, flags);

	if (fd < 0)
		return fail(c, path);
	close(fd);
	return 0;
}

static int op_open_wronly(struct ctx *c)
{
	return open_close(c, c->file, O_WRONLY);
}

static int op_open_rdonly(struct ctx *c)
{
	return open_close(c, c->file, O_RDONLY);
}

/* A fresh open file each time, as ld.so maps a library: a file that
 * already holds protection is not looked up again. */
static int mmap_exec(struct ctx *c, const char *path)
{
	int fd = open(path, O_RDONLY);
	void *p;

	if (fd < 0)
		return fail(c, path);
	p = mmap(NULL, sizeof(c->buf), PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return fail(c, "mmap(PROT_EXEC)");
	munmap(p, sizeof(c->buf));
	return 0;
}

static int op_mmap_exec(struct ctx *c)
{
	return mmap_exec(c, c->use_lib ? c->lib : c->file);
}

static int op_mmap_exec_deep(struct ctx *c)
{
	return mmap_exec(c, c->use_lib ? c->deep_lib : c->deep);
}

static int exec_helper(struct ctx *c, const char *name)
{
	char path[PATH_LEN];
	char *argv[] = { path, NULL };

	snprintf(path, sizeof(path), "%s/%s", c->bin, name);
	return run_wait(c, argv, -1, EXEC_TIMEOUT);
}

static int op_exec_static(struct ctx *c)
{
	return exec_helper(c, "dwb-true");
}

static int op_exec_dynamic(struct ctx *c)
{
	return exec_helper(c, "dwb-true-dyn");
}

/* dlopen needs ld.so: dwb-dlopen, a dynamic helper, times its own loop and
 * prints the nanoseconds on stdout. */
static int op_dlopen_timed(struct ctx *c, long iters, long long *ns)
{
	char path[PATH_LEN], n[32], w[32], out[64] = "";
	char *argv[] = { path, c->plugin, n, w, NULL };
	int p[2], rc;
	ssize_t len;

	snprintf(path, sizeof(path), "%s/dwb-dlopen", c->bin);
	snprintf(n, sizeof(n), "%ld", iters);
	snprintf(w, sizeof(w), "%ld", iters / 10 + 1);
	if (pipe(p))
		return fail(c, "pipe");
	rc = run_wait(c, argv, p[1], MACRO_TIMEOUT);
	close(p[1]);
	len = read(p[0], out, sizeof(out) - 1);
	close(p[0]);
	if (rc)
		return rc;
	if (len <= 0 || sscanf(out, "%lld", ns) != 1 || *ns <= 0) {
		snprintf(c->err, sizeof(c->err), "dwb-dlopen printed no time");
		return -1;
	}
	return 0;
}

static int op_read_write_setup(struct ctx *c)
{
	c->fd = open(c->file, O_RDWR);
	return c->fd < 0 ? fail(c, c->file) : 0;
}

static void op_read_write_teardown(struct ctx *c)
{
	close(c->fd);
	c->fd = -1;
}

static int op_read_4k(struct ctx *c)
{
	ssize_t n = pread(c->fd, c->buf, sizeof(c->buf), 0);

	return n == (ssize_t)sizeof(c->buf) ? 0 : fail(c, "pread 4096");
}

static int op_write_4k(struct ctx *c)
{
	ssize_t n = pwrite(c->fd, c->buf, sizeof(c->buf), 0);

	return n == (ssize_t)sizeof(c->buf) ? 0 : fail(c, "pwrite 4096");
}

/* configure.sh N BIN DIR: N feature tests, four commands each. */
static int op_configure(struct ctx *c)
{
	char script[PATH_LEN], dir[PATH_LEN], n[32];
	char *argv[] = { "/bin/sh", script, n, c->bin, dir, NULL };

	snprintf(script, sizeof(script), "%s/configure.sh", c->bin);
	snprintf(dir, sizeof(dir), "%s/conf", c->dir);
	snprintf(n, sizeof(n), "%ld", scaled(c, CONFIGURE_TESTS));
	if (mkdir(dir, 0755) && errno != EEXIST)
		return fail(c, dir);
	return run_wait(c, argv, -1, MACRO_TIMEOUT);
}

static int write_small(struct ctx *c, const char *path, const char *data,
		       size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		return fail(c, path);
	if (write(fd, data, len) != (ssize_t)len) {
		close(fd);
		return fail(c, path);
	}
	return close(fd) ? fail(c, path) : 0;
}

static int tree_is_built(const char *stamp, long files)
{
	char want[32], have[32] = "";
	FILE *f = fopen(stamp, "r");

	if (!f)
		return 0;
	if (!fgets(have, sizeof(have), f))
		have[0] = 0;
	fclose(f);
	snprintf(want, sizeof(want), "%ld\n", files);
	return strcmp(want, have) == 0;
}

/* The tree is built once per boot: its stamp names its file count. */
static int op_copy_setup(struct ctx *c)
{
	long files = scaled(c, TREE_FILES), per = files / TREE_DIRS + 1, i;
	char stamp[PATH_LEN + 16], path[PATH_LEN + 64], data[TREE_FILE_SIZE];

	snprintf(stamp, sizeof(stamp), "%s.files", c->tree);
	if (tree_is_built(stamp, files))
		return 0;
	rm_tree(c->tree);
	memset(data, 'x', sizeof(data));
	if (mkdir(c->tree, 0755))
		return fail(c, c->tree);
	for (i = 0; i < files; i++) {
		snprintf(path, sizeof(path), "%s/d%02ld", c->tree, i / per);
		if (i % per == 0 && mkdir(path, 0755))
			return fail(c, path);
		snprintf(path, sizeof(path), "%s/d%02ld/f%04ld", c->tree,
			 i / per, i % per);
		if (write_small(c, path, data, sizeof(data)))
			return -1;
	}
	snprintf(data, sizeof(data), "%ld\n", files);
	return write_small(c, stamp, data, strlen(data));
}

static int op_copy(struct ctx *c)
{
	char *argv[] = { "/bin/cp", "-a", c->tree, c->tree_copy, NULL };

	return run_wait(c, argv, -1, MACRO_TIMEOUT);
}

static int op_copy_reset(struct ctx *c)
{
	return rm_tree(c->tree_copy) ? fail(c, c->tree_copy) : 0;
}

const struct op bench_ops[] = {
	{ .name = "open_wronly", .label = "open(O_WRONLY)+close",
	  .iters = 5000, .warmup = 100, .step = op_open_wronly },
	{ .name = "open_rdonly", .label = "open(O_RDONLY)+close",
	  .iters = 5000, .warmup = 100, .step = op_open_rdonly },
	{ .name = "mmap_exec", .label = "open+mmap(PROT_EXEC)+munmap+close",
	  .iters = 3000, .warmup = 50, .step = op_mmap_exec },
	{ .name = "mmap_exec_deep",
	  .label = "the same, 12 directories deep",
	  .iters = 3000, .warmup = 50, .step = op_mmap_exec_deep },
	{ .name = "exec_static", .label = "fork+exec+wait, static",
	  .iters = 100, .warmup = 3, .step = op_exec_static },
	{ .name = "exec_dynamic", .label = "fork+exec+wait, dynamic",
	  .iters = 60, .warmup = 3, .step = op_exec_dynamic },
	{ .name = "dlopen", .label = "dlopen+dlclose",
	  .iters = 500, .timed = op_dlopen_timed },
	{ .name = "read_4k", .label = "pread 4 KiB, open file",
	  .iters = 5000, .warmup = 100, .setup = op_read_write_setup,
	  .step = op_read_4k, .teardown = op_read_write_teardown },
	{ .name = "write_4k", .label = "pwrite 4 KiB, open file",
	  .iters = 5000, .warmup = 100, .setup = op_read_write_setup,
	  .step = op_write_4k, .teardown = op_read_write_teardown },
	{ .name = "configure", .label = "configure-like script, 1000 execs",
	  .iters = 1, .macro = 1, .step = op_configure },
	{ .name = "copy_tree", .label = "cp -a of 2000 files of 512 B",
	  .iters = 1, .macro = 1, .setup = op_copy_setup, .step = op_copy,
	  .reset = op_copy_reset },
};

const size_t bench_nops = sizeof(bench_ops) / sizeof(bench_ops[0]);
