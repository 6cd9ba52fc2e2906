/* parity.c - the boot default against the stock kernel, under concurrency.
 *
 * Runs the same workloads on the stock kernel (suite stock) and on the
 * patched kernel booted with lsm=...,denywrite and nothing else (suite lsm:
 * mode enforce, the rule "exec /").  Each workload races writers, execs
 * and mappings of one file for a few seconds, counts every outcome, and
 * passes iff the outcomes are the ones the stock kernel gives: the
 * expectation of each check is written here, and the stock boot of every
 * make test runs the very same checks, so an expectation stock does not
 * meet fails there.  The counts are STAT lines ("STAT parity
 * <check>.<outcome> N").
 *
 * Usage: parity [--seconds S]   (default 3 per loop workload)
 * The program also serves as its own test program: "--exit" exits 0,
 * "--sleep" sleeps until killed, and so does a copy named "interp" (the
 * binfmt_misc interpreter).
 *
 * Output: "PLAN parity N" ($DWTEST_GROUP, set by dwrun, names the group),
 * one PASS/FAIL line a check, STAT lines.  Exit 0 iff every check passed.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

#define DIR "/tmp/parity"
#define PROG DIR "/prog"
#define OVL DIR "/ovl"
#define BINFMT "/proc/sys/fs/binfmt_misc"
#define BINFMT_NAME "dwparity"
/* A child whose execve failed exits with this plus errno. */
#define EXEC_FAILED 64

static const char *group = "parity";
static long seconds = 3;
static int failed;

/* The outcomes a workload counts. */
enum outcome {
	EXEC_OK,	/* the program ran and exited 0 */
	EXEC_TXTBSY,	/* execve failed with ETXTBSY */
	EXEC_OTHER,	/* any other end of the child */
	OPEN_OK,	/* an open for writing (or a mapping) succeeded */
	OPEN_TXTBSY,	/* it failed with ETXTBSY */
	OPEN_OTHER,	/* it failed otherwise */
	N_OUTCOMES
};

static const char *const outcome_names[N_OUTCOMES] = {
	"exec_ok", "exec_etxtbsy", "exec_other", "open_ok", "open_etxtbsy",
	"open_other",
};

/* Counts shared with the forked loops: one set, mapped once. */
struct tally {
	long n[N_OUTCOMES];
};

static struct tally *shared;

/* The counts, zeroed for the next workload. */
static struct tally *fresh_tally(void)
{
	memset(shared, 0, sizeof(*shared));
	return shared;
}

static void count(struct tally *t, enum outcome o)
{
	__atomic_fetch_add(&t->n[o], 1, __ATOMIC_RELAXED);
}

static void stats(const char *check, const struct tally *t)
{
	for (int i = 0; i < N_OUTCOMES; i++)
		printf("STAT %s %s.%s %ld\n", group, check, outcome_names[i],
		       t->n[i]);
}

static void result(const char *check, const char *why)
{
	if (why) {
		printf("FAIL %s: %s\n", check, why);
		failed++;
	} else {
		printf("PASS %s\n", check);
	}
	fflush(stdout);
}

/*
 * The verdict of a loop workload: each outcome either must occur (want
 * > 0), must not occur (want 0), or does not matter (want -1).
 */
static void judge(const char *check, const struct tally *t,
		  const int want[N_OUTCOMES])
{
	char why[512] = "";
	size_t len = 0;

	stats(check, t);
	for (int i = 0; i < N_OUTCOMES; i++) {
		if (want[i] < 0 || (want[i] > 0) == (t->n[i] > 0))
			continue;
		len += snprintf(why + len, sizeof(why) - len, "%s%s %ld (stock: %s)",
				len ? ", " : "", outcome_names[i], t->n[i],
				want[i] ? "some" : "none");
		if (len >= sizeof(why))
			break;
	}
	result(check, why[0] ? why : NULL);
}

/* The outcome of a child that runs this program with "--exit". */
static enum outcome exec_outcome(pid_t pid)
{
	int st;

	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return EXEC_OTHER;
	if (WEXITSTATUS(st) == 0)
		return EXEC_OK;
	return WEXITSTATUS(st) == EXEC_FAILED + ETXTBSY ? EXEC_TXTBSY : EXEC_OTHER;
}

/* fork + execve(path --exit) + wait: the outcome. */
static enum outcome exec_once(const char *path)
{
	char *argv[] = { (char *)path, "--exit", NULL };
	pid_t pid = fork();

	if (!pid) {
		execve(path, argv, (char *[]){ NULL });
		_exit(EXEC_FAILED + errno);
	}
	return exec_outcome(pid);
}

static enum outcome open_outcome(int fd)
{
	if (fd >= 0) {
		close(fd);
		return OPEN_OK;
	}
	return errno == ETXTBSY ? OPEN_TXTBSY : OPEN_OTHER;
}

/* The loops a workload runs side by side, each in a process of its own. */
enum loop {
	L_EXEC,		/* fork + execve(path --exit) */
	L_OPEN_W,	/* open(O_WRONLY) + close */
	L_PROBE,	/* mold's probe: open(O_RDWR | O_CREAT) + close */
	L_MAP_EXEC,	/* open, mmap(PROT_READ | PROT_EXEC), munmap, close */
};

static void run_loop(enum loop l, const char *path, long long deadline,
		     struct tally *t)
{
	while (now_us() < deadline) {
		switch (l) {
		case L_EXEC:
			count(t, exec_once(path));
			break;
		case L_OPEN_W:
			count(t, open_outcome(open(path, O_WRONLY | O_CLOEXEC)));
			break;
		case L_PROBE:
			count(t, open_outcome(open(path, O_RDWR | O_CREAT |
						   O_CLOEXEC, 0755)));
			break;
		case L_MAP_EXEC: {
			int fd = open(path, O_RDONLY | O_CLOEXEC);
			void *p = fd < 0 ? MAP_FAILED :
				  mmap(NULL, 4096, PROT_READ | PROT_EXEC,
				       MAP_PRIVATE, fd, 0);

			if (p == MAP_FAILED) {
				count(t, errno == ETXTBSY ? OPEN_TXTBSY : OPEN_OTHER);
			} else {
				munmap(p, 4096);
				count(t, OPEN_OK);
			}
			if (fd >= 0)
				close(fd);
			break;
		}
		}
	}
}

/* Run the loops of @loops (n of them) on @path for the workload's time. */
static void run_loops(const enum loop *loops, int n, const char *path,
		      struct tally *t)
{
	long long deadline = now_us() + seconds * 1000000LL;
	pid_t pids[8];

	for (int i = 0; i < n; i++) {
		pids[i] = fork();
		if (!pids[i]) {
			run_loop(loops[i], path, deadline, t);
			_exit(0);
		}
	}
	for (int i = 0; i < n; i++)
		if (pids[i] > 0)
			waitpid(pids[i], NULL, 0);
}

/* A fresh copy of this program at @path. */
static int fresh_prog(const char *path, char *why, size_t whylen)
{
	if (copy_fresh("/proc/self/exe", path, 0755)) {
		snprintf(why, whylen, "copy to %s: %s", path, errtxt(errno));
		return -1;
	}
	return 0;
}

/* Start @path --sleep and wait until it runs. */
static int start_runner(struct proc *p, const char *path, char *why,
			size_t whylen)
{
	char *argv[] = { (char *)path, "--sleep", NULL };

	if (proc_spawn(p, path, argv, 0, -1)) {
		snprintf(why, whylen, "spawn %s: %s", path, errtxt(errno));
		return -1;
	}
	if (wait_exe(p->pid, path, NULL, WAIT_MS, why, whylen)) {
		proc_kill(p);
		return -1;
	}
	return 0;
}

/* What keeps the file busy while a workload's loops run. */
enum busy {
	B_NONE,
	B_RUNNER,	/* it runs (PROG --sleep) */
	B_WRITER,	/* it is open for writing */
};

/*
 * A workload of three loops on one file, and the outcomes the stock
 * kernel gives: each must occur (1), must not (0), or does not matter (-1).
 */
struct workload {
	const char *check;
	enum loop loops[3];
	enum busy busy;
	const char *path;	/* PROG (a fresh copy of this program), or DATA */
	int want[N_OUTCOMES];	/* exec ok, etxtbsy, other; open ok, etxtbsy, other */
};

#define DATA DIR "/data"

static const struct workload workloads[] = {
	/*
	 * Writers refused because the program runs leave no trace: stock
	 * never lets a refused open raise i_writecount, so every exec of the
	 * running program succeeds while they keep trying; also with mold's
	 * probe of its output, open(O_RDWR | O_CREAT).
	 */
	{ "refused_writers_never_fail_execs", { L_OPEN_W, L_OPEN_W, L_EXEC },
	  B_RUNNER, PROG, { 1, 0, 0, 0, 1, 0 } },
	{ "mold_probe_loop_never_fails_execs", { L_PROBE, L_PROBE, L_EXEC },
	  B_RUNNER, PROG, { 1, 0, 0, 0, 1, 0 } },
	/*
	 * Execs refused because the file is open for writing leave no trace:
	 * every new writer of the file succeeds while they keep trying.
	 */
	{ "refused_execs_never_fail_writers", { L_EXEC, L_EXEC, L_OPEN_W },
	  B_WRITER, PROG, { 0, 1, 0, 1, 0, 0 } },
	/* Execs of one file that nobody writes all succeed, however they overlap. */
	{ "concurrent_execs_all_succeed", { L_EXEC, L_EXEC, L_EXEC },
	  B_NONE, PROG, { 1, 0, 0, 0, 0, 0 } },
	/*
	 * Executable mappings of a file that is not executed deny nothing on
	 * stock (MAP_DENYWRITE is gone): writers and mappings all succeed.
	 */
	{ "exec_mappings_and_writers_all_succeed",
	  { L_MAP_EXEC, L_MAP_EXEC, L_OPEN_W }, B_NONE, DATA,
	  { 0, 0, 0, 1, 0, 0 } },
};

#define N_WORKLOADS (sizeof(workloads) / sizeof(workloads[0]))

static void run_workload(const struct workload *w)
{
	struct proc runner = { .pid = -1, .ready = -1, .out = -1 };
	char why[256] = "";
	int fd = -1;

	if (!strcmp(w->path, DATA) ? make_blob(DATA, 8192) :
	    copy_fresh("/proc/self/exe", PROG, 0755))
		snprintf(why, sizeof(why), "create %s: %s", w->path,
			 errtxt(errno));
	else if (w->busy == B_RUNNER)
		start_runner(&runner, w->path, why, sizeof(why));
	else if (w->busy == B_WRITER &&
		 (fd = open(w->path, O_WRONLY | O_CLOEXEC)) < 0)
		snprintf(why, sizeof(why), "open %s: %s", w->path,
			 errtxt(errno));
	if (why[0]) {
		result(w->check, why);
		return;
	}
	run_loops(w->loops, 3, w->path, fresh_tally());
	proc_kill(&runner);
	if (fd >= 0)
		close(fd);
	judge(w->check, shared, w->want);
}

/* One outcome check: @got is the errno of the operation (0: success). */
static void expect_errno(const char *check, int got, int want,
			 const char *what)
{
	char why[256];

	printf("STAT %s %s.errno %d\n", group, check, got);
	if (got == want) {
		result(check, NULL);
		return;
	}
	snprintf(why, sizeof(why), "%s: %s (stock: %s)", what, errname(got),
		 errname(want));
	result(check, why);
}

static int open_errno(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/*
 * Two overlays share one lower directory, as two containers share an
 * image layer; the program runs through the first.  Stock denies writes
 * through the first overlay's path, and nothing else: the second
 * overlay's open for writing copies the file up into its own upper layer,
 * and the lower file itself is not the file exec denied.
 */
static const char *const overlay_checks[] = {
	"overlay_running_path_write_denied",
	"overlay_sibling_copy_up_write_allowed",
	"overlay_lower_file_write_allowed",
};
#define N_OVERLAY_CHECKS (sizeof(overlay_checks) / sizeof(overlay_checks[0]))

static int mount_overlay(const char *name)
{
	char dir[256], opts[768];

	snprintf(dir, sizeof(dir), OVL "/%s", name);
	if (mkdir_p(dir, 0755) < 0 && errno != EEXIST)
		return -1;
	snprintf(opts, sizeof(opts),
		 "lowerdir=" OVL "/lower,upperdir=" OVL "/up-%s,workdir=" OVL
		 "/work-%s", name, name);
	return mount("overlay", dir, "overlay", 0, opts);
}

/* What the overlay child reports: the three errnos, or why it could not. */
struct overlay_msg {
	int errs[N_OVERLAY_CHECKS];
	char why[200];
};

/* In a mount namespace of its own: set up, start, probe; fill @m. */
static void overlay_probe(struct overlay_msg *m)
{
	struct proc runner;

	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mkdir_p(OVL, 0755) < 0 ||
	    mount("parity", OVL, "tmpfs", 0, NULL) ||
	    mkdir(OVL "/lower", 0755) || mkdir(OVL "/up-a", 0755) ||
	    mkdir(OVL "/work-a", 0755) || mkdir(OVL "/up-b", 0755) ||
	    mkdir(OVL "/work-b", 0755) ||
	    copy_fresh("/proc/self/exe", OVL "/lower/prog", 0755) ||
	    mount_overlay("a") || mount_overlay("b")) {
		snprintf(m->why, sizeof(m->why), "set-up: %s", errtxt(errno));
		return;
	}
	if (start_runner(&runner, OVL "/a/prog", m->why, sizeof(m->why)))
		return;
	m->errs[0] = open_errno(OVL "/a/prog", O_WRONLY);
	m->errs[1] = open_errno(OVL "/b/prog", O_WRONLY | O_TRUNC);
	m->errs[2] = open_errno(OVL "/lower/prog", O_WRONLY);
	proc_kill(&runner);
}

static void overlay_siblings(void)
{
	struct overlay_msg m = { .why = "" };
	int pipefd[2], st = -1;
	pid_t pid = -1;

	if (pipe(pipefd) == 0) {
		pid = fork();
		if (!pid) {
			close(pipefd[0]);
			overlay_probe(&m);
			_exit(write(pipefd[1], &m, sizeof(m)) == sizeof(m) ? 0 : 1);
		}
		close(pipefd[1]);
		if (pid > 0 && read_timeout(pipefd[0], &m, sizeof(m), 3 * WAIT_MS) !=
		    (ssize_t)sizeof(m))
			snprintf(m.why, sizeof(m.why), "no answer from the child");
		close(pipefd[0]);
	}
	if (pid > 0)
		waitpid(pid, &st, 0);
	if (pid < 0)
		snprintf(m.why, sizeof(m.why), "pipe or fork: %s", errtxt(errno));
	else if (!m.why[0] && (!WIFEXITED(st) || WEXITSTATUS(st)))
		snprintf(m.why, sizeof(m.why), "the child failed");
	if (m.why[0]) {
		for (size_t i = 0; i < N_OVERLAY_CHECKS; i++)
			result(overlay_checks[i], m.why);
		return;
	}
	expect_errno(overlay_checks[0], m.errs[0], ETXTBSY, "open(a/prog, O_WRONLY)");
	expect_errno(overlay_checks[1], m.errs[1], 0,
		     "open(b/prog, O_WRONLY|O_TRUNC)");
	expect_errno(overlay_checks[2], m.errs[2], 0, "open(lower/prog, O_WRONLY)");
}

/*
 * A memfd is always O_RDWR, so every shared mapping of it may write, yet
 * stock runs it with fexecve() while it is mapped shared (read-only):
 * the memfd's descriptor never raised i_writecount.
 */
static void memfd_mapped_shared_fexecve_allowed(const char *check)
{
	char buf[65536], why[256] = "";
	struct tally *t = fresh_tally();
	static const int want[N_OUTCOMES] = { 1, 0, 0, -1, -1, -1 };
	int in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	int fd = memfd_create("parity", 0);
	ssize_t n;
	off_t size = 0;
	void *map;

	while (in >= 0 && fd >= 0 && (n = read(in, buf, sizeof(buf))) > 0) {
		if (write(fd, buf, n) != n) {
			snprintf(why, sizeof(why), "write to the memfd failed");
			break;
		}
		size += n;
	}
	if (in < 0 || fd < 0 || !size) {
		snprintf(why, sizeof(why), "memfd set-up: %s", errtxt(errno));
	}
	if (in >= 0)
		close(in);
	if (why[0]) {
		result(check, why);
		return;
	}
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		snprintf(why, sizeof(why), "mmap: %s", errtxt(errno));
		result(check, why);
		close(fd);
		return;
	}
	for (int i = 0; i < 20; i++) {
		char *argv[] = { "parity", "--exit", NULL };
		pid_t pid = fork();

		if (!pid) {
			fexecve(fd, argv, (char *[]){ NULL });
			_exit(EXEC_FAILED + errno);
		}
		count(t, exec_outcome(pid));
	}
	munmap(map, size);
	close(fd);
	judge(check, t, want);
}

/*
 * binfmt_misc with the O flag hands the binary to the interpreter as
 * AT_EXECFD, and stock releases exec's denial of it once exec is done:
 * the binary may be written while the interpreter runs.
 */
static void binfmt_misc_open_binary_writable(const char *check)
{
	static const char reg[] =
		":" BINFMT_NAME ":E::dwpar::" DIR "/interp:O";
	char why[256] = "";
	struct proc runner;
	char *argv[] = { DIR "/foreign.dwpar", NULL };
	int fd, err;

	if (access(BINFMT "/register", W_OK) &&
	    mount("binfmt_misc", BINFMT, "binfmt_misc", 0, NULL)) {
		snprintf(why, sizeof(why), "mount binfmt_misc: %s", errtxt(errno));
		result(check, why);
		return;
	}
	if (fresh_prog(DIR "/interp", why, sizeof(why)) ||
	    write_file(DIR "/foreign.dwpar", "not an ELF file\n", 0755)) {
		if (!why[0])
			snprintf(why, sizeof(why), "foreign file: %s", errtxt(errno));
		result(check, why);
		return;
	}
	fd = open(BINFMT "/register", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, reg, strlen(reg)) != (ssize_t)strlen(reg)) {
		snprintf(why, sizeof(why), "register: %s", errtxt(errno));
		if (fd >= 0)
			close(fd);
		result(check, why);
		return;
	}
	close(fd);
	if (proc_spawn(&runner, argv[0], argv, 0, -1) ||
	    wait_exe(runner.pid, DIR "/interp", NULL, WAIT_MS, why, sizeof(why))) {
		if (!why[0])
			snprintf(why, sizeof(why), "spawn: %s", errtxt(errno));
		proc_kill(&runner);
		write_file(BINFMT "/" BINFMT_NAME, "-1", 0644);
		result(check, why);
		return;
	}
	err = open_errno(DIR "/foreign.dwpar", O_WRONLY);
	proc_kill(&runner);
	fd = open(BINFMT "/" BINFMT_NAME, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "-1", 2) != 2)
			perror("parity: unregister");
		close(fd);
	}
	expect_errno(check, err, 0, "open(binary, O_WRONLY) while it runs");
}


/* The test program's own roles. */
static int serve(int argc, char **argv)
{
	size_t len = strlen(argv[0]);

	/* As binfmt_misc's interpreter, argv[0] is the interpreter's path. */
	if ((len >= 7 && !strcmp(argv[0] + len - 7, "/interp")) ||
	    (argc > 1 && !strcmp(argv[1], "--sleep"))) {
		for (;;)
			pause();
	}
	if (argc > 1 && !strcmp(argv[1], "--exit"))
		return 0;
	return -1;
}

int main(int argc, char **argv)
{
	int rc = serve(argc, argv);

	if (rc >= 0)
		return rc;
	if (argc == 3 && !strcmp(argv[1], "--seconds"))
		seconds = atol(argv[2]);
	else if (argc != 1) {
		fprintf(stderr, "usage: parity [--seconds S]\n");
		return 2;
	}
	if (seconds < 1) {
		fprintf(stderr, "parity: --seconds must be at least 1\n");
		return 2;
	}
	if (getenv("DWTEST_GROUP") && *getenv("DWTEST_GROUP"))
		group = getenv("DWTEST_GROUP");
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	rm_rf(DIR);
	if (mkdir_p(DIR, 0755) < 0) {
		perror("parity: " DIR);
		return 1;
	}
	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED) {
		perror("parity: mmap");
		return 1;
	}
	printf("PLAN %s %zu\n", group, N_WORKLOADS + N_OVERLAY_CHECKS + 2);
	for (size_t i = 0; i < N_WORKLOADS; i++)
		run_workload(&workloads[i]);
	overlay_siblings();
	memfd_mapped_shared_fexecve_allowed("memfd_mapped_shared_fexecve_allowed");
	binfmt_misc_open_binary_writable(
		"binfmt_misc_open_binary_writable_while_interpreter_runs");
	reap_all(WAIT_MS);
	rm_rf(DIR);
	return failed ? 1 : 0;
}
