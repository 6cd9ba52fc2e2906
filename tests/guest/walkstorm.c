/* walkstorm - rule matching ends, and finds the rule, under a rename
 * storm (issues 9 and 20).
 *
 *   walkstorm [--depth N] [--renamers R] [--seconds S] [--sfs DIR] [--bin DIR]
 *
 * Matching walks up from a file to the top of the mount tree.  A user who
 * owns a deep directory chain and renames a directory of it in a loop
 * makes every lockless walk over the chain race with a rename; a walk that
 * retried under RCU for ever would keep a CPU inside the kernel (an RCU
 * stall) through the world-writable query file or any exec, and a walk
 * that gave up would find no rule.  This program builds a chain of N
 * directories (default 1000) under BASE/a with a program at the bottom,
 * and sets two rules: "exec BASE/a", on the top of the chain, which every
 * exec and every exec-rule lookup must reach after N steps, and "lib
 * <a directory off the chain>", which no lib-rule lookup of the program
 * finds, so that one walks the whole chain and crosses a mount.  R
 * processes (default 2) rename the top of the chain back and forth, for
 * S seconds (default 4; longer, up to 4 S, until 5 execs were judged)
 * (BASE/a <-> BASE/b: the rule is on the object, so it is found under
 * either name and keeps the name it was made with), and meanwhile the
 * program is exec'd through a descriptor of the bottom directory, the
 * query file is asked about it while it runs, and it is opened for
 * writing.  Checks:
 * - each query and each exec returns within a bound, and enough of both
 *   complete;
 * - every answer is exactly "protected 1", "holders 1", "writers 0",
 *   "exec-rule exec BASE/a", "lib-rule -" (a lookup that gave up would
 *   answer "exec-rule -", and the exec would take no hold);
 * - every write open of the running program is refused with ETXTBSY, and
 *   stats' denied_write moves by exactly the number of them.
 *
 * Output: "PLAN walkstorm 4", one PASS/FAIL line per check, STAT lines.
 * Exit 0 if all passed.  The policy and mode found are restored.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BASE "/tmp/walkstorm"
#define RULE_DIR "/tmp/walkstorm-rule"
#define TOP BASE "/a"	/* the top of the chain: the exec rule's object */
#define BOUND_MS 5000	/* longest a single query or exec may take */
#define MIN_DONE 5	/* of each kind, for the run to say anything */

static const char *sfs = "/sys/kernel/security/denywrite";
static const char *bindir = "/tests/bin";
static int depth = 1000, seconds = 4, renamers = 2;

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static int sfs_read(const char *name, char *buf, size_t len)
{
	char path[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", sfs, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

static int sfs_write(const char *name, const char *text)
{
	char path[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", sfs, name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

static int copy_file(const char *src, int dirfd, const char *name)
{
	char buf[65536];
	int in, out, rc = -1;
	ssize_t n = -1;

	in = open(src, O_RDONLY | O_CLOEXEC);
	out = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			goto out;
	rc = in >= 0 && out >= 0 && n == 0 ? 0 : -1;
out:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return rc;
}

/* BASE/a/d/d/.../d (depth directories under a) with the program "p" at the
 * bottom; returns an O_PATH descriptor of the bottom directory. */
static int build_chain(char *why, size_t len)
{
	char prog[512];
	int fd, next, i;

	if (mkdir(BASE, 0755) || mkdir(BASE "/a", 0755) ||
	    mkdir(RULE_DIR, 0755)) {
		snprintf(why, len, "mkdir %s: %s", BASE, strerror(errno));
		return -1;
	}
	fd = open(BASE "/a", O_PATH | O_DIRECTORY | O_CLOEXEC);
	for (i = 0; fd >= 0 && i < depth; i++) {
		if (mkdirat(fd, "d", 0755)) {
			close(fd);
			fd = -1;
			break;
		}
		next = openat(fd, "d", O_PATH | O_DIRECTORY | O_CLOEXEC);
		close(fd);
		fd = next;
	}
	snprintf(prog, sizeof(prog), "%s/sleeper", bindir);
	if (fd < 0 || copy_file(prog, fd, "p")) {
		snprintf(why, len, "chain of %d: level %d: %s", depth, i,
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Remove the chain one level at a time: move a's child up, drop a. */
static void remove_chain(void)
{
	int base = open(BASE, O_PATH | O_DIRECTORY | O_CLOEXEC);
	int a;

	if (base < 0)
		return;
	for (;;) {
		a = openat(base, "a", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (a < 0)
			break;
		unlinkat(a, "p", 0);
		if (renameat(a, "d", base, "next")) {
			close(a);
			unlinkat(base, "a", AT_REMOVEDIR);
			break;
		}
		close(a);
		unlinkat(base, "a", AT_REMOVEDIR);
		renameat(base, "next", base, "a");
	}
	close(base);
	rmdir(BASE);
	rmdir(RULE_DIR);
}

/* The renamer: BASE/a <-> BASE/b until killed; counts in *count. */
static void renamer(volatile long *count)
{
	for (;;) {
		if (!rename(BASE "/a", BASE "/b"))
			(*count)++;
		if (!rename(BASE "/b", BASE "/a"))
			(*count)++;
	}
}

/* The whole answer every query about the running program must give. */
static const char want_answer[] = "protected 1\nholders 1\nwriters 0\n"
	"exec-rule exec " TOP "\nlib-rule -\n";

/* One question to the query file about the program, its answer in
 * answer[len]; its time in ms. */
static long long query_once(int bottom, int *err, char *answer, size_t len)
{
	long long t0 = now_ms();
	char path[64], qpath[512];
	ssize_t n = -1;
	int fd;

	snprintf(qpath, sizeof(qpath), "%s/query", sfs);
	snprintf(path, sizeof(path), "/proc/self/fd/%d/p", bottom);
	*err = 0;
	answer[0] = '\0';
	errno = 0;
	fd = open(qpath, O_RDWR | O_CLOEXEC);
	if (fd < 0 || write(fd, path, strlen(path)) < 0 ||
	    (n = pread(fd, answer, len - 1, 0)) <= 0)
		*err = errno ? errno : EIO;
	if (n > 0)
		answer[n] = '\0';
	if (fd >= 0)
		close(fd);
	return now_ms() - t0;
}

/* Exec the program through the bottom directory and wait until it runs:
 * its pid, or -1 with *err set.  The time it took in *ms. */
static pid_t exec_start(int bottom, int *err, long long *ms)
{
	long long t0 = now_ms();
	int pp[2], st;
	char env[32], c;
	pid_t pid;

	*err = 0;
	*ms = 0;
	if (pipe(pp))
		return *err = errno, -1;
	pid = fork();
	if (pid == 0) {
		char *argv[] = { "p", NULL };
		char *envp[] = { env, NULL };

		close(pp[0]);
		snprintf(env, sizeof(env), "DWTEST_READY_FD=%d", pp[1]);
		syscall(SYS_execveat, bottom, "p", argv, envp, 0);
		_exit(100 + errno);
	}
	close(pp[1]);
	if (pid < 0 || read(pp[0], &c, 1) != 1)
		*err = pid < 0 ? errno : EIO;
	close(pp[0]);
	*ms = now_ms() - t0;
	if (pid > 0 && *err) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		if (WIFEXITED(st) && WEXITSTATUS(st) > 100)
			*err = WEXITSTATUS(st) - 100;
		return -1;
	}
	return pid;
}

static void exec_stop(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* denied_write in stats, or -1. */
static long denied_write(void)
{
	char buf[1024], *p;

	if (sfs_read("stats", buf, sizeof(buf)))
		return -1;
	p = strstr(buf, "\ndenied_write ");
	return p ? strtol(p + strlen("\ndenied_write "), NULL, 10) : -1;
}

struct tally {
	int done, failed, first_err;
	long long max_ms;
};

/* Answers and write probes that were not what the rule at the top says. */
struct wrong {
	int n, bad;
	char first[300];
};

static void wrong_note(struct wrong *w, bool ok, const char *fmt, ...)
{
	va_list ap;

	w->n++;
	if (ok || w->bad++)
		return;
	va_start(ap, fmt);
	vsnprintf(w->first, sizeof(w->first), fmt, ap);
	va_end(ap);
	for (char *p = w->first; *p; p++)
		if (*p == '\n')
			*p = '|';
}

static void wrong_verdict(const char *name, const struct wrong *w)
{
	if (w->bad)
		printf("FAIL %s: %d of %d wrong, the first: %s\n", name, w->bad,
		       w->n, w->first);
	else if (w->n < MIN_DONE)
		printf("FAIL %s: only %d in %d s (want %d)\n", name, w->n,
		       seconds, MIN_DONE);
	else
		printf("PASS %s\n", name);
}

static void count(struct tally *t, long long ms, int err)
{
	if (ms > t->max_ms)
		t->max_ms = ms;
	if (err) {
		if (!t->failed++)
			t->first_err = err;
	} else {
		t->done++;
	}
}

static void verdict(const char *name, const struct tally *t)
{
	if (t->failed)
		printf("FAIL %s: %d failed, the first with %s\n", name,
		       t->failed, strerror(t->first_err));
	else if (t->max_ms > BOUND_MS)
		printf("FAIL %s: one took %lld ms (bound %d ms)\n", name,
		       t->max_ms, BOUND_MS);
	else if (t->done < MIN_DONE)
		printf("FAIL %s: only %d completed in %d s (want %d)\n", name,
		       t->done, seconds, MIN_DONE);
	else
		printf("PASS %s\n", name);
}

#define CHECK_QUERY "query_returns_during_rename_storm_allowed_in_enforce"
#define CHECK_EXEC "exec_returns_during_rename_storm_allowed_in_enforce"
#define CHECK_RULE "query_names_rule_at_top_of_chain_during_rename_storm"
#define CHECK_WRITE "write_to_running_program_at_bottom_denied_in_enforce_during_rename_storm"

static int run(int bottom)
{
	volatile long *renames = mmap(NULL, sizeof(long), PROT_READ | PROT_WRITE,
				      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct tally q = { 0 }, e = { 0 };
	struct wrong rule = { 0 }, wr = { 0 };
	long denied0 = denied_write(), denied1;
	long long end, ms;
	pid_t pids[8], pid = 1, prog;
	char answer[8192];
	int err, fd;

	if (renames == MAP_FAILED)
		return -1;
	*renames = 0;
	for (int i = 0; i < renamers; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			renamer(renames);
		if (pids[i] < 0)
			pid = -1;
	}
	/* At least S seconds of renames, longer (up to 4 S) until MIN_DONE
	 * execs have been judged: a host busy with other work slows the
	 * guest down, which is no reason to fail. */
	end = now_ms() + seconds * 1000LL;
	while (pid > 0 && (now_ms() < end || (e.done < MIN_DONE &&
					      now_ms() < end + 3 * seconds * 1000LL))) {
		prog = exec_start(bottom, &err, &ms);
		count(&e, ms, err);
		if (prog < 0)
			continue;
		ms = query_once(bottom, &err, answer, sizeof(answer));
		count(&q, ms, err);
		if (!err)
			wrong_note(&rule, !strcmp(answer, want_answer),
				   "'%s', want '%s'", answer, want_answer);
		fd = openat(bottom, "p", O_WRONLY | O_CLOEXEC);
		wrong_note(&wr, fd < 0 && errno == ETXTBSY, "open for writing %s",
			   fd < 0 ? strerror(errno) : "succeeded");
		if (fd >= 0)
			close(fd);
		exec_stop(prog);
	}
	denied1 = denied_write();
	for (int i = 0; i < renamers; i++) {
		if (pids[i] > 0) {
			kill(pids[i], SIGKILL);
			waitpid(pids[i], NULL, 0);
		}
	}
	rename(BASE "/b", BASE "/a");
	printf("STAT walkstorm depth %d\n", depth);
	printf("STAT walkstorm renames %ld\n", *renames);
	printf("STAT walkstorm queries %d\n", q.done);
	printf("STAT walkstorm query_max_ms %lld\n", q.max_ms);
	printf("STAT walkstorm execs %d\n", e.done);
	printf("STAT walkstorm exec_max_ms %lld\n", e.max_ms);
	printf("STAT walkstorm write_probes %d\n", wr.n);
	printf("STAT walkstorm denied_write_delta %ld\n", denied1 - denied0);
	verdict(CHECK_QUERY, &q);
	verdict(CHECK_EXEC, &e);
	wrong_verdict(CHECK_RULE, &rule);
	/* Each refused open is one denied write, nothing else is one. */
	if (!wr.bad && (denied0 < 0 || denied1 - denied0 != wr.n)) {
		wr.bad = 1;
		snprintf(wr.first, sizeof(wr.first), "stats' denied_write moved "
			 "from %ld to %ld for %d refused opens", denied0,
			 denied1, wr.n);
	}
	wrong_verdict(CHECK_WRITE, &wr);
	return q.failed || e.failed || q.max_ms > BOUND_MS ||
	       e.max_ms > BOUND_MS || q.done < MIN_DONE || e.done < MIN_DONE ||
	       rule.bad || rule.n < MIN_DONE || wr.bad || wr.n < MIN_DONE;
}

static void fail_both(const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	printf("FAIL %s: %s\n", CHECK_QUERY, why);
	printf("FAIL %s: %s\n", CHECK_EXEC, why);
	printf("FAIL %s: %s\n", CHECK_RULE, why);
	printf("FAIL %s: %s\n", CHECK_WRITE, why);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "depth", required_argument, NULL, 'd' },
		{ "renamers", required_argument, NULL, 'r' },
		{ "seconds", required_argument, NULL, 's' },
		{ "sfs", required_argument, NULL, 'f' },
		{ "bin", required_argument, NULL, 'b' },
		{ NULL, 0, NULL, 0 },
	};
	char rules[65600], mode[32], why[512];
	int c, bottom, rc = 1;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'd': depth = atoi(optarg); break;
		case 'r': renamers = atoi(optarg) < 8 ? atoi(optarg) : 8; break;
		case 's': seconds = atoi(optarg); break;
		case 'f': sfs = optarg; break;
		case 'b': bindir = optarg; break;
		default:
			fprintf(stderr, "usage: walkstorm [--depth N] [--renamers R] [--seconds S] [--sfs DIR] [--bin DIR]\n");
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("PLAN walkstorm 4\n");
	if (sfs_read("rules", rules, sizeof(rules)) ||
	    sfs_read("mode", mode, sizeof(mode))) {
		fail_both("cannot read %s: %s", sfs, strerror(errno));
		return 1;
	}
	remove_chain();
	bottom = build_chain(why, sizeof(why));
	if (bottom < 0) {
		fail_both("setup: %s", why);
	} else if (sfs_write("rules", "exec " TOP "\nlib " RULE_DIR "\n") ||
		   sfs_write("mode", "enforce")) {
		fail_both("policy: %s", strerror(errno));
	} else {
		rc = run(bottom);
	}
	if (bottom >= 0)
		close(bottom);
	if (sfs_write("rules", rules[0] ? rules : "\n") || sfs_write("mode", mode))
		fprintf(stderr, "walkstorm: cannot restore the policy: %s\n",
			strerror(errno));
	remove_chain();
	return rc;
}
