/* bench.h - the benchmark operations of dwbench and what they share. */
#ifndef DWBENCH_BENCH_H
#define DWBENCH_BENCH_H

#include <stddef.h>

#define DIR_LEN 256   /* --dir and --bin */
#define PATH_LEN 512  /* anything below them */
#define ERR_LEN 256
#define DEEP_LEVELS 12

/* Everything an operation needs; filled in once by dwbench. */
struct ctx {
	char dir[DIR_LEN];        /* work directory (a tmpfs in the guest) */
	char bin[DIR_LEN];        /* where the helper programs are */
	char file[PATH_LEN];      /* a 4 KiB file, one level below dir */
	char deep[PATH_LEN];      /* the same, DEEP_LEVELS directories down */
	char lib[PATH_LEN];       /* with --lib: what the mappings map, */
	char deep_lib[PATH_LEN];  /*   DIR/lib and DIR/d01/.../lib */
	int use_lib;
	char plugin[PATH_LEN];    /* the library dlopen'ed */
	char tree[PATH_LEN];      /* the source tree of the copy workload */
	char tree_copy[PATH_LEN]; /* its copy, removed after each run */
	double scale;             /* multiplies every iteration count */
	int fd;                   /* the open file of read and write ops */
	char buf[4096];
	char err[ERR_LEN];        /* why the last step failed */
};

/*
 * One benchmark operation, one row of the table in ops.c.  The timed loop
 * runs step() `iters * scale` times (at least once) after `warmup` untimed
 * calls, unless the row has timed(), which measures by itself (a helper
 * that times its own loop).  setup() and teardown() run once per process,
 * reset() after each timed loop, all untimed.  Every function returns 0, or
 * -1 with the reason in ctx->err.
 */
struct op {
	const char *name;  /* STAT key and table row */
	const char *label; /* what one operation is */
	long iters;        /* operations per round at scale 1 */
	int macro;         /* a whole workload: --micro-only leaves it out */
	long warmup;       /* untimed operations before the loop */
	int (*setup)(struct ctx *c);
	int (*step)(struct ctx *c);
	int (*timed)(struct ctx *c, long iters, long long *ns);
	int (*reset)(struct ctx *c);
	void (*teardown)(struct ctx *c);
};

extern const struct op bench_ops[];
extern const size_t bench_nops;

long long now_ns(void);
long scaled(const struct ctx *c, long n);
int fail(struct ctx *c, const char *what);
int run_wait(struct ctx *c, char *const argv[], int out_fd, unsigned timeout);
int rm_tree(const char *path);

/* The memory figures: slab growth over n created and stat'ed files. */
int slab_measure(struct ctx *c, const char *group, long n);

#endif
