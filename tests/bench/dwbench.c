/*
 * dwbench - time the operations denywrite's hooks sit on.
 *
 *   dwbench [--group NAME] [--rounds N] [--scale X] [--only OP,...|none]
 *           [--micro-only] [--dir DIR] [--bin DIR] [--plugin PATH] [--lib]
 *           [--slab FILES] [--list]
 *   dwbench --smoke
 *
 * For each operation of the table in ops.c (or those named by --only; not
 * the two macro workloads with --micro-only), and each round, it prints `STAT GROUP OP ns-per-op` (`OP/rK` with several
 * rounds), then one check line, `PASS OP_runs_and_is_timed` or `FAIL ...`.
 * --lib: the two mappings map DIR/lib and DIR/d01/.../d12/lib, files of
 * their own, made only if missing (make bench-distro's background
 * processes map them while the operations run, and the open and write
 * operations use DIR/file, which a mapping would protect).
 * --slab FILES adds one check: the slab growth over FILES created and
 * stat'ed files, and the LSM blob caches (slab.c).  `PLAN GROUP N` comes
 * first, N counted from the table.  It asserts no time: a check fails only
 * when an operation fails.  Exit 0 iff nothing failed, 2 on a usage error.
 *
 * --smoke is the run of `make test`, so that the programs cannot rot: group
 * bench-smoke, one round, few iterations (--scale 0.002), --slab 1000, in
 * /tmp/dwbench-smoke, removed at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#define DEFAULT_DIR "/tmp/dwbench"
#define SMOKE_DIR "/tmp/dwbench-smoke"
#define SMOKE_SCALE 0.002
#define SMOKE_SLAB 1000
#define DEFAULT_PLUGIN "/usr/lib/dwbench/libdwbplugin.so"

long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

long scaled(const struct ctx *c, long n)
{
	long v = (long)(n * c->scale);

	return v < 1 ? 1 : v;
}

int fail(struct ctx *c, const char *what)
{
	snprintf(c->err, sizeof(c->err), "%s: %s", what, strerror(errno));
	return -1;
}

/* Run argv[0] with stdout on out_fd (unless -1) and wait for it.  The
 * alarm survives execve: a helper still running after `timeout` seconds
 * dies of SIGALRM, and that is a failure like any other. */
int run_wait(struct ctx *c, char *const argv[], int out_fd, unsigned timeout)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return fail(c, "fork");
	if (pid == 0) {
		if (out_fd >= 0 && dup2(out_fd, STDOUT_FILENO) < 0)
			_exit(126);
		alarm(timeout);
		execv(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return fail(c, "waitpid");
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFSIGNALED(status))
		snprintf(c->err, sizeof(c->err), "%s killed by signal %d%s",
			 argv[0], WTERMSIG(status),
			 WTERMSIG(status) == SIGALRM ? " (timed out)" : "");
	else
		snprintf(c->err, sizeof(c->err), "%s exited with %d%s", argv[0],
			 WEXITSTATUS(status),
			 WEXITSTATUS(status) == 127 ? " (did not start)" : "");
	return -1;
}

static int rm_one(const char *path, const struct stat *st, int type,
		  struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

int rm_tree(const char *path)
{
	if (access(path, F_OK) && errno == ENOENT)
		return 0;
	return nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static int make_dir(struct ctx *c, const char *path)
{
	return mkdir(path, 0755) && errno != EEXIST ? fail(c, path) : 0;
}

static int make_file(struct ctx *c, const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);

	if (fd < 0)
		return fail(c, path);
	memset(c->buf, 'b', sizeof(c->buf));
	if (write(fd, c->buf, sizeof(c->buf)) != (ssize_t)sizeof(c->buf)) {
		close(fd);
		return fail(c, path);
	}
	return close(fd) ? fail(c, path) : 0;
}

/* PATH as make_file makes it, unless it exists. */
static int keep_or_make_file(struct ctx *c, const char *path)
{
	struct stat st;

	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size == (off_t)sizeof(c->buf))
		return 0;
	return make_file(c, path);
}

/* DIR/file, and DIR/d01/.../d12/file for the deep mapping; with --lib,
 * DIR/lib and DIR/d01/.../d12/lib too. */
static int make_work_files(struct ctx *c)
{
	char path[PATH_LEN];
	size_t len;
	int i;

	if (make_dir(c, c->dir))
		return -1;
	snprintf(c->file, sizeof(c->file), "%s/file", c->dir);
	snprintf(c->tree, sizeof(c->tree), "%s/tree", c->dir);
	snprintf(c->tree_copy, sizeof(c->tree_copy), "%s/tree-copy", c->dir);
	snprintf(path, sizeof(path), "%s", c->dir);
	for (i = 1; i <= DEEP_LEVELS; i++) {
		len = strlen(path);
		snprintf(path + len, sizeof(path) - len, "/d%02d", i);
		if (make_dir(c, path))
			return -1;
	}
	snprintf(c->deep, sizeof(c->deep), "%s/file", path);
	snprintf(c->lib, sizeof(c->lib), "%s/lib", c->dir);
	snprintf(c->deep_lib, sizeof(c->deep_lib), "%s/lib", path);
	if (c->use_lib && (keep_or_make_file(c, c->lib) ||
			   keep_or_make_file(c, c->deep_lib)))
		return -1;
	return make_file(c, c->file) || make_file(c, c->deep) ? -1 : 0;
}

static int measure(const struct op *op, struct ctx *c, long iters,
		   long long *ns)
{
	long long t0;
	long i;

	if (op->timed)
		return op->timed(c, iters, ns);
	for (i = 0; i < op->warmup; i++)
		if (op->step(c))
			return -1;
	t0 = now_ns();
	for (i = 0; i < iters; i++)
		if (op->step(c))
			return -1;
	*ns = now_ns() - t0;
	return op->reset ? op->reset(c) : 0;
}

/* All rounds of one operation, then its check line. */
static int run_op(const struct op *op, struct ctx *c, const char *group,
		  int rounds)
{
	long iters = scaled(c, op->iters);
	long long ns = 0;
	int r, rc;

	c->err[0] = 0;
	rc = op->setup ? op->setup(c) : 0;
	printf("STAT %s %s/iters %ld\n", group, op->name, iters);
	for (r = 1; !rc && r <= rounds; r++) {
		rc = measure(op, c, iters, &ns);
		if (rc)
			break;
		if (rounds == 1)
			printf("STAT %s %s %.1f\n", group, op->name,
			       (double)ns / iters);
		else
			printf("STAT %s %s/r%d %.1f\n", group, op->name, r,
			       (double)ns / iters);
		fflush(stdout);
	}
	if (op->teardown)
		op->teardown(c);
	if (rc)
		printf("FAIL %s_runs_and_is_timed: %s\n", op->name, c->err);
	else
		printf("PASS %s_runs_and_is_timed\n", op->name);
	fflush(stdout);
	return rc;
}

static int selected(const char *only, const char *name)
{
	size_t n = strlen(name);
	const char *p = only;

	if (!only)
		return 1;
	while ((p = strstr(p, name))) {
		if ((p == only || p[-1] == ',') && (p[n] == ',' || p[n] == 0))
			return 1;
		p += n;
	}
	return 0;
}

/* Every name in a --only list is an operation, or the list is "none". */
static int only_is_valid(const char *only)
{
	char list[512], *name, *save = NULL;
	size_t i;

	if (!only || !strcmp(only, "none"))
		return 1;
	snprintf(list, sizeof(list), "%s", only);
	for (name = strtok_r(list, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < bench_nops; i++)
			if (!strcmp(name, bench_ops[i].name))
				break;
		if (i == bench_nops) {
			fprintf(stderr, "dwbench: no operation %s (--list)\n", name);
			return 0;
		}
	}
	return 1;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: dwbench [--group NAME] [--rounds N] [--scale X]\n"
		   "               [--only OP,...|none] [--micro-only] [--dir DIR]\n"
		   "               [--bin DIR] [--plugin PATH] [--lib] [--slab FILES]\n"
		   "               [--list]\n"
		   "       dwbench --smoke\n");
}

struct opts {
	const char *group, *only;
	int rounds, list, cleanup, micro_only;
	long slab;
};

static int wanted(const struct opts *o, const struct op *op)
{
	return selected(o->only, op->name) && !(o->micro_only && op->macro);
}

static void smoke(struct opts *o, struct ctx *c)
{
	o->group = "bench-smoke";
	o->rounds = 1;
	o->slab = SMOKE_SLAB;
	o->cleanup = 1;
	c->scale = SMOKE_SCALE;
	snprintf(c->dir, sizeof(c->dir), "%s", SMOKE_DIR);
}

static int parse(int argc, char **argv, struct opts *o, struct ctx *c)
{
	static const struct option longs[] = {
		{ "group", required_argument, NULL, 'g' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "scale", required_argument, NULL, 's' },
		{ "only", required_argument, NULL, 'o' },
		{ "dir", required_argument, NULL, 'd' },
		{ "bin", required_argument, NULL, 'b' },
		{ "plugin", required_argument, NULL, 'p' },
		{ "slab", required_argument, NULL, 'm' },
		{ "micro-only", no_argument, NULL, 'M' },
		{ "lib", no_argument, NULL, 'L' },
		{ "list", no_argument, NULL, 'l' },
		{ "smoke", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int ch;

	while ((ch = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
		end = NULL;
		switch (ch) {
		case 'g': o->group = optarg; break;
		case 'r': o->rounds = strtol(optarg, &end, 10); break;
		case 's': c->scale = strtod(optarg, &end); break;
		case 'o': o->only = optarg; break;
		case 'd': snprintf(c->dir, sizeof(c->dir), "%s", optarg); break;
		case 'b': snprintf(c->bin, sizeof(c->bin), "%s", optarg); break;
		case 'p': snprintf(c->plugin, sizeof(c->plugin), "%s", optarg); break;
		case 'm': o->slab = strtol(optarg, &end, 10); break;
		case 'M': o->micro_only = 1; break;
		case 'L': c->use_lib = 1; break;
		case 'l': o->list = 1; break;
		case 'S': smoke(o, c); break;
		case 'h': usage(stdout); exit(0);
		default: return -1;
		}
		if (end && (*end || end == optarg)) {
			fprintf(stderr, "dwbench: not a number: %s\n", optarg);
			return -1;
		}
	}
	if (optind < argc || o->rounds < 1 || c->scale <= 0 || o->slab < 0) {
		fprintf(stderr, "dwbench: bad arguments\n");
		return -1;
	}
	if (!only_is_valid(o->only))
		return -1;
	return 0;
}

static void default_bin(struct ctx *c)
{
	char exe[PATH_LEN];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	exe[n > 0 ? n : 0] = 0;
	snprintf(c->bin, sizeof(c->bin), "%s", n > 0 ? dirname(exe) : ".");
}

int main(int argc, char **argv)
{
	static struct ctx c = { .dir = DEFAULT_DIR, .plugin = DEFAULT_PLUGIN,
				.scale = 1.0, .fd = -1 };
	struct opts o = { .group = "bench", .rounds = 5 };
	size_t i, plan = 0;
	int failed = 0;

	default_bin(&c);
	if (parse(argc, argv, &o, &c)) {
		usage(stderr);
		return 2;
	}
	if (o.list) {
		for (i = 0; i < bench_nops; i++)
			printf("%s\t%s\t%s\n", bench_ops[i].name,
			       bench_ops[i].macro ? "macro" : "micro",
			       bench_ops[i].label);
		return 0;
	}
	for (i = 0; i < bench_nops; i++)
		plan += wanted(&o, &bench_ops[i]);
	printf("PLAN %s %zu\n", o.group, plan + (o.slab > 0));
	fflush(stdout);
	if (make_work_files(&c)) {
		fprintf(stderr, "dwbench: %s\n", c.err);
		for (i = 0; i < bench_nops; i++)
			if (wanted(&o, &bench_ops[i]))
				printf("FAIL %s_runs_and_is_timed: setup: %s\n",
				       bench_ops[i].name, c.err);
		if (o.slab > 0)
			printf("FAIL slab_growth_is_measured: setup: %s\n", c.err);
		return 1;
	}
	for (i = 0; i < bench_nops; i++)
		if (wanted(&o, &bench_ops[i]))
			failed |= run_op(&bench_ops[i], &c, o.group, o.rounds);
	if (o.slab > 0)
		failed |= slab_measure(&c, o.group, o.slab);
	if (o.cleanup && rm_tree(c.dir)) {
		fprintf(stderr, "dwbench: cannot remove %s\n", c.dir);
		failed = 1;
	}
	return failed ? 1 : 0;
}
