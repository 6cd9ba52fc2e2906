/* stress_round.c - the round engine of the race cases.
 *
 * A case runs rounds until its budget is spent.  In a round, writer
 * threads and users of one file (exec'd twoface programs, a process that
 * maps the file PROT_EXEC and forks, persistent stressdl processes that
 * dlopen it) are released at once through the shared futex word; each
 * side first spins a delay.  The delays are steered, round by round, to
 * where the outcome flips, so that the two sides meet.  After the round,
 * everything is reaped and judged:
 * - a user that ran and a writer that got the file must not have held it
 *   at the same time, and no user may have seen the file change (its
 *   marker, or e_entry) while it held it;
 * - each side ended in success or ETXTBSY, nothing else;
 * - the file is writable again once everything is reaped.
 * With flips, a thread switches modes and swaps whole policies during the
 * case; only rounds that ran entirely in enforce mode under a covering
 * policy (two such policies are swapped all the time) are judged for the
 * first invariant.
 */
#include "stress.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_WRITERS 4
#define MAX_ATTEMPTS 128
#define ROUND_MS 5000
#define REPEAT_GAP_US 300
#define MIN_STEP_US 4
#define MAX_STEP_US 40000 /* an exec takes tens of ms under TCG */
#define MAX_LEAD_US 200000
#define MIN_SPAN_US 50

/* The flips: enforce under POLICY_BASE or POLICY_ALL (judged), then a
 * burst of audit, off and a policy that covers none of our files. */
#define POLICY_ALL "all /\n"
#define POLICY_NONE "exec /usr/sbin\n"
#define STRICT_SWAPS 24
#define FLIP_GAP_US 2000

struct engine;

struct writer {
	pthread_t th;
	struct engine *e;
	int idx;
	unsigned gen0;	  /* the generation before its first round */
	unsigned delay_us;
	struct wattempt a[MAX_ATTEMPTS];
	int n;
	unsigned long seq;
	_Atomic int done;
};

struct flipper {
	pthread_t th;
	_Atomic int stop;
	_Atomic int strict_now; /* enforce under a covering policy */
	_Atomic long burst;	/* bursts of other states begun */
	long mode_writes, policy_writes;
	int err;
	char what[64];
};

struct engine {
	const struct scase *c;
	struct tally *t;
	char path[PATH_MAX];
	long long size;
	unsigned gen;
	int nwriters;
	struct writer w[MAX_WRITERS];
	_Atomic int users_done;
	_Atomic unsigned toggles;
	unsigned char entry_lo[2]; /* PAY_ENTRY: e_entry's low byte, A and B */
	long d, step;		   /* steering: writer's lead over the users */
	int last_dir;
	bool calibrated;
	long long t_release;	   /* when the round was released */
	unsigned rng;
	bool stuck;	/* end the case: something did not finish */
	bool writer_stuck;
	long refused;	/* users refused with ETXTBSY */
	struct flipper f;
};

static unsigned rnd(struct engine *e)
{
	e->rng ^= e->rng << 13;
	e->rng ^= e->rng >> 17;
	e->rng ^= e->rng << 5;
	return e->rng;
}

static long jitter(struct engine *e, long span)
{
	return span > 0 ? (long)(rnd(e) % (unsigned)(2 * span + 1)) - span : 0;
}

static unsigned clamp_delay(long us)
{
	return us < 0 ? 0 : us > 200000 ? 200000 : (unsigned)us;
}

/* --- writers ----------------------------------------------------------- */

static void pay(struct writer *w, int fd, struct wattempt *a)
{
	struct engine *e = w->e;
	long long until = now_us() + e->c->hold_us;
	char m[MARK_LEN + 1];

	if (e->c->payload == PAY_ENTRY) {
		unsigned char b = e->entry_lo[(atomic_fetch_add(&e->toggles, 1) + 1) & 1];

		if (pwrite(fd, &b, 1, ENTRY_BYTE_OFF) != 1)
			a->write_err = errno;
		return;
	}
	do {
		snprintf(m, sizeof(m), "w%01u-%013lu", (unsigned)w->idx % 10,
			 ++w->seq % 10000000000000UL);
		if (pwrite(fd, m, MARK_LEN, e->size - MARK_LEN) != MARK_LEN)
			a->write_err = errno;
	} while (now_us() < until);
}

static void attempt(struct writer *w)
{
	struct wattempt *a = &w->a[w->n++];
	int fd;

	memset(a, 0, sizeof(*a));
	a->t_try = now_us();
	fd = open(w->e->path, O_WRONLY | O_CLOEXEC);
	a->t_got = now_us();
	if (fd < 0) {
		a->err = errno;
		return;
	}
	a->t_open = now_us();
	pay(w, fd, a);
	a->t_close = now_us();
	close(fd);
}

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	struct engine *e = w->e;

	for (unsigned g = w->gen0 + 1; !shm_wait_go(shm, g); g++) {
		shm_spin_us(w->delay_us);
		w->n = 0;
		attempt(w);
		while (e->c->repeat && !atomic_load(&e->users_done) &&
		       w->n < MAX_ATTEMPTS) {
			sleep_us(REPEAT_GAP_US);
			attempt(w);
		}
		atomic_store(&w->done, 1);
		shm_post(shm);
	}
	return NULL;
}

/* --- the flipper ------------------------------------------------------- */

static void flip(struct flipper *f, const char *file, const char *text,
		 long *count)
{
	int err = sfs_write(file, text);

	(*count)++;
	if (err && !f->err) {
		f->err = err;
		snprintf(f->what, sizeof(f->what), "%s <- %.20s", file, text);
	}
	sleep_us(FLIP_GAP_US);
}

static void *flipper_main(void *arg)
{
	struct flipper *f = arg;

	while (!atomic_load(&f->stop)) {
		for (int i = 0; i < STRICT_SWAPS && !atomic_load(&f->stop); i++)
			flip(f, "rules", i & 1 ? POLICY_ALL : POLICY_BASE,
			     &f->policy_writes);
		atomic_store(&f->strict_now, 0);
		atomic_fetch_add(&f->burst, 1);
		flip(f, "mode", "audit", &f->mode_writes);
		flip(f, "mode", "off", &f->mode_writes);
		flip(f, "rules", POLICY_NONE, &f->policy_writes);
		flip(f, "mode", "enforce", &f->mode_writes);
		flip(f, "rules", POLICY_BASE, &f->policy_writes);
		atomic_store(&f->strict_now, 1);
	}
	return NULL;
}

/* --- users ------------------------------------------------------------- */

static void look_mapped(const char *p, long long size, char *out)
{
	memset(out, 0, MARK_LEN + 1);
	for (int i = 0; i < MARK_LEN; i++)
		out[i] = ((const volatile char *)p)[size - MARK_LEN + i];
}

/* Hold the mapping p for hold_us, looking at the marker, into slot r. */
static void hold_mapping(struct shm_rec *r, const char *p, long long size,
			 long hold_us)
{
	char now[MARK_LEN + 1];

	look_mapped(p, size, r->mark);
	r->t_start = now_us();
	shm_set_state(shm, r, REC_ALIVE);
	do {
		look_mapped(p, size, now);
		r->changes += memcmp(now, r->mark, MARK_LEN) != 0;
	} while (now_us() < r->t_start + hold_us);
	r->t_end = now_us();
	shm_set_state(shm, r, REC_DONE);
}

/* The mapper (a forked child): map the file PROT_EXEC, close it, fork
 * c->users children that use the mapping a while, and exit before the
 * last of them (they come back to us: we are a subreaper). */
static _Noreturn void mapper(struct engine *e, unsigned gen)
{
	const struct scase *c = e->c;
	struct shm_rec *r = &shm->rec[0];
	int fd, err = 0;
	char *p = MAP_FAILED;

	if (shm_wait_go(shm, gen))
		_exit(2);
	shm_spin_us(r->delay_us);
	r->t_try = now_us();
	fd = open(e->path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		p = mmap(NULL, e->size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	r->t_got = now_us();
	if (fd < 0 || p == MAP_FAILED)
		err = errno;
	if (fd >= 0)
		close(fd);
	if (err) {
		r->err = err;
		shm_set_state(shm, r, REC_FAILED);
		_exit(0);
	}
	for (int i = 1; i <= c->users; i++) {
		pid_t pid;

		atomic_fetch_add(&shm->spawned, 1);
		pid = fork();
		if (pid == 0) {
			hold_mapping(&shm->rec[i], p, e->size, c->hold_us);
			shm->rec[i].t_gone = now_us();
			_exit(0);
		}
		if (pid < 0)
			atomic_fetch_sub(&shm->spawned, 1);
		if (i == 1)
			hold_mapping(r, p, e->size, c->hold_us / c->users);
		else
			shm_spin_us(c->hold_us / c->users);
	}
	/* Our mapping, and the hold, lasted until now (record 0 is ours). */
	if (atomic_load(&r->state) == REC_DONE)
		r->t_gone = now_us();
	_exit(0);
}

static pid_t spawn_mapper(struct engine *e, unsigned gen)
{
	pid_t pid;

	atomic_fetch_add(&shm->spawned, 1);
	pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		mapper(e, gen);
	}
	if (pid < 0)
		atomic_fetch_sub(&shm->spawned, 1);
	return pid;
}

static bool helpers_ready(void *arg)
{
	return (int)atomic_load(&shm->ready) >= *(const int *)arg;
}

static int start_dl_helpers(struct engine *e)
{
	char fd[16], slot[16], hold[16];

	snprintf(fd, sizeof(fd), "%d", shm_fd);
	snprintf(hold, sizeof(hold), "%d", e->c->hold_us);
	for (int i = 0; i < e->c->users; i++) {
		char *argv[] = { (char *)bin("stressdl"), "loop", fd, slot, hold,
				 e->path, NULL };
		pid_t pid;

		snprintf(slot, sizeof(slot), "%d", i);
		pid = fork();
		if (pid == 0) {
			setpgid(0, 0);
			execv(argv[0], argv);
			_exit(127);
		}
		if (pid < 0)
			return -1;
	}
	if (shm_wait_event(helpers_ready, (void *)&e->c->users, 20000)) {
		errno = ETIMEDOUT;
		return -1;
	}
	return 0;
}

static bool holder_looked(void *arg)
{
	return __atomic_load_n(&shm->rec[*(const int *)arg].t_start, __ATOMIC_ACQUIRE) != 0;
}

/* Start the round's users; they wait for generation gen. */
static int launch_users(struct engine *e, unsigned gen)
{
	const struct scase *c = e->c;
	int n = c->kind == KIND_MAP ? 0 : c->users;

	if (c->kind == KIND_DL)
		return 0;
	if (c->kind == KIND_EXIT &&
	    (spawn_twoface(e->path, c->users, 0, 0, 0, gen) < 0 ||
	     shm_wait_event(holder_looked, (void *)&c->users, ROUND_MS)))
		return -1;
	if (c->kind == KIND_MAP && spawn_mapper(e, gen) < 0)
		return -1;
	for (int i = 0; i < n; i++)
		if (spawn_twoface(e->path, i, c->hold_us, gen, 0, 0) < 0)
			return -1;
	return 0;
}

/* Records in use: contenders first, then the holder or the children. */
static int contenders(const struct scase *c)
{
	return c->kind == KIND_MAP ? 1 : c->users;
}

static int records(const struct scase *c)
{
	return c->kind == KIND_EXIT || c->kind == KIND_MAP ? c->users + 1 : c->users;
}

static bool dl_final(void *arg)
{
	const struct engine *e = arg;

	for (int i = 0; i < e->c->users; i++) {
		int st = atomic_load(&shm->rec[i].state);

		if (st != REC_DONE && st != REC_FAILED)
			return false;
	}
	return true;
}

static bool writers_done(void *arg)
{
	const struct engine *e = arg;

	for (int i = 0; i < e->nwriters; i++)
		if (!atomic_load(&e->w[i].done))
			return false;
	return true;
}

/* Wait for the users: reap what was forked, or the dlopen records. */
static void wait_users(struct engine *e, long long deadline)
{
	unsigned reaped = 0;
	bool killed = false;

	while (reaped < atomic_load(&shm->spawned)) {
		pid_t pid = reap_one(e->t, (int)((deadline - now_us()) / 1000), killed,
				    NULL, NULL);

		if (pid > 0)
			reaped++;
		else if (pid < 0 || killed)
			break;
		else {
			kill_children();
			killed = true;
			deadline = now_us() + 2000000;
		}
	}
	if (e->c->kind == KIND_DL &&
	    shm_wait_event(dl_final, e, (int)((deadline - now_us()) / 1000))) {
		bad(e->t, CK_NO_UNEXPECTED, "a stressdl helper did not finish its dlopen within %d ms",
		    ROUND_MS);
		e->stuck = true;
	}
}

static void wait_writers(struct engine *e)
{
	if (shm_wait_event(writers_done, e, ROUND_MS)) {
		bad(e->t, CK_NO_UNEXPECTED, "a writer did not finish within %d ms", ROUND_MS);
		e->stuck = e->writer_stuck = true;
	}
}

/* --- judging ----------------------------------------------------------- */

/*
 * A writer that held the file open while a user held it: the user's hold
 * lasts from its first look until its last (t_end), or until it was about
 * to exit where it noted that (t_gone): a process keeps its mapping, and
 * the hold, until it exits.
 */
int judge(const struct shm_rec *r, const struct wattempt *a, char *why,
	  size_t len)
{
	long long end = r->t_gone > r->t_end ? r->t_gone : r->t_end;

	if (a->err || a->t_open >= end || r->t_start >= a->t_close)
		return 0;
	snprintf(why, len, "a writer held the file open (%lld..%lld us) while a user held it (%lld..%lld us)",
		 a->t_open % 100000000, a->t_close % 100000000,
		 r->t_start % 100000000, end % 100000000);
	return 1;
}

/* Did a write and a use overlap in this round?  1 and why if so. */
static int overlapped(struct engine *e, char *why, size_t len)
{
	for (int i = 0; i < records(e->c); i++) {
		const struct shm_rec *r = &shm->rec[i];

		if (atomic_load(&r->state) != REC_DONE)
			continue;
		if (r->changes) {
			snprintf(why, len, "a user saw the file change %d times while it held it (first marker %s)",
				 r->changes, r->mark);
			return 1;
		}
		for (int w = 0; w < e->nwriters; w++)
			for (int k = 0; k < e->w[w].n; k++)
				if (judge(r, &e->w[w].a[k], why, len))
					return 1;
	}
	return 0;
}

struct sides {
	int w_ok, w_busy, u_ok, u_busy;
};

static void count_outcome(struct tally *t, int err, int *ok, int *busy,
			  const char *who)
{
	if (err == 0)
		(*ok)++;
	else if (err == ETXTBSY)
		(*busy)++;
	else
		bad(t, CK_NO_UNEXPECTED, "%s failed: %s", who, errtxt(err));
}

/*
 * A write through a file that opened fine is refused only by a hold taken
 * while that file was open: in enforce mode under a covering policy the
 * user taking the hold sees the writer and is refused instead, so there
 * any failed write is unexpected.  A round with flips may have let the
 * writer in (mode off) or the user's hold (audit mode, which protects all
 * the same) before enforce came back: then the writer's later writes are
 * refused like those of any old write descriptor (README, "Protection").
 */
static struct sides tally_sides(struct engine *e, bool strict)
{
	struct tally *t = e->t;
	struct sides s = { 0, 0, 0, 0 };

	for (int w = 0; w < e->nwriters; w++) {
		for (int k = 0; k < e->w[w].n; k++) {
			int err = e->w[w].a[k].write_err;

			if (err && (strict || err != ETXTBSY))
				bad(t, CK_NO_UNEXPECTED, "write: %s", errtxt(err));
		}
		if (e->w[w].n)
			count_outcome(t, e->w[w].a[0].err, &s.w_ok, &s.w_busy,
				      "a writer's open");
	}
	for (int i = 0; i < records(e->c); i++) {
		const struct shm_rec *r = &shm->rec[i];
		int state = atomic_load(&r->state);
		/* a mapper that was refused forked no children */
		bool unused = e->c->kind == KIND_MAP && i > 0 &&
			      atomic_load(&shm->rec[0].state) == REC_FAILED;

		if (state == REC_DONE && r->entry_bad)
			bad(t, CK_NO_UNEXPECTED, "slot %d: the entry that ran is not AT_ENTRY", i);
		if (state == REC_DONE && r->torn) {
			st_add(t, ST_TORN, 1);
			bad(t, CK_NO_TORN, "a program ran the entry of a header it no longer had: the header changed between the kernel's read and the program's start");
		}
		if (i < contenders(e->c) && state == REC_FAILED)
			count_outcome(t, r->err, &s.u_ok, &s.u_busy,
				      "a user's exec, mmap or dlopen");
		else if (i < contenders(e->c) && state == REC_DONE)
			s.u_ok++;
		else if (state != REC_DONE && !unused)
			bad(t, CK_NO_UNEXPECTED, "the user in slot %d never finished (state %d)",
			    i, state);
	}
	return s;
}

/*
 * Were both sides in flight at once: was a writer's first open called
 * before a contending user's exec, mmap or dlopen had its outcome, and
 * that call made before the open returned?  A side that came while the
 * other one held the file already met no race: its refusal is the plain
 * case every scenario of dwtest shows.
 */
static bool in_flight(const struct engine *e)
{
	for (int w = 0; w < e->nwriters; w++) {
		const struct wattempt *a = &e->w[w].a[0];

		if (!e->w[w].n || !a->t_try)
			continue;
		for (int i = 0; i < contenders(e->c); i++) {
			const struct shm_rec *r = &shm->rec[i];
			long long got = r->t_got ? r->t_got : r->t_start;

			if (r->t_try && got && a->t_try <= got && r->t_try <= a->t_got)
				return true;
		}
	}
	return false;
}

struct race_totals race_totals;

/*
 * Judged (strict) rounds only: in a round of the flips that was not, the
 * mode or the policy changed under it and any outcome is right.  A round
 * is close when both sides were in flight and one of them was refused;
 * its outcome (the writer won, the user won, both were refused) counts in
 * the case's figures and in the run's (race_totals).
 */
static void judge_round(struct engine *e, bool strict)
{
	struct tally *t = e->t;
	struct sides s = tally_sides(e, strict);
	bool close;
	char why[240];

	e->refused += s.u_busy;
	st_add(t, ST_ROUNDS, 1);
	if (!strict)
		return;
	close = in_flight(e) && (s.w_busy || s.u_busy) && !(s.w_ok && s.u_ok);
	if (s.w_ok && s.u_ok)
		st_add(t, ST_APART, 1);
	else if (!close && (s.w_busy || s.u_busy))
		st_add(t, ST_NOT_IN_FLIGHT, 1);
	else if (s.w_ok && s.u_busy)
		st_add(t, ST_WRITER_WON, 1);
	else if (s.u_ok && s.w_busy)
		st_add(t, ST_EXEC_WON, 1);
	else if (s.w_busy && s.u_busy)
		st_add(t, ST_BOTH_FAILED, 1);
	if (close) {
		race_totals.close++;
		race_totals.writer_won += s.w_ok && s.u_busy;
		race_totals.exec_won += s.u_ok && s.w_busy;
		race_totals.both_failed += s.w_busy && s.u_busy && !s.w_ok && !s.u_ok;
	}
	st_add(t, ST_STRICT, 1);
	st_add(t, ST_CLOSE, close);
	if (overlapped(e, why, sizeof(why))) {
		st_add(t, ST_BOTH_SUCCEEDED, 1);
		bad(t, CK_NEVER_BOTH, "round %ld: %s", t->st[ST_ROUNDS], why);
	}
}

/*
 * Move the writers' lead toward where the outcome flips: later if the
 * writer came first (it got the file and the user was refused, or it was
 * done before the user started), earlier if it came after (refused, or it
 * got the file once the user was gone).  STEER_CLOSE aims the writer's
 * close, not its open, at the user's check, so a writer that was still
 * open then must come earlier; STEER_EXIT aims at the holder's exit, which
 * refuses writers until it is gone.  The step grows by half while the
 * direction holds and halves when it turns, so that it shrinks where the
 * outcome is a coin toss.
 */
static void steer(struct engine *e)
{
	const struct wattempt *a = &e->w[0].a[0];
	const struct shm_rec *r = &shm->rec[0];
	bool w_ok = e->w[0].n && a->err == 0;
	bool u_ok = atomic_load(&r->state) == REC_DONE;
	bool writer_first = w_ok && u_ok && a->t_close <= r->t_start;
	int dir;

	if (e->c->steer == STEER_EXIT)
		dir = w_ok ? -1 : 1;
	else if (w_ok && u_ok)
		dir = writer_first ? 1 : -1;
	else if (w_ok)
		dir = e->c->steer == STEER_CLOSE ? -1 : 1;
	else
		dir = u_ok ? -1 : 0;
	if (!dir)
		return;
	e->step = dir == e->last_dir ? e->step * 3 / 2 : e->step / 2;
	e->step = e->step < MIN_STEP_US ? MIN_STEP_US : e->step > MAX_STEP_US ? MAX_STEP_US : e->step;
	e->last_dir = dir;
	e->d += dir * e->step;
	if (e->d < (e->c->steer == STEER_EXIT ? 0 : -MAX_LEAD_US))
		e->d = e->c->steer == STEER_EXIT ? 0 : -MAX_LEAD_US;
	if (e->d > MAX_LEAD_US)
		e->d = MAX_LEAD_US;
}

/*
 * The first time a user ran, start the lead from what it took: 3/4 of the
 * time from the release to the program's first look (the exec's check lies
 * before it), or, racing an exit, the time to the holder's last look (its
 * exit follows).  Under TCG this is tens of ms, which steering alone would
 * take many rounds to reach.  True if it calibrated now.
 */
static bool calibrate(struct engine *e)
{
	bool exit = e->c->steer == STEER_EXIT;
	const struct shm_rec *r = &shm->rec[exit ? e->c->users : 0];
	long lat;

	if (e->calibrated || atomic_load(&r->state) != REC_DONE)
		return false;
	lat = (long)((exit ? r->t_end : r->t_start) - e->t_release);
	e->d = exit ? lat : lat * 3 / 4;
	e->step = lat / 8 > MIN_STEP_US ? lat / 8 : MIN_STEP_US;
	e->calibrated = true;
	return true;
}

/* How far a round's delays spread around the lead. */
static long span(const struct engine *e)
{
	return e->step * 2 < MIN_SPAN_US ? MIN_SPAN_US : e->step * 2;
}

static void set_delays(struct engine *e)
{
	for (int i = 0; i < e->nwriters; i++)
		e->w[i].delay_us = clamp_delay(e->d + jitter(e, span(e)));
	/* racing an exit, the new execs start about when the writers do */
	for (int i = 0; i < contenders(e->c); i++)
		shm->rec[i].delay_us = e->c->steer == STEER_EXIT ?
			clamp_delay(e->d + jitter(e, span(e))) :
			clamp_delay(-(e->d + jitter(e, span(e))));
}

static void round_reset(struct engine *e)
{
	memset(shm->rec, 0, sizeof(shm->rec));
	atomic_store(&shm->spawned, 0);
	atomic_store(&e->users_done, 0);
	for (int i = 0; i < e->nwriters; i++) {
		e->w[i].n = 0;
		atomic_store(&e->w[i].done, 0);
	}
}

static void round_run(struct engine *e)
{
	struct tally *t = e->t;
	unsigned gen = e->gen + 1;
	long burst = atomic_load(&e->f.burst);
	bool strict = !e->c->flips || atomic_load(&e->f.strict_now);
	long long deadline;
	long lag;

	round_reset(e);
	set_delays(e);
	if (launch_users(e, gen))
		bad(t, CK_NO_UNEXPECTED, "starting the users: %s", errtxt(errno));
	deadline = now_us() + ROUND_MS * 1000LL;
	e->gen = gen;
	e->t_release = now_us();
	shm_release(shm, gen);
	wait_users(e, deadline);
	st_add(t, ST_FORKS, atomic_load(&shm->spawned));
	atomic_store(&e->users_done, 1);
	wait_writers(e);
	strict = strict && atomic_load(&e->f.burst) == burst;
	judge_round(e, strict);
	if (probe_open(e->path, O_WRONLY)) {
		st_add(t, ST_STILL_PROTECTED, 1);
		lag = wait_writable(e->path, 1000);
		if (lag < 0)
			bad(t, CK_WRITABLE, "round %ld: the file is not writable 1 s after its users were reaped",
			    t->st[ST_ROUNDS]);
		else
			st_max(t, ST_LAG_MAX_US, lag);
	}
	if (!calibrate(e))
		steer(e);
}

/* --- a case ------------------------------------------------------------ */

static int prepare_target(struct engine *e)
{
	const struct scase *c = e->c;
	struct stat st;

	if (c->kind == KIND_MAP || c->kind == KIND_DL) {
		snprintf(e->path, sizeof(e->path), PLUGIN_DIR "/stress-%s.so", c->name);
		if (make_target(PLUGIN_SRC, e->path))
			return -1;
	} else if (case_target(c, e->path, sizeof(e->path))) {
		return -1;
	}
	if (stat(e->path, &st))
		return -1;
	e->size = st.st_size;
	return c->payload == PAY_ENTRY ? twoface_entries(e->path, e->entry_lo) : 0;
}

static int start_threads(struct engine *e)
{
	e->nwriters = e->c->writers > MAX_WRITERS ? MAX_WRITERS : e->c->writers;
	for (int i = 0; i < e->nwriters; i++) {
		e->w[i].e = e;
		e->w[i].idx = i;
		e->w[i].gen0 = e->gen;
		if (pthread_create(&e->w[i].th, NULL, writer_main, &e->w[i]))
			return -1;
	}
	atomic_store(&e->f.strict_now, 1);
	if (e->c->flips && pthread_create(&e->f.th, NULL, flipper_main, &e->f))
		return -1;
	return 0;
}

static void stop_threads(struct engine *e)
{
	if (e->c->flips) {
		atomic_store(&e->f.stop, 1);
		pthread_join(e->f.th, NULL);
		st_add(e->t, ST_MODE_WRITES, e->f.mode_writes);
		st_add(e->t, ST_POLICY_WRITES, e->f.policy_writes);
		if (e->f.err)
			bad(e->t, CK_NO_UNEXPECTED, "%s: %s", e->f.what, errtxt(e->f.err));
	}
	atomic_store(&shm->stop, 1);
	shm_release(shm, e->gen);
	for (int i = 0; i < e->nwriters; i++) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += e->writer_stuck ? 30 : 300;
		if (pthread_timedjoin_np(e->w[i].th, NULL, &ts)) {
			bad(e->t, CK_NO_UNEXPECTED, "writer thread %d never ended", i);
			e->t->fatal = true;
		}
	}
}

static void mark_measured(struct engine *e)
{
	static const enum figure race_stats[] = {
		ST_ROUNDS, ST_WRITER_WON, ST_EXEC_WON, ST_BOTH_FAILED, ST_APART,
		ST_NOT_IN_FLIGHT, ST_CLOSE, ST_STRICT, ST_BOTH_SUCCEEDED, ST_KILLED,
	};

	for (size_t i = 0; i < sizeof(race_stats) / sizeof(race_stats[0]); i++)
		st_add(e->t, race_stats[i], 0);
	if (e->c->payload == PAY_ENTRY)
		st_add(e->t, ST_TORN, 0);
	if (e->c->kind != KIND_DL)
		st_add(e->t, ST_STILL_PROTECTED, 0);
}

/*
 * ld.so reports a refused mmap as "failed to map segment from shared
 * object", without the errno, so stressdl counts any such failure as a
 * refusal: the kernel must have refused at least as many mmaps.
 */
static void check_dl_refusals(struct engine *e, long denied_before)
{
	long denied = read_stat("denied_mmap") - denied_before;

	if (kernel == K_LSM && e->c->kind == KIND_DL && denied < e->refused)
		bad(e->t, CK_NO_UNEXPECTED, "%ld dlopens failed to map the plugin, denywrite refused %ld mmaps",
		    e->refused, denied);
}

void run_race(const struct scase *c, struct tally *t)
{
	static struct engine e; /* large: not on the stack */
	long long end = now_us() + c->budget_ms * 1000LL;
	long denied_mmap = read_stat("denied_mmap");

	memset(&e, 0, sizeof(e));
	e.c = c;
	e.t = t;
	e.step = 1000;
	e.rng = 0x9e3779b9u ^ (unsigned)now_us();
	e.gen = atomic_load(&shm->go);
	mark_measured(&e);
	if (prepare_target(&e)) {
		bad(t, CK_NO_UNEXPECTED, "preparing %s: %s", e.path, errtxt(errno));
		return;
	}
	if (start_threads(&e) || (c->kind == KIND_DL && start_dl_helpers(&e)))
		bad(t, CK_NO_UNEXPECTED, "starting writers or helpers: %s", errtxt(errno));
	else
		while (now_us() < end && !e.stuck)
			round_run(&e);
	stop_threads(&e);
	reap_rest(t, 5000);
	check_dl_refusals(&e, denied_mmap);
	if (kernel == K_LSM && (sfs_write("mode", "enforce") || sfs_write("rules", POLICY_BASE)))
		bad(t, CK_NO_UNEXPECTED, "restoring the policy after the flips");
	if (wait_writable(e.path, 2000) < 0)
		bad(t, CK_WRITABLE, "%s is not writable after the case", e.path);
	unlink(e.path);
}
