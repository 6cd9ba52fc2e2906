/* stress - races and stress cases against denywrite, with invariants.
 *
 *   stress [--kernel lsm|stock] [--only CASE[,CASE...]] [--bin DIR]
 *
 * Runs as root in the guest, on at least 2 CPUs, with denywrite active
 * (lsm) or on the classic kernel (stock: only the cases about executables).
 * Each case is time-bounded; after it, the invariants are checked: a write
 * open and an exec (or executable mapping) of the same file never both
 * succeeded (the user's view of the file's contents, and the times), no
 * process died of a signal it was not sent, stats' protected is back to
 * its baseline and every file is writable again.  Output: "PLAN stress N",
 * then one PASS/FAIL line per check and STAT lines with the figures;
 * diagnostics on stderr.  Exit 0 iff nothing failed, 2 on a usage error.
 */
#include "stress.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

enum kernel kernel = K_LSM;
int shm_fd = -1;
struct shm *shm;
static char bindir[PATH_MAX];

#define ALL_K (1u << K_LSM | 1u << K_STOCK)
#define LSM_K (1u << K_LSM)
#define RACE (CKB(CK_NEVER_BOTH) | CKB(CK_NO_SIGNAL) | CKB(CK_NO_UNEXPECTED) | \
	      CKB(CK_BASELINE) | CKB(CK_WRITABLE) | CKB(CK_CLOSE))
#define FLIPS (RACE | CKB(CK_FLIPPED))
#define CHURN (RACE & ~CKB(CK_NEVER_BOTH))
#define WINDOW (CKB(CK_WINDOW_DENIED) | CKB(CK_WINDOW_FINISH) | \
		CKB(CK_NO_SIGNAL) | CKB(CK_BASELINE) | CKB(CK_WRITABLE))
#define CONTROLS (CKB(CK_CTL_TORN) | CKB(CK_CTL_OVERLAP))
#define REFUSED (CKB(CK_NEVER_BOTH) | CKB(CK_NO_UNEXPECTED) | CKB(CK_REFUSED) | \
		 CKB(CK_BASELINE) | CKB(CK_WRITABLE))
#define SHARED (CKB(CK_NEVER_BOTH) | CKB(CK_NO_UNEXPECTED) | CKB(CK_ROUNDS) | \
		CKB(CK_BASELINE) | CKB(CK_WRITABLE))
#define MIN_SHARED 50
#define MODEOFF (CKB(CK_NO_UNEXPECTED) | CKB(CK_ROUNDS) | CKB(CK_BASELINE) | \
		 CKB(CK_WRITABLE))
#define MIN_MODEOFF 20
/* A flip case must have switched modes (one burst: audit, off, enforce)
 * and swapped policies during its races. */
#define MIN_MODE_WRITES 3
#define MIN_POLICY_WRITES 10

/*
 * The cases.  min_close is the least number of close rounds (a writer and
 * a user met: one of them, or both, was refused) a case must judge: with
 * fewer, the steering never settled where the two sides meet and the case
 * proved nothing.  Under TCG with the debug kernel a round costs a quarter
 * to half a second (an exec, a fork), so an 8 s case runs 12 to 60 rounds;
 * on a host busy with two other builds the slowest race cases judged 9 to
 * 17 close rounds.  The minimum is half of the least of those, so that a
 * pass does not hang on the host's load while a case that stopped meeting
 * still fails: 5.  The flip cases judge only rounds run entirely in
 * enforce mode under a covering policy, in 6 s: at least 2 (mapping with
 * forks judged 3 there).  Since a round is close only when both sides
 * were in flight (issue 20), mapping with forks and flips, whose round
 * takes half a second under TCG, judged 7 rounds in 6 s and none of them
 * close (the case without flips: 16 close of 37): it gets 12 s, and so
 * does the case without flips, which judged 3 close rounds of 10 in 8 s
 * on a host busy with two kernel builds.  In 12 s the flips case judged
 * 8 to 14 close rounds in whole suites, then once 1 of 25 (7 December
 * 2026; the stress group alone judged 2 of 21 on the code before and 3
 * and 7 after): it gets 20 s.  rule_churn counts runs during
 * which a rule changed (7 to 14 seen) and torn_exec rounds where a side
 * was refused (4 to 15; its window is the narrow one before them): at
 * least 3.
 * refused_uses_vs_open_writer counts refused mappings and execs: 1508 to
 * 2271 in 4 s; the code before the claims failed 17 writes in 2271 of
 * them.  At least 500.  one_file_mapped_by_threads_at_once ran 165 rounds
 * in 3 s on a quiet host: at least 50 in 4 s.
 */
static const struct scase cases[] = {
	/* name, run, kernels, checks, budget_ms, min_close,
	 * kind, payload, steer, flips, repeat, writers, users, hold_us */
	{ "exec_vs_writers", run_race, ALL_K, RACE, 8000, 5,
	  KIND_EXEC, PAY_MARK, STEER_OPEN, false, false, 2, 2, 2000 },
	{ "exit_vs_writer", run_race, ALL_K, RACE, 8000, 5,
	  KIND_EXIT, PAY_MARK, STEER_EXIT, false, false, 1, 1, 2000 },
	{ "mapping_forks_vs_writers", run_race, LSM_K, RACE, 12000, 5,
	  KIND_MAP, PAY_MARK, STEER_OPEN, false, true, 2, 3, 2000 },
	{ "dlopen_loop_vs_writers", run_race, LSM_K, RACE, 8000, 5,
	  KIND_DL, PAY_MARK, STEER_OPEN, false, false, 2, 2, 2000 },
	{ "exec_vs_writers_flips", run_race, LSM_K, FLIPS, 6000, 2,
	  KIND_EXEC, PAY_MARK, STEER_OPEN, true, false, 2, 2, 2000 },
	{ "exit_vs_writer_flips", run_race, LSM_K, FLIPS, 6000, 2,
	  KIND_EXIT, PAY_MARK, STEER_EXIT, true, false, 1, 1, 2000 },
	{ "mapping_forks_vs_writers_flips", run_race, LSM_K, FLIPS, 20000, 2,
	  KIND_MAP, PAY_MARK, STEER_OPEN, true, true, 2, 3, 2000 },
	{ "dlopen_loop_vs_writers_flips", run_race, LSM_K, FLIPS, 6000, 2,
	  KIND_DL, PAY_MARK, STEER_OPEN, true, false, 2, 2, 2000 },
	{ "rule_churn", run_churn, LSM_K, CHURN, 7000, 3,
	  KIND_EXEC, PAY_MARK, STEER_OPEN, false, false, 1, 2, 500 },
	{ "torn_exec", run_race, ALL_K, RACE | CKB(CK_NO_TORN), 8000, 3,
	  KIND_EXEC, PAY_ENTRY, STEER_CLOSE, false, false, 1, 1, 0 },
	{ "torn_exec_control", run_controls, LSM_K, CONTROLS, 0, 0,
	  KIND_EXEC, PAY_ENTRY, STEER_CLOSE, false, false, 0, 1, 200000 },
	{ "exec_open_window", run_window, ALL_K, WINDOW, 0, 0,
	  KIND_EXEC, PAY_MARK, STEER_OPEN, false, false, 0, 1, 0 },
	{ "refused_uses_vs_open_writer", run_refused, LSM_K, REFUSED, 4000, 500,
	  KIND_MAP, PAY_MARK, STEER_OPEN, false, false, 1, 3, 0 },
	{ "one_file_mapped_by_threads_at_once", run_shared, LSM_K, SHARED, 4000, MIN_SHARED,
	  KIND_MAP, PAY_MARK, STEER_OPEN, false, false, 0, 3, 0 },
	{ "deep_mappings_vs_mode_off", run_modeoff, LSM_K, MODEOFF, 4000, MIN_MODEOFF,
	  KIND_MAP, PAY_MARK, STEER_OPEN, true, false, 0, 2, 0 },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

/*
 * The run's checks of contention (issue 20): over the close rounds of every
 * race case (both sides in flight, one refused; see in_flight() in
 * stress_round.c), the writer must have won at least once and the user at
 * least once, and both sides may have been refused in at most
 * BOTH_FAILED_MAX_PCT percent of them.  Both are refused only when each
 * side's check falls into the other's few-microsecond window between
 * raising its own counter and reading the other's (protect.c); a kernel
 * that refuses too much when they meet (a claim held too long, a writer
 * or a protector that gives way whenever it sees the other coming) fails
 * far more of them, or never lets one side win.  Measured with the
 * old count of close rounds: 3 both-failed in 410 over the run; with
 * rounds in flight only, on this branch's kernel: 10 in 288 (3.5%), 4 in
 * 193 and 0 in 305 (two runs cut short), nearly all of them in the exit
 * cases (exit_vs_writer_flips: 5 in 13, 4 in 11), which make a fifth of
 * the close rounds; in a whole suite lsm, 7 in 299 (2.3%); the stock
 * kernel's single atomic counter failed none in 155.  10% leaves the run
 * a margin of three.  A kernel whose writer and protector each wait 3 ms
 * between raising their count and reading the other's (a mutant, not
 * kept) failed both sides in 76 of 380 (20%), while every other check
 * of stress passed.
 */
#define BOTH_FAILED_MAX_PCT 10
static const char *const run_checks[] = {
	"race_close_rounds_writer_won_at_least_once",
	"race_close_rounds_exec_won_at_least_once",
	"race_close_rounds_both_failed_at_most_10_percent",
};
#define N_RUN_CHECKS (sizeof(run_checks) / sizeof(run_checks[0]))

static int report_run(void)
{
	const struct race_totals *r = &race_totals;
	char why[200];
	int failed = 0;

	printf("STAT stress race_close_rounds %ld\n", r->close);
	printf("STAT stress race_writer_won %ld\n", r->writer_won);
	printf("STAT stress race_exec_won %ld\n", r->exec_won);
	printf("STAT stress race_both_failed %ld\n", r->both_failed);
	snprintf(why, sizeof(why), "%ld writer won, %ld exec won, %ld both "
		 "failed in %ld close rounds", r->writer_won, r->exec_won,
		 r->both_failed, r->close);
	failed += !r->writer_won;
	printf(r->writer_won ? "PASS %s\n" : "FAIL %s: %s\n", run_checks[0], why);
	failed += !r->exec_won;
	printf(r->exec_won ? "PASS %s\n" : "FAIL %s: %s\n", run_checks[1], why);
	if (!r->close || r->both_failed * 100 > r->close * BOTH_FAILED_MAX_PCT) {
		failed++;
		printf("FAIL %s: %s\n", run_checks[2], why);
	} else {
		printf("PASS %s\n", run_checks[2]);
	}
	return failed;
}

static const char *const check_suffix[CK_COUNT] = {
	[CK_NEVER_BOTH] = "never_both_succeed",
	[CK_NO_SIGNAL] = "no_process_killed_by_signal",
	[CK_NO_UNEXPECTED] = "no_unexpected_error",
	[CK_BASELINE] = "protected_count_back_to_baseline",
	[CK_WRITABLE] = "files_writable_after_reap",
	[CK_CLOSE] = "close_rounds_at_least_%d",
	[CK_FLIPPED] = "modes_and_policies_changed_during_races",
	[CK_NO_TORN] = "entry_run_matches_mapped_header",
	[CK_WINDOW_DENIED] = "write_denied_while_exec_copies_args",
	[CK_WINDOW_FINISH] = "exec_finishes_after_fault_resolved",
	[CK_CTL_TORN] = "detects_header_rewritten_in_mode_off",
	[CK_CTL_OVERLAP] = "detects_write_during_run_in_mode_off",
	[CK_REFUSED] = "refused_uses_at_least_%d",
	[CK_ROUNDS] = "rounds_at_least_%d",
};

static const char *const stat_key[ST_COUNT] = {
	[ST_ROUNDS] = "rounds",
	[ST_WRITER_WON] = "writer_won",
	[ST_EXEC_WON] = "exec_won",
	[ST_BOTH_FAILED] = "both_failed",
	[ST_APART] = "both_ok_apart",
	[ST_NOT_IN_FLIGHT] = "refused_not_in_flight",
	[ST_CLOSE] = "close_rounds",
	[ST_STRICT] = "judged_rounds",
	[ST_BOTH_SUCCEEDED] = "both_succeeded",
	[ST_TORN] = "torn_execs",
	[ST_KILLED] = "killed_by_signal",
	[ST_MODE_WRITES] = "mode_writes",
	[ST_POLICY_WRITES] = "policy_writes",
	[ST_RULE_WRITES] = "rule_writes",
	[ST_FORKS] = "forks",
	[ST_STILL_PROTECTED] = "still_protected_after_reap",
	[ST_LAG_MAX_US] = "release_lag_max_us",
	[ST_WINDOW_ERRNO] = "window_open_errno",
	[ST_REFUSED] = "refused_uses",
	[ST_WRITES] = "writes",
	[ST_MAPPINGS] = "mappings",
	[ST_MS] = "ms",
};

const char *bin(const char *name)
{
	static char buf[4][PATH_MAX + 64];
	static int slot;

	slot = (slot + 1) % 4;
	snprintf(buf[slot], sizeof(buf[slot]), "%s/%s", bindir, name);
	return buf[slot];
}

void bad(struct tally *t, enum check c, const char *fmt, ...)
{
	va_list ap;

	if (t->bad[c]++)
		return;
	va_start(ap, fmt);
	vsnprintf(t->why[c], sizeof(t->why[c]), fmt, ap);
	va_end(ap);
	one_line(t->why[c]);
	fprintf(stderr, "stress: %s\n", t->why[c]);
}

void st_add(struct tally *t, enum figure s, long n)
{
	t->st[s] += n;
	t->measured |= 1u << s;
}

void st_max(struct tally *t, enum figure s, long v)
{
	if (!(t->measured & 1u << s) || v > t->st[s])
		t->st[s] = v;
	t->measured |= 1u << s;
}

int make_target(const char *src, const char *dst)
{
	static const char mark[MARK_LEN] = "initial-marker..";
	int fd;

	if (copy_fresh(src, dst, 0755))
		return -1;
	fd = open(dst, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (write(fd, mark, MARK_LEN) != MARK_LEN) {
		close(fd);
		return -1;
	}
	return close(fd);
}

int sfs_write(const char *name, const char *text)
{
	char path[128];
	int fd, err = 0;

	snprintf(path, sizeof(path), SFS "/%s", name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		err = errno ? errno : EIO;
	close(fd);
	return err;
}

long read_stat(const char *key)
{
	char buf[1024], *p;
	size_t n = strlen(key);

	if (read_file(SFS "/stats", buf, sizeof(buf)))
		return -1;
	for (p = buf; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, n) && p[n] == ' ')
			return strtol(p + n + 1, NULL, 10);
	return -1;
}

void shm_reset(void)
{
	memset(shm->rec, 0, sizeof(shm->rec));
	atomic_store(&shm->spawned, 0);
	atomic_store(&shm->ready, 0);
	atomic_store(&shm->stop, 0);
}

long wait_writable(const char *path, int timeout_ms)
{
	long long start = now_us(), deadline = start + timeout_ms * 1000LL;

	for (;;) {
		if (probe_open(path, O_WRONLY) == 0)
			return (long)(now_us() - start);
		if (now_us() >= deadline)
			return -1;
		sleep_us(200);
	}
}

int shm_wait_event(bool (*done)(void *), void *arg, int timeout_ms)
{
	long long deadline = now_us() + timeout_ms * 1000LL;

	for (;;) {
		unsigned v = atomic_load(&shm->events);
		long long left = deadline - now_us();
		struct timespec ts = { left / 1000000, (left % 1000000) * 1000 };

		if (done(arg))
			return 0;
		if (left <= 0)
			return -1;
		syscall(SYS_futex, &shm->events, FUTEX_WAIT, v, &ts, NULL, 0);
	}
}

/* Sleep until a child changes state (SIGCHLD is blocked in every thread
 * and taken here) or the deadline passes. */
static void wait_sigchld(long long deadline)
{
	long long left = deadline - now_us();
	struct timespec ts = { left / 1000000, (left % 1000000) * 1000 };
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	if (left > 0)
		sigtimedwait(&set, NULL, &ts);
}

static bool in_codes(int code, const int *ok_codes)
{
	for (; ok_codes && *ok_codes >= 0; ok_codes++)
		if (*ok_codes == code)
			return true;
	return code == 0;
}

pid_t reap_one(struct tally *t, int timeout_ms, bool we_killed,
	       const int *ok_codes, int *code)
{
	long long deadline = now_us() + timeout_ms * 1000LL;
	int st;

	for (;;) {
		pid_t pid = waitpid(-1, &st, WNOHANG);

		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0)
			return -1;
		if (pid > 0) {
			if (code)
				*code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
			if (WIFSIGNALED(st) && we_killed)
				bad(t, CK_NO_UNEXPECTED, "pid %d timed out and was killed", pid);
			else if (WIFSIGNALED(st)) {
				st_add(t, ST_KILLED, 1);
				bad(t, CK_NO_SIGNAL, "pid %d died of signal %d (%s)",
				    pid, WTERMSIG(st), strsignal(WTERMSIG(st)));
			} else if (!in_codes(WEXITSTATUS(st), ok_codes))
				bad(t, CK_NO_UNEXPECTED, "pid %d exited with %d",
				    pid, WEXITSTATUS(st));
			return pid;
		}
		if (now_us() >= deadline)
			return 0;
		wait_sigchld(deadline);
	}
}

void kill_children(void)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	pid_t me = getpid();

	while (d && (de = readdir(d))) {
		char path[64], buf[512], *p;
		pid_t pid = atoi(de->d_name), ppid;

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		if (read_file(path, buf, sizeof(buf)) || !(p = strrchr(buf, ')')))
			continue;
		if (sscanf(p + 2, "%*c %d", &ppid) == 1 && ppid == me) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
		}
	}
	if (d)
		closedir(d);
}

void reap_rest(struct tally *t, int timeout_ms)
{
	pid_t r;

	while ((r = reap_one(t, timeout_ms, false, NULL, NULL)) > 0)
		;
	if (r == 0) {
		kill_children();
		while (reap_one(t, 2000, true, NULL, NULL) > 0)
			;
	}
}

/* --- driver ------------------------------------------------------------ */

/* Is name one of the comma-separated names in list? */
static bool listed(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] != 0))
		if (strcspn(p, ",") == n && !strncmp(p, name, n))
			return true;
	return false;
}

static bool selected(const struct scase *c, const char *only)
{
	return (c->kernels & 1u << kernel) && (!only || listed(only, c->name));
}

/* Is every name in only a case?  0, or -1 after saying so. */
static int check_only(const char *only)
{
	size_t names = 1, known = 0;

	if (!only)
		return 0;
	for (const char *p = only; *p; p++)
		names += *p == ',';
	for (size_t i = 0; i < NCASES; i++)
		known += listed(only, cases[i].name);
	if (known == names)
		return 0;
	fprintf(stderr, "stress: --only %s: not every name is a case\n", only);
	return -1;
}

static unsigned checks_of(const struct scase *c)
{
	return kernel == K_LSM ? c->checks : c->checks & ~LSM_ONLY_CHECKS;
}

static int emit(const struct scase *c, enum check k, bool pass, const char *why)
{
	char suffix[64];

	snprintf(suffix, sizeof(suffix), check_suffix[k], c->min_close);
	if (pass)
		printf("PASS %s_%s\n", c->name, suffix);
	else
		printf("FAIL %s_%s: %s\n", c->name, suffix, why);
	return !pass;
}

/* Print the case's checks and figures; returns the number of FAILs. */
static int report(const struct scase *c, const struct tally *t)
{
	unsigned mask = checks_of(c);
	int failed = 0;
	char why[300];

	for (enum figure s = 0; s < ST_COUNT; s++)
		if (t->measured & 1u << s)
			printf("STAT stress %s_%s %ld\n", c->name, stat_key[s], t->st[s]);
	for (enum check k = 0; k < CK_COUNT; k++) {
		if (!(mask & CKB(k)))
			continue;
		if (k == CK_FLIPPED && !t->bad[k]) {
			snprintf(why, sizeof(why), "%ld mode and %ld policy writes, want %d and %d",
				 t->st[ST_MODE_WRITES], t->st[ST_POLICY_WRITES],
				 MIN_MODE_WRITES, MIN_POLICY_WRITES);
			failed += emit(c, k, t->st[ST_MODE_WRITES] >= MIN_MODE_WRITES &&
					     t->st[ST_POLICY_WRITES] >= MIN_POLICY_WRITES, why);
			continue;
		}
		if (k == CK_ROUNDS && !t->bad[k]) {
			snprintf(why, sizeof(why), "%ld rounds, fewer than %d",
				 t->st[ST_ROUNDS], c->min_close);
			failed += emit(c, k, t->st[ST_ROUNDS] >= c->min_close, why);
			continue;
		}
		if (k == CK_CLOSE && !t->bad[k]) {
			snprintf(why, sizeof(why), "%ld close rounds judged, fewer than %d",
				 t->st[ST_CLOSE], c->min_close);
			failed += emit(c, k, t->st[ST_CLOSE] >= c->min_close, why);
			continue;
		}
		snprintf(why, sizeof(why), "%ld time%s: %s", t->bad[k],
			 t->bad[k] == 1 ? "" : "s", t->why[k]);
		failed += emit(c, k, !t->bad[k], why);
	}
	return failed;
}

/* protected back to baseline within 2 s of the case's end. */
static void check_baseline(struct tally *t, long baseline)
{
	long long deadline = now_us() + 2000000;
	long now;

	if (kernel != K_LSM)
		return;
	while ((now = read_stat("protected")) != baseline && now_us() < deadline)
		sleep_us(1000);
	if (now != baseline)
		bad(t, CK_BASELINE, "stats says protected %ld, %ld before the case",
		    now, baseline);
}

/* FAIL every check of c (it could not run). */
static int fail_case(const struct scase *c, const char *why)
{
	int failed = 0;

	for (enum check k = 0; k < CK_COUNT; k++)
		if (checks_of(c) & CKB(k))
			failed += emit(c, k, false, why);
	return failed;
}

static int run_case(const struct scase *c, bool *fatal)
{
	struct tally t;
	long long start = now_us();
	long baseline = 0;
	int err;

	memset(&t, 0, sizeof(t));
	shm_reset();
	/* Mode off first drops the holds from before (README, "Modes"). */
	if (kernel == K_LSM && ((err = sfs_write("mode", "off")) ||
				(err = sfs_write("mode", "enforce")) ||
				(err = sfs_write("rules", POLICY_BASE))))
		bad(&t, CK_NO_UNEXPECTED, "setting the policy: %s", errtxt(err));
	if (kernel == K_LSM)
		baseline = read_stat("protected");
	if (baseline < 0)
		bad(&t, CK_BASELINE, "cannot read " SFS "/stats");
	c->run(c, &t);
	reap_rest(&t, 5000);
	check_baseline(&t, baseline);
	st_add(&t, ST_MS, (long)((now_us() - start) / 1000));
	fprintf(stderr, "stress: %s: %ld ms\n", c->name, t.st[ST_MS]);
	*fatal = t.fatal;
	return report(c, &t);
}

static int cpu_count(void)
{
	cpu_set_t set;
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	int n;

	if (sched_getaffinity(0, sizeof(set), &set))
		return (int)online;
	n = CPU_COUNT(&set);
	return online < n ? (int)online : n;
}

static char saved_rules[65537], saved_mode[32];

static void save_policy(void)
{
	if (kernel == K_LSM && (read_file(SFS "/rules", saved_rules, sizeof(saved_rules)) ||
				read_file(SFS "/mode", saved_mode, sizeof(saved_mode))))
		fprintf(stderr, "stress: cannot read the policy: %s\n", errtxt(errno));
}

static void restore_policy(void)
{
	if (kernel != K_LSM)
		return;
	if (sfs_write("rules", saved_rules[0] ? saved_rules : "\n") ||
	    sfs_write("mode", saved_mode))
		fprintf(stderr, "stress: cannot restore the policy\n");
}

static char saved_printk[64];

/* Audit records of refusals are KERN_NOTICE: at the guest's console
 * loglevel 8 each is written to the emulated serial console, which slows
 * the races down to a few rounds a second.  Level 5 keeps warnings and
 * splats on the console and the records in the kernel log. */
static void quiet_console(bool quiet)
{
	char level[16];
	int fd;

	if (quiet && read_file("/proc/sys/kernel/printk", saved_printk, sizeof(saved_printk)))
		return;
	if (!saved_printk[0])
		return;
	snprintf(level, sizeof(level), "%.*s", quiet ? 1 : (int)strcspn(saved_printk, " \t"),
		 quiet ? "5" : saved_printk);
	fd = open("/proc/sys/kernel/printk", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, level, strlen(level)) < 0)
		fprintf(stderr, "stress: console loglevel: %s\n", errtxt(errno));
	if (fd >= 0)
		close(fd);
}

static int setup(void)
{
	sigset_t set;

	/* Before any thread: children are reaped through sigtimedwait. */
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -1;
	shm_fd = memfd_create("stress-shm", 0); /* inherited: no CLOEXEC */
	if (shm_fd < 0 || ftruncate(shm_fd, sizeof(struct shm)))
		return -1;
	shm = mmap(NULL, sizeof(*shm), PROT_READ | PROT_WRITE, MAP_SHARED, shm_fd, 0);
	if (shm == MAP_FAILED)
		return -1;
	/* Orphans (children of a mapper that exited first) come back to us. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1))
		return -1;
	return mkdir_p(WORK, 0755);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: stress [--kernel lsm|stock] [--only CASE[,CASE...]] [--bin DIR]\ncases:");
	for (size_t i = 0; i < NCASES; i++)
		fprintf(f, " %s", cases[i].name);
	fprintf(f, "\n");
}

static int parse_args(int argc, char **argv, const char **only)
{
	static const struct option opts[] = {
		{ "kernel", required_argument, NULL, 'k' },
		{ "only", required_argument, NULL, 'o' },
		{ "bin", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int o;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (o == 'k' && (!strcmp(optarg, "lsm") || !strcmp(optarg, "stock")))
			kernel = strcmp(optarg, "lsm") ? K_STOCK : K_LSM;
		else if (o == 'o')
			*only = optarg;
		else if (o == 'b')
			snprintf(bindir, sizeof(bindir), "%s", optarg);
		else {
			usage(o == 'h' ? stdout : stderr);
			return o == 'h' ? 0 : 2;
		}
	}
	if (optind != argc || check_only(*only)) {
		usage(stderr);
		return 2;
	}
	return -1;
}

int main(int argc, char **argv)
{
	const char *only = NULL;
	long long start = now_us();
	int planned = 1, failed = 0, cpus, r;
	bool fatal = false, races = false;
	char *slash, why[128] = "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (readlink("/proc/self/exe", bindir, sizeof(bindir) - 1) > 0 &&
	    (slash = strrchr(bindir, '/')))
		*slash = '\0';
	if ((r = parse_args(argc, argv, &only)) >= 0)
		return r;
	for (size_t i = 0; i < NCASES; i++) {
		if (!selected(&cases[i], only))
			continue;
		planned += __builtin_popcount(checks_of(&cases[i]));
		races |= cases[i].run == run_race;
	}
	planned += races ? (int)N_RUN_CHECKS : 0;
	printf("PLAN stress %d\n", planned);
	cpus = cpu_count();
	if (cpus >= 2)
		printf("PASS stress_runs_on_at_least_2_cpus\n");
	else
		printf("FAIL stress_runs_on_at_least_2_cpus: %d CPU usable\n", cpus);
	failed += cpus < 2;
	if (setup()) {
		snprintf(why, sizeof(why), "not run: setup: %s", errtxt(errno));
		fatal = true;
	}
	save_policy();
	quiet_console(true);
	for (size_t i = 0; i < NCASES; i++) {
		if (!selected(&cases[i], only))
			continue;
		if (fatal)
			failed += fail_case(&cases[i], why);
		else
			failed += run_case(&cases[i], &fatal);
		if (fatal && !why[0])
			snprintf(why, sizeof(why), "not run: a thread of %s never ended",
				 cases[i].name);
	}
	if (races)
		failed += report_run();
	quiet_console(false);
	restore_policy();
	rm_rf(WORK);
	printf("STAT stress total_ms %lld\n", (now_us() - start) / 1000);
	return failed ? 1 : 0;
}
