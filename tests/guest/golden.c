/* golden - what each securityfs file of denywrite reads, in fixed setups,
 * against the capture checked into tests/golden/ (issue 20, item 5).
 *
 *   golden --compare DIR   (make test, group golden of suite lsm)
 *   golden --capture       (make golden, suite golden)
 *
 * Both make the same setup, from a kernel just booted (no operation
 * refused or audited yet: the counters of stats count since the boot),
 * and read the same files:
 *
 * - the mode is switched off and back to enforce (which drops every hold:
 *   protected is 0), then the tree /tmp/dwgolden is made, with
 *   directories whose names print escaped (a tab, a backslash, a trailing
 *   space, a newline) and a tmpfs on mnt;
 * - the rules below are written, and mnt is unmounted (two rules gone);
 * - one operation of each kind is refused (a write and a truncation of
 *   the running bin/prog, an exec of w while open for writing, an
 *   executable mapping of "sp /x.so" while open for writing), one write
 *   is audited in audit mode, and nobody/prog runs as uid 65534;
 * - mode, rules, stats and gone are read, and query is asked as root
 *   about the running program, the file open for writing, a directory
 *   with a tab in its name and an idle library, and as uid 65534 about
 *   root's running program (which it may not inspect) and its own.
 *
 * --compare: one check a file, "golden_<file>_matches_the_kernel", the
 * output byte for byte against DIR/<file>, with the difference on stderr
 * and in the FAIL line; then the check that the policy found at the start
 * was put back.  --capture prints each file as "GOLDEN <file> <hex>" for
 * scripts/golden.sh, which writes tests/golden/ (make golden).
 * Output: "PLAN <group> N", N result lines.  Exit 0 iff nothing failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdarg.h>
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

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define SFS "/sys/kernel/security/denywrite"
#define G "/tmp/dwgolden"
#define NOBODY 65534
#define SLEEPER "/tests/bin/sleeper"
#define LIB "/usr/lib/libdwtest.so"

/* The policy of the capture: every scope and option, names escaped. */
#define RULES "exec /\n" \
	"lib,ignore-writers " G "/lib\n" \
	"all " G "/t\\011b\n" \
	"exec " G "/b\\134s\n" \
	"lib " G "/sp\\040\n" \
	"exec,ignore-writers " G "/nl\\012x\n" \
	"exec " G "/mnt/m1\n" \
	"lib,ignore-writers " G "/mnt/sp\\040\n"

/* The files captured, in order. */
static const char *const files[] = {
	"mode", "rules", "stats", "gone",
	"query-root-running", "query-root-writer", "query-root-directory",
	"query-root-library", "query-nobody-not-inspectable", "query-nobody-own",
};
#define NFILES ARRAY_SIZE(files)
#define RESTORE_CHECK "golden_policy_found_at_start_restored"

static const char *group = "golden";
static char got[NFILES][8192];
static bool have[NFILES];
static char setup_err[512];
static int failures;

static void setup_fail(const char *fmt, ...)
{
	va_list ap;

	if (setup_err[0])
		return;
	va_start(ap, fmt);
	vsnprintf(setup_err, sizeof(setup_err), fmt, ap);
	va_end(ap);
	one_line(setup_err);
	fprintf(stderr, "golden: setup: %s\n", setup_err);
}

static int sfs_put(const char *file, const char *text)
{
	char path[128];
	ssize_t n;
	int fd, err;

	snprintf(path, sizeof(path), SFS "/%s", file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	n = write(fd, text, strlen(text));
	err = n == (ssize_t)strlen(text) ? 0 : n < 0 ? errno : EIO;
	close(fd);
	return err;
}

static int slurp(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t o = 0;
	ssize_t n;

	if (fd < 0)
		return errno;
	while (o + 1 < len && (n = read(fd, buf + o, len - 1 - o)) > 0)
		o += (size_t)n;
	buf[o] = '\0';
	close(fd);
	return 0;
}

static int index_of(const char *name)
{
	for (size_t i = 0; i < NFILES; i++)
		if (!strcmp(files[i], name))
			return (int)i;
	abort();
}

/* Read SFS/file as captured file `as`. */
static void capture_file(const char *as, const char *file)
{
	char path[128];
	int i = index_of(as), err;

	snprintf(path, sizeof(path), SFS "/%s", file);
	err = slurp(path, got[i], sizeof(got[i]));
	if (err)
		setup_fail("read %s: %s", path, errname(err));
	else
		have[i] = true;
}

/* Ask query about path (in this process): its answer, as file `as`. */
static int query(const char *path, char *answer, size_t len)
{
	int fd = open(SFS "/query", O_RDWR | O_CLOEXEC);
	ssize_t n = -1;
	int err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, path, strlen(path)) != (ssize_t)strlen(path) ||
	    (n = pread(fd, answer, len - 1, 0)) < 0)
		err = errno ? errno : EIO;
	answer[n > 0 ? n : 0] = '\0';
	close(fd);
	return err;
}

static void capture_query(const char *as, const char *path)
{
	int i = index_of(as), err = query(path, got[i], sizeof(got[i]));

	if (err)
		setup_fail("query %s: %s", path, errname(err));
	else
		have[i] = true;
}

/* The same, from a child that is uid and gid 65534 and nothing else. */
static void capture_query_as_nobody(const char *as, const char *path)
{
	int i = index_of(as), p[2], st;
	ssize_t n = 0;
	pid_t pid;

	if (pipe(p))
		{
			setup_fail("pipe: %s", errname(errno));
			return;
		}
	pid = fork();
	if (pid == 0) {
		char answer[sizeof(got[0])];
		int err;

		close(p[0]);
		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			_exit(100);
		err = query(path, answer, sizeof(answer));
		if (err)
			_exit(err);
		if (write(p[1], answer, strlen(answer)) != (ssize_t)strlen(answer))
			_exit(101);
		_exit(0);
	}
	close(p[1]);
	if (pid > 0)
		n = read_timeout(p[0], got[i], sizeof(got[i]) - 1, WAIT_MS);
	close(p[0]);
	if (pid < 0 || reap_pid(pid, WAIT_MS, &st) || !WIFEXITED(st) ||
	    WEXITSTATUS(st) || n <= 0) {
		setup_fail("query %s as uid %d: %s", path, NOBODY,
			   pid < 0 ? errname(errno) : !WIFEXITED(st) ? "killed" :
			   WEXITSTATUS(st) == 100 ? "cannot become uid 65534" :
			   errname(WEXITSTATUS(st)));
		return;
	}
	got[i][n] = '\0';
	have[i] = true;
}

/* ---- the setup ----------------------------------------------------------- */

static struct proc prog = { .pid = -1, .ready = -1, .out = -1 };
static struct proc own = { .pid = -1, .ready = -1, .out = -1 };
static int writer_fd = -1;
static char saved_rules[65600], saved_mode[32];
static bool saved;

/* Run path as uid 65534 (the sleeper: until killed), once it runs. */
static int start_as_nobody(struct proc *p, const char *path)
{
	int rp[2];
	char c, env[40];
	pid_t pid;

	if (pipe(rp))
		return -1;
	pid = fork();
	if (pid == 0) {
		char *argv[] = { (char *)path, NULL }, *envp[] = { env, NULL };

		close(rp[0]);
		snprintf(env, sizeof(env), "DWTEST_READY_FD=%d", rp[1]);
		if (!setgroups(0, NULL) && !setgid(NOBODY) && !setuid(NOBODY))
			execve(path, argv, envp);
		_exit(127);
	}
	close(rp[1]);
	p->pid = pid;
	p->ready = -1;
	p->out = -1;
	if (pid < 0 || read_timeout(rp[0], &c, 1, WAIT_MS) != 1) {
		close(rp[0]);
		return -1;
	}
	close(rp[0]);
	return 0;
}

/* err must be the outcome of what, else the setup failed. */
static void expect_err(const char *what, int err, int want)
{
	if (err != want)
		setup_fail("%s: %s, expected %s", what, errname(err), errname(want));
}

static int zeroed_counters(void)
{
	/* (gone, too, counts from the boot, but only unmounts move it: a
	 * change of its line is what the comparison of stats is for) */
	static const char *const keys[] = { "denied_write", "denied_truncate",
					    "denied_exec", "denied_mmap",
					    "audited" };
	char stats[1024], line[64];
	int err = slurp(SFS "/stats", stats, sizeof(stats));

	if (err) {
		setup_fail("read stats: %s", errname(err));
		return -1;
	}
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		snprintf(line, sizeof(line), "\n%s 0\n", keys[i]);
		if (!strstr(stats, line)) {
			setup_fail("%s is not 0: golden must run before anything "
				   "is refused or audited after the boot", keys[i]);
			return -1;
		}
	}
	return 0;
}

static void make_tree(void)
{
	static const char *const dirs[] = {
		G, G "/bin", G "/lib", G "/t\tb", G "/b\\s", G "/sp ",
		G "/nl\nx", G "/nobody", G "/mnt",
	};

	rm_rf(G);
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++)
		if (mkdir(dirs[i], 0755))
			{
				setup_fail("mkdir %s: %s", dirs[i], errname(errno));
				return;
			}
	if (copy_fresh(SLEEPER, G "/bin/prog", 0755) ||
	    copy_fresh(SLEEPER, G "/w", 0755) ||
	    copy_fresh(SLEEPER, G "/nobody/prog", 0755) ||
	    copy_fresh(LIB, G "/lib/lib.so", 0644) ||
	    copy_fresh(LIB, G "/sp /x.so", 0644))
		{
			setup_fail("copy: %s", errname(errno));
			return;
		}
	if (chown(G "/nobody", NOBODY, NOBODY) ||
	    chown(G "/nobody/prog", NOBODY, NOBODY))
		{
			setup_fail("chown: %s", errname(errno));
			return;
		}
	if (mount("dwgolden", G "/mnt", "tmpfs", 0, NULL) ||
	    mkdir(G "/mnt/m1", 0755) || mkdir(G "/mnt/sp ", 0755))
		{
			setup_fail("tmpfs on " G "/mnt: %s", errname(errno));
			return;
		}
}

/* One refusal of each kind, one audited write. */
static void make_events(void)
{
	char why[256];
	int fd, ro, exec_err, st;
	void *map;
	pid_t pid;

	if (spawn_ready(&prog, G "/bin/prog", G "/bin/prog", NULL, &exec_err,
			why, sizeof(why)))
		{
			setup_fail("run " G "/bin/prog: %s", why);
			return;
		}
	expect_err("write open of the running program",
		   probe_open(G "/bin/prog", O_WRONLY), ETXTBSY);
	writer_fd = open(G "/w", O_WRONLY | O_CLOEXEC);
	if (writer_fd < 0)
		{
			setup_fail("open " G "/w: %s", errname(errno));
			return;
		}
	pid = fork();
	if (pid == 0) {
		char *argv[] = { G "/w", NULL };

		execve(argv[0], argv, (char *[]){ NULL });
		_exit(errno);
	}
	if (pid < 0 || reap_pid(pid, WAIT_MS, &st) || !WIFEXITED(st))
		{
			setup_fail("exec of " G "/w did not end");
			return;
		}
	expect_err("exec of a file open for writing", WEXITSTATUS(st), ETXTBSY);
	fd = open(G "/sp /x.so", O_WRONLY | O_CLOEXEC);
	ro = open(G "/sp /x.so", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || ro < 0)
		{
			setup_fail("open " G "/sp /x.so: %s", errname(errno));
			return;
		}
	map = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, ro, 0);
	expect_err("executable mapping of a file open for writing",
		   map == MAP_FAILED ? errno : 0, ETXTBSY);
	if (map != MAP_FAILED)
		munmap(map, 4096);
	close(fd);
	close(ro);
	expect_err("mode audit", sfs_put("mode", "audit"), 0);
	expect_err("write open of the running program in audit mode",
		   probe_open(G "/bin/prog", O_WRONLY), 0);
	expect_err("mode enforce", sfs_put("mode", "enforce"), 0);
	/*
	 * The switch to audit made the running program's hold one the hooks
	 * count: truncate(2) is refused, and counted, by inode_setattr (exec's
	 * denial would have refused it in the VFS, and the write_access_denied
	 * hook would have counted it).
	 */
	expect_err("truncate of the running program",
		   truncate(G "/bin/prog", 0) ? errno : 0, ETXTBSY);
	if (start_as_nobody(&own, G "/nobody/prog"))
		setup_fail("run " G "/nobody/prog as uid %d", NOBODY);
}

static void setup_and_capture(void)
{
	int err;

	if (slurp(SFS "/rules", saved_rules, sizeof(saved_rules)) ||
	    slurp(SFS "/mode", saved_mode, sizeof(saved_mode)))
		{
			setup_fail("cannot read the policy: %s", errname(errno));
			return;
		}
	saved = true;
	if (zeroed_counters())
		return;
	/* Mode off drops every hold: protected counts ours only. */
	if ((err = sfs_put("mode", "off")) || (err = sfs_put("mode", "enforce")))
		{
			setup_fail("mode off, enforce: %s", errname(err));
			return;
		}
	make_tree();
	if (setup_err[0])
		return;
	if ((err = sfs_put("rules", RULES)))
		{
			setup_fail("write the rules: %s", errname(err));
			return;
		}
	if (umount(G "/mnt"))
		{
			setup_fail("umount " G "/mnt: %s", errname(errno));
			return;
		}
	make_events();
	if (setup_err[0])
		return;
	capture_file("mode", "mode");
	capture_file("rules", "rules");
	capture_file("stats", "stats");
	capture_file("gone", "gone");
	capture_query("query-root-running", G "/bin/prog");
	capture_query("query-root-writer", G "/w");
	capture_query("query-root-directory", G "/t\tb");
	capture_query("query-root-library", G "/lib/lib.so");
	capture_query_as_nobody("query-nobody-not-inspectable", G "/bin/prog");
	capture_query_as_nobody("query-nobody-own", G "/nobody/prog");
}

/* Put everything back: 0, or -1 with why. */
static int teardown(char *why, size_t len)
{
	char rules[65600], mode[32];
	int err = 0;

	proc_kill(&prog);
	proc_kill(&own);
	if (writer_fd >= 0)
		close(writer_fd);
	umount2(G "/mnt", MNT_DETACH);
	rm_rf(G);
	if (!saved) {
		snprintf(why, len, "the policy could not be read at the start");
		return -1;
	}
	if ((err = sfs_put("rules", saved_rules[0] ? saved_rules : "\n")) ||
	    (err = sfs_put("mode", saved_mode))) {
		snprintf(why, len, "cannot write the policy back: %s", errname(err));
		return -1;
	}
	if (slurp(SFS "/rules", rules, sizeof(rules)) ||
	    slurp(SFS "/mode", mode, sizeof(mode)) ||
	    strcmp(rules, saved_rules) || strcmp(mode, saved_mode)) {
		snprintf(why, len, "rules or mode are not those found at the start");
		return -1;
	}
	return 0;
}

/* ---- compare, capture ------------------------------------------------------ */

#define DIFF_LINES 64

/* Split s into at most DIFF_LINES lines (pointers and lengths). */
static size_t split_lines(const char *s, const char **l, size_t *len)
{
	size_t n = 0;

	while (*s && n < DIFF_LINES) {
		len[n] = strcspn(s, "\n");
		l[n] = s;
		s += len[n] + (s[len[n]] == '\n');
		n++;
	}
	return n;
}

/* A line diff of two short texts on stderr: " " both, "-" only in the
 * first (golden), "+" only in the second (the kernel's), by the longest
 * common subsequence of their lines. */
static void line_diff(const char *a, const char *b)
{
	static unsigned char lcs[DIFF_LINES + 1][DIFF_LINES + 1];
	const char *la[DIFF_LINES], *lb[DIFF_LINES];
	size_t na[DIFF_LINES], nb[DIFF_LINES], m, n, i, j;

	m = split_lines(a, la, na);
	n = split_lines(b, lb, nb);
	for (i = m + 1; i-- > 0;)
		for (j = n + 1; j-- > 0;)
			lcs[i][j] = i == m || j == n ? 0 :
				    na[i] == nb[j] && !memcmp(la[i], lb[j], na[i]) ?
				    lcs[i + 1][j + 1] + 1 :
				    lcs[i + 1][j] > lcs[i][j + 1] ? lcs[i + 1][j] :
				    lcs[i][j + 1];
	for (i = j = 0; i < m || j < n;) {
		if (i < m && j < n && na[i] == nb[j] && !memcmp(la[i], lb[j], na[i])) {
			fprintf(stderr, " %.*s\n", (int)na[i], la[i]);
			i++, j++;
		} else if (i < m && (j == n || lcs[i + 1][j] >= lcs[i][j + 1])) {
			fprintf(stderr, "-%.*s\n", (int)na[i], la[i]);
			i++;
		} else {
			fprintf(stderr, "+%.*s\n", (int)nb[j], lb[j]);
			j++;
		}
	}
}

/* "line N: got '...', golden '...'" for the first line that differs;
 * the line diff on stderr. */
static void difference(const char *name, const char *a, const char *b,
		       char *why, size_t len)
{
	size_t line = 1, i = 0, start = 0;
	char x[200], y[200];

	while (a[i] && a[i] == b[i]) {
		if (a[i] == '\n') {
			line++;
			start = i + 1;
		}
		i++;
	}
	snprintf(x, sizeof(x), "%.*s", (int)strcspn(a + start, "\n"), a + start);
	snprintf(y, sizeof(y), "%.*s", (int)strcspn(b + start, "\n"), b + start);
	one_line(x);
	one_line(y);
	snprintf(why, len, "line %zu: the kernel's '%s', golden '%s' (diff on "
		 "the console)", line, x, y);
	fprintf(stderr, "golden: %s differs.\n--- tests/golden/%s\n+++ the "
		"kernel's\n", name, name);
	line_diff(b, a);
}

static void result(const char *name, bool ok, const char *fmt, ...)
{
	char why[600];
	va_list ap;

	if (ok) {
		printf("PASS %s\n", name);
		return;
	}
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	one_line(why);
	printf("FAIL %s: %s\n", name, why);
	failures++;
}

static void compare(const char *dir)
{
	char path[512], want[8192], name[128], why[512];

	for (size_t i = 0; i < NFILES; i++) {
		int err;

		snprintf(name, sizeof(name), "golden_%s_matches_the_kernel", files[i]);
		for (char *p = name; *p; p++)
			if (*p == '-')
				*p = '_';
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		err = slurp(path, want, sizeof(want));
		if (err) {
			result(name, false, "%s: %s", path, errname(err));
		} else if (!have[i]) {
			result(name, false, "not read: %s", setup_err[0] ? setup_err :
			       "the setup failed");
		} else if (strcmp(got[i], want)) {
			difference(files[i], got[i], want, why, sizeof(why));
			result(name, false, "%s", why);
		} else {
			result(name, true, NULL);
		}
	}
}

static void capture(void)
{
	char name[128];

	for (size_t i = 0; i < NFILES; i++) {
		snprintf(name, sizeof(name), "golden_%s_captured", files[i]);
		if (!have[i]) {
			result(name, false, "not read: %s", setup_err);
			continue;
		}
		printf("GOLDEN %s ", files[i]);
		for (const unsigned char *p = (const unsigned char *)got[i]; *p; p++)
			printf("%02x", *p);
		printf("\n");
		result(name, true, NULL);
	}
}

int main(int argc, char **argv)
{
	bool comparing = argc == 3 && !strcmp(argv[1], "--compare");
	char why[300];

	if (!comparing && !(argc == 2 && !strcmp(argv[1], "--capture"))) {
		fprintf(stderr, "usage: golden --compare DIR | golden --capture\n");
		return 2;
	}
	if (getenv("DWTEST_GROUP"))
		group = getenv("DWTEST_GROUP");
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	printf("PLAN %s %zu\n", group, NFILES + 1);
	setup_and_capture();
	if (comparing)
		compare(argv[2]);
	else
		capture();
	result(RESTORE_CHECK, !teardown(why, sizeof(why)), "%s", why);
	return failures ? 1 : 0;
}
