/* stress_shm.h - what stress shares with the programs it runs (twoface,
 * stressdl): a memfd, inherited by number (argv), mapped MAP_SHARED.
 *
 * Each protected user of a file (an exec'd program, a process that maps
 * the file executable, a dlopen) owns one record.  It notes when it held
 * the file (t_start..t_end, a sub-interval of its protection, which lasts
 * until t_gone where the process notes when it exits) and the
 * file's contents it saw during that time: if a writer changed them, a
 * write and an exec (or mapping) both succeeded at once.
 *
 * stress releases a round by raising `go` (a shared futex word); a program
 * waiting for generation g sleeps until go >= g.
 */
#ifndef STRESS_SHM_H
#define STRESS_SHM_H

#include <linux/futex.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SHM_SLOTS 64
#define MARK_LEN 16      /* the marker: the last MARK_LEN bytes of the file */
#define ENTRY_BYTE_OFF 24 /* e_entry's low byte in an Elf64_Ehdr */

enum rec_state { REC_EMPTY, REC_ALIVE, REC_DONE, REC_FAILED };

struct shm_rec {
	_Atomic int state;
	int err;           /* REC_FAILED: errno of the exec, mmap or dlopen */
	long long t_try;   /* CLOCK_MONOTONIC us: the exec, mmap or dlopen
			    * call was made (its delay spun) */
	long long t_got;   /* its outcome was known: it failed, or the mmap
			    * or dlopen returned (an exec that succeeded: its
			    * program's first look, t_start) */
	long long t_start; /* CLOCK_MONOTONIC us: first look at the file */
	long long t_end;   /* last look; the file was protected in between */
	long long t_gone;  /* 0, or: the process, which kept its mapping,
			    * was about to exit; the file was protected
			    * from t_start until then (stress_round.c) */
	int changes;       /* looks that differed from the first one */
	int torn;          /* twoface: mapped e_entry is not AT_ENTRY */
	int entry_bad;     /* twoface: the entry that ran is not AT_ENTRY */
	unsigned delay_us; /* set by stress: spin this long after go */
	char mark[MARK_LEN + 1]; /* the marker seen first */
};

struct shm {
	_Atomic unsigned go;      /* futex: the generation released */
	_Atomic unsigned events;  /* futex: bumped on every state change */
	_Atomic unsigned spawned; /* processes forked for this round */
	_Atomic unsigned ready;   /* persistent helpers that are waiting */
	_Atomic int stop;         /* persistent helpers: exit */
	struct shm_rec rec[SHM_SLOTS];
};

static inline long long shm_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Wait us microseconds: sleep most of a long wait (sleeps end on a
 * timer tick, 4 ms in the guest), then busy-wait to the exact time. */
static inline void shm_spin_us(unsigned us)
{
	long long until = shm_now_us() + us;

	if (us > 10000) {
		struct timespec ts = { 0, (long)(us - 8000) * 1000 };

		nanosleep(&ts, NULL);
	}
	while (shm_now_us() < until)
		;
}

/* Tell whoever waits in shm_wait_event that something changed. */
static inline void shm_post(struct shm *s)
{
	atomic_fetch_add(&s->events, 1);
	syscall(SYS_futex, &s->events, FUTEX_WAKE, 0x7fffffff, NULL, NULL, 0);
}

static inline void shm_set_state(struct shm *s, struct shm_rec *r, int state)
{
	atomic_store(&r->state, state);
	shm_post(s);
}

/* Sleep until go >= gen or stop is set; returns 0, or -1 on stop. */
static inline int shm_wait_go(struct shm *s, unsigned gen)
{
	struct timespec tick = { 0, 50 * 1000 * 1000 };
	unsigned v;

	while ((int)((v = atomic_load(&s->go)) - gen) < 0) {
		if (atomic_load(&s->stop))
			return -1;
		syscall(SYS_futex, &s->go, FUTEX_WAIT, v, &tick, NULL, 0);
	}
	return atomic_load(&s->stop) ? -1 : 0;
}

static inline void shm_release(struct shm *s, unsigned gen)
{
	atomic_store(&s->go, gen);
	syscall(SYS_futex, &s->go, FUTEX_WAKE, 0x7fffffff, NULL, NULL, 0);
}

/* Read the marker of the file open as fd (size bytes long) into out. */
static inline int shm_read_mark(int fd, long long size, char *out)
{
	memset(out, 0, MARK_LEN + 1);
	return pread(fd, out, MARK_LEN, size - MARK_LEN) == MARK_LEN ? 0 : -1;
}

#endif
