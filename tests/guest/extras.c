/* extras.c - lsm-only tests run once, outside the matrix, each with its
 * own rule set (dwtest restores the boot default policy at the end). */
#include "dwtest.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define EXE DW_DIR "/exe"
#define OPTOUT DW_DIR "/optout"
#define OPTEXE OPTOUT "/exe"
#define RACE_EXE DW_DIR "/race-exe"
#define RACE_ITERATIONS 200
#define RACE_BUDGET_US 8000000LL /* stay under 10 s even under QEMU TCG */

#define IW_RULE "[exec,ignore-writers " OPTOUT "]"
#define IW_EXEC "ignore_writers_allows_exec_with_writer_allowed_in_enforce" IW_RULE
#define IW_NEWW "ignore_writers_new_writer_denied_in_enforce" IW_RULE
#define IW_CTRL "ignore_writers_control_exec_with_writer_denied_in_enforce[exec " OPTOUT "]"
#define RACE "exec_race_never_both_succeed_denied_in_enforce[exec /]"
#define CM_ENF "counters_match_denied_in_enforce[exec /]"
#define CM_AUD "counters_match_allowed_in_audit[exec /]"
#define AUDIT "audit_mode_logs_and_allows_allowed_in_audit[exec /]"

/* Apply a policy and read the stats; on failure FAIL every check left. */
static int policy_and_stats(const char *flag, const char *path,
			    const char *mode, struct stats *s)
{
	char why[768];

	if (apply_policy(flag, path, mode, why, sizeof(why))) {
		fail_rest("policy not applied: %s", why);
		return -1;
	}
	if (read_stats(s, why, sizeof(why))) {
		fail_rest("stats: %s", why);
		return -1;
	}
	return 0;
}

/* FAIL name if the counters did not move as exp says, else PASS. */
static void check_counters(const char *name, const struct stats *before,
			   const struct deltas *exp)
{
	struct stats after;
	char why[512];
	const char *bad;

	if (read_stats(&after, why, sizeof(why)))
		emit_check(name, false, "stats: %s", why);
	else if ((bad = check_deltas(before, &after, exp)))
		emit_check(name, false, "counters: %s", bad);
	else
		emit_check(name, true, "%s", "");
}

/* Hold an O_WRONLY fd on OPTEXE (fresh copy) and execve it.  Returns the
 * exec errno (0 = it runs: then *pr is running and *writer still open). */
static int exec_with_writer(struct proc *pr, int *writer, char *why,
			    size_t whylen)
{
	int exec_err;

	*writer = -1;
	pr->pid = pr->ready = pr->out = -1;
	if (copy_fresh(bin("sleeper"), OPTEXE, 0755) ||
	    (*writer = open(OPTEXE, O_WRONLY | O_CLOEXEC)) < 0) {
		snprintf(why, whylen, "setup %s: %s", OPTEXE, errtxt(errno));
		return -1;
	}
	if (spawn_ready(pr, OPTEXE, OPTEXE, NULL, &exec_err, why, whylen) == 0)
		return 0;
	return exec_err ? exec_err : -1;
}

static void ignore_writers(void)
{
	struct deltas none = { { 0 }, 0 }, one_write = { { 1, 0, 0, 0 }, 0 },
		      one_exec = { { 0, 0, 1, 0 }, 0 };
	struct stats s;
	struct proc pr;
	int writer, e;
	char why[512];

	if (mkdir_p(OPTOUT, 0755)) {
		fail_rest("mkdir %s: %s", OPTOUT, errtxt(errno));
		return;
	}
	if (policy_and_stats("--exec --ignore-writers", OPTOUT, "enforce", &s))
		return;
	e = exec_with_writer(&pr, &writer, why, sizeof(why));
	if (e) {
		emit_check(IW_EXEC, false, "execve with a writer: %s",
			   e > 0 ? errtxt(e) : why);
		emit_check(IW_NEWW, false, "not run: the execve failed");
	} else {
		check_counters(IW_EXEC, &s, &none);
		read_stats(&s, why, sizeof(why));
		e = probe_open(OPTEXE, O_WRONLY);
		if (e != ETXTBSY)
			emit_check(IW_NEWW, false,
				   "new O_WRONLY open while it runs: expected ETXTBSY, got %s",
				   errtxt(e));
		else
			check_counters(IW_NEWW, &s, &one_write);
	}
	if (writer >= 0)
		close(writer);
	proc_kill(&pr);

	/* control: the same file under a plain exec rule */
	if (policy_and_stats("--exec", OPTOUT, "enforce", &s))
		return;
	e = exec_with_writer(&pr, &writer, why, sizeof(why));
	if (e != ETXTBSY)
		emit_check(IW_CTRL, false, "execve with a writer: expected ETXTBSY, got %s",
			   e < 0 ? why : errtxt(e));
	else
		check_counters(IW_CTRL, &s, &one_exec);
	if (writer >= 0)
		close(writer);
	proc_kill(&pr);
}

/* The racing writer: on 'G' wait (delay) us, open RACE_EXE O_WRONLY, report
 * the errno, hold the fd until the driver closes the command pipe. */
static void race_writer(int cmd, int res, void *arg)
{
	long delay = *(const long *)arg;
	char c;
	int e, fd = -1;

	if (read(cmd, &c, 1) != 1)
		_exit(1);
	for (long long until = now_us() + delay; now_us() < until;)
		; /* spin: nanosleep's timer slack is coarser than the race */
	fd = open(RACE_EXE, O_WRONLY | O_CLOEXEC);
	e = fd < 0 ? errno : 0;
	send_ints(res, &e, 1);
	while (read(cmd, &c, 1) > 0)
		;
	_exit(0);
}

/*
 * The counters after the race.  A refused exec is counted where it is
 * refused, exactly.  A writer is refused by exec's denial in the VFS,
 * which then calls write_access_denied, where the refusal is counted
 * while the exec's hold is up (it is, until the round ends): every writer
 * refused is counted (race_writer_refusals_uncounted is 0).  The check
 * below allows fewer only by the rounds the exec won; the manifest holds
 * the stat to 0.
 */
static void race_counters(const struct stats *before, int wden, int eden,
			  int ewon)
{
	struct stats after;
	long long w, e, other = 0;
	char why[512];

	if (read_stats(&after, why, sizeof(why))) {
		emit_check(RACE, false, "stats after: %s", why);
		return;
	}
	w = after.v[ST_DENIED_WRITE] - before->v[ST_DENIED_WRITE];
	e = after.v[ST_DENIED_EXEC] - before->v[ST_DENIED_EXEC];
	for (int k = ST_DENIED_TRUNCATE; k <= ST_AUDITED; k++)
		if (k != ST_DENIED_EXEC)
			other += after.v[k] - before->v[k];
	emit_stat("race_writer_refusals_uncounted", "%lld", wden - w);
	if (e != eden || other || w > wden || w < wden - ewon)
		emit_check(RACE, false, "counters: denied_write %+lld (%d refused, "
			   "%d of them racing a successful exec), denied_exec "
			   "%+lld (expected %+d), others %+lld (expected +0)",
			   w, wden, ewon, e, eden, other);
	else
		emit_check(RACE, true, "%s", "");
}

static void exec_race(void)
{
	long long start = now_us();
	long delay = 100; /* writer delay (us), steered to where the race is close */
	int iters = 0, both = 0, odd = 0, wden = 0, eden = 0, wwon = 0, ewon = 0;
	struct stats s;
	char why[512], first_odd[1024] = "";

	if (policy_and_stats("--exec", "/", "enforce", &s))
		return;
	for (; iters < RACE_ITERATIONS && now_us() - start < RACE_BUDGET_US; iters++) {
		char *argv[] = { RACE_EXE, NULL };
		long wait = delay + (iters % 5) * 10; /* plus a little jitter */
		struct helper w = { -1, -1, -1 };
		struct proc e = { -1, -1, -1 };
		int go[2], werr = -1, exec_err = 0, exec_ok;

		if (copy_fresh(bin("sleeper"), RACE_EXE, 0755) || pipe2(go, O_CLOEXEC)) {
			snprintf(first_odd, sizeof(first_odd), "setup: %s", errtxt(errno));
			odd++;
			break;
		}
		if (helper_start(&w, race_writer, &wait) ||
		    proc_spawn(&e, RACE_EXE, argv, 0, go[0])) {
			snprintf(why, sizeof(why), "fork: %s", errtxt(errno));
			exec_ok = 0;
			odd++;
		} else {
			/* release both: the writer (which waits `wait` us first),
			 * then the exec */
			if (helper_send(&w, 'G') || write(go[1], "G", 1) != 1)
				odd++;
			if (helper_recv(&w, &werr, 1, WAIT_MS))
				werr = -1;
			exec_ok = proc_wait_ready(&e, RACE_EXE, NULL, WAIT_MS, &exec_err,
						  why, sizeof(why)) == 0;
		}
		close(go[0]);
		close(go[1]);
		wden += werr == ETXTBSY;
		eden += exec_err == ETXTBSY;
		if (werr == 0 && exec_ok) {
			if (!both++)
				snprintf(first_odd, sizeof(first_odd),
					 "iteration %d: the write open was held while the execve succeeded",
					 iters);
		} else if (werr == 0 && exec_err == ETXTBSY) {
			wwon++; /* the writer was early: let it wait longer */
			delay += 10 + delay / 8;
		} else if (exec_ok && werr == ETXTBSY) {
			ewon++;
			delay -= delay < 10 + delay / 8 ? delay : 10 + delay / 8;
		} else if (!(werr == ETXTBSY && exec_err == ETXTBSY)) {
			if (!odd++ && !first_odd[0])
				snprintf(first_odd, sizeof(first_odd),
					 "iteration %d: write open %s, execve %s",
					 iters, werr < 0 ? "no answer" : errtxt(werr),
					 exec_ok ? "ok" : why);
		}
		proc_kill(&e);
		helper_stop(&w);
	}
	emit_stat("race_rounds", "%d", iters);
	emit_stat("race_seconds", "%.1f", (double)(now_us() - start) / 1e6);
	emit_stat("race_writer_first", "%d", wwon);
	emit_stat("race_exec_first", "%d", ewon);
	emit_stat("race_both_succeeded", "%d", both);
	emit_stat("race_odd", "%d", odd);
	if (both || odd) {
		emit_check(RACE, false, "%d of %d iterations had both succeed, %d odd; %s",
			   both, iters, odd, first_odd);
	} else {
		race_counters(&s, wden, eden, ewon);
	}
}

/* N denied writes in enforce, then M audited ones, on one running exe. */
static void counters_match(void)
{
	enum { N = 3, M = 2 };
	struct deltas enf = { { N, 0, 0, 0 }, 0 }, aud = { { 0 }, M };
	struct stats s;
	struct proc pr;
	char why[768];
	int bad = 0, e = 0;

	if (policy_and_stats("--exec", "/", "enforce", &s))
		return;
	if (start_copy(&pr, bin("sleeper"), EXE, why, sizeof(why))) {
		fail_rest("setup: %s", why);
		return;
	}
	for (int i = 0; i < N; i++)
		if ((e = probe_open(EXE, O_WRONLY)) != ETXTBSY)
			bad = e ? e : -1;
	if (bad)
		emit_check(CM_ENF, false, "a write open of the running exe got %s",
			   bad > 0 ? errtxt(bad) : "success");
	else
		check_counters(CM_ENF, &s, &enf);

	if (cli(why, sizeof(why), "mode", "audit", NULL, NULL) ||
	    read_stats(&s, why, sizeof(why))) {
		emit_check(CM_AUD, false, "%s", why);
	} else {
		bad = 0;
		for (int i = 0; i < M; i++)
			if ((e = probe_open(EXE, O_WRONLY)) != 0)
				bad = e;
		if (bad)
			emit_check(CM_AUD, false, "a write open in audit mode got %s",
				   errtxt(bad));
		else
			check_counters(CM_AUD, &s, &aud);
	}
	proc_kill(&pr);
}

static void audit_logs_and_allows(void)
{
	struct deltas one = { { 0 }, 1 };
	struct stats s;
	struct klog kl = { -1 };
	struct proc pr;
	char why[768];
	int e;

	if (policy_and_stats("--exec", "/", "audit", &s))
		return;
	if (start_copy(&pr, bin("sleeper"), EXE, why, sizeof(why)) ||
	    klog_mark(&kl, why, sizeof(why))) {
		fail_rest("setup: %s", why);
		proc_kill(&pr);
		return;
	}
	e = probe_open(EXE, O_WRONLY);
	if (e)
		emit_check(AUDIT, false, "write open in audit mode: %s", errtxt(e));
	else if (klog_wait(&kl, "write", 3000, why, sizeof(why)))
		emit_check(AUDIT, false, "%s", why);
	else
		check_counters(AUDIT, &s, &one);
	klog_close(&kl);
	proc_kill(&pr);
}

static const char *const iw_checks[] = { IW_EXEC, IW_NEWW, IW_CTRL, NULL };
static const char *const race_checks[] = { RACE, NULL };
static const char *const cm_checks[] = { CM_ENF, CM_AUD, NULL };
static const char *const audit_checks[] = { AUDIT, NULL };

const struct extra extras[] = {
	{ "ignore_writers_allows_exec_with_writer", iw_checks, ignore_writers, 30000 },
	{ "exec_race_never_both_succeed", race_checks, exec_race, 30000 },
	{ "counters_match", cm_checks, counters_match, 30000 },
	{ "audit_mode_logs_and_allows", audit_checks, audit_logs_and_allows, 30000 },
};
const size_t n_extras = sizeof(extras) / sizeof(extras[0]);
