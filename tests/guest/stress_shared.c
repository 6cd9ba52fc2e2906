/* stress_shared.c - threads that protect one file at once hold it once.
 *
 * Each round opens the file once and lets SHARERS threads map that one
 * open file PROT_EXEC at the same moment, so that they race to take its
 * first hold: one sets the hold's flags in the file's blob with cmpxchg()
 * and puts the file on its CPU's list of held files, and the threads that
 * lose must drop the hold they took on the inode (protect.c).  In every
 * other round a second open file of the same inode is mapped first, so
 * that the inode is held already, and a churner thread releases it while
 * the sharers race, so that its hold goes, and its list's lock is taken,
 * in the middle.  After each round, with the file still open, a write open
 * must be refused (the file is held); once the file is closed, a write
 * open must succeed within 2 s: a hold counted twice, or not dropped,
 * would keep the inode protected for good.
 */
#include "stress.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SHARERS 3

struct shared {
	pthread_barrier_t start, done;
	atomic_bool stop;
	int fd;		/* this round's file, mapped by every sharer */
	int other_fd;	/* the round's other file of the inode, or -1 */
	void *other_map;
	unsigned round;
	atomic_long map_errs;
	atomic_int map_err;
};

static void *sharer_main(void *arg)
{
	struct shared *s = arg;

	for (;;) {
		pthread_barrier_wait(&s->start);
		if (atomic_load(&s->stop))
			return NULL;
		void *p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, s->fd, 0);

		if (p == MAP_FAILED) {
			atomic_store(&s->map_err, errno);
			atomic_fetch_add(&s->map_errs, 1);
		} else {
			munmap(p, 4096);
		}
		pthread_barrier_wait(&s->done);
	}
}

/* Releases the other file a moment after the sharers start. */
static void *churner_main(void *arg)
{
	struct shared *s = arg;

	for (;;) {
		pthread_barrier_wait(&s->start);
		if (atomic_load(&s->stop))
			return NULL;
		if (s->other_fd >= 0) {
			sleep_us(s->round % 7 * 20);
			munmap(s->other_map, 4096);
			close(s->other_fd);
			s->other_fd = -1;
		}
		pthread_barrier_wait(&s->done);
	}
}

/* One round; returns false if the case cannot go on. */
static bool shared_round(struct shared *s, const char *path, struct tally *t)
{
	int err;

	s->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (s->fd < 0) {
		bad(t, CK_NO_UNEXPECTED, "open: %s", errtxt(errno));
		return false;
	}
	s->other_fd = -1;
	if (s->round % 2) {
		s->other_fd = open(path, O_RDONLY | O_CLOEXEC);
		s->other_map = s->other_fd < 0 ? MAP_FAILED :
			mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, s->other_fd, 0);
		if (s->other_map == MAP_FAILED) {
			bad(t, CK_NO_UNEXPECTED, "the other file: %s", errtxt(errno));
			if (s->other_fd >= 0)
				close(s->other_fd);
			close(s->fd);
			return false;
		}
	}
	pthread_barrier_wait(&s->start);
	pthread_barrier_wait(&s->done);
	/* Mapped, then unmapped: held until its last reference goes. */
	err = probe_open(path, O_WRONLY);
	if (err != ETXTBSY)
		bad(t, CK_NEVER_BOTH, "round %u: a write open of the file mapped through a file still open: %s",
		    s->round, err ? errtxt(err) : "succeeded");
	close(s->fd);
	if (wait_writable(path, 2000) < 0) {
		bad(t, CK_WRITABLE, "round %u: not writable 2 s after its last file was closed",
		    s->round);
		return false;
	}
	st_add(t, ST_ROUNDS, 1);
	return true;
}

void run_shared(const struct scase *c, struct tally *t)
{
	struct shared s = { .fd = -1, .other_fd = -1 };
	pthread_t th[SHARERS + 1];
	char path[PATH_MAX];
	int started = 0, err;
	long long deadline;

	if (case_target(c, path, sizeof(path))) {
		bad(t, CK_NO_UNEXPECTED, "preparing the file: %s", errtxt(errno));
		return;
	}
	if ((err = sfs_write("rules", "exec /\nlib " WORK "\n"))) {
		bad(t, CK_NO_UNEXPECTED, "setting the policy: %s", errtxt(err));
		return;
	}
	pthread_barrier_init(&s.start, NULL, SHARERS + 2);
	pthread_barrier_init(&s.done, NULL, SHARERS + 2);
	for (int i = 0; i <= SHARERS; i++) {
		err = pthread_create(&th[i], NULL, i < SHARERS ? sharer_main : churner_main, &s);
		if (err) {
			bad(t, CK_NO_UNEXPECTED, "pthread_create: %s", errtxt(err));
			t->fatal = started > 0; /* threads wait on a barrier forever */
			return;
		}
		started++;
	}
	deadline = now_us() + c->budget_ms * 1000LL;
	while (now_us() < deadline && shared_round(&s, path, t))
		s.round++;
	atomic_store(&s.stop, true);
	pthread_barrier_wait(&s.start);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&s.start);
	pthread_barrier_destroy(&s.done);
	if (atomic_load(&s.map_errs))
		bad(t, CK_NO_UNEXPECTED, "%ld mappings failed: %s",
		    atomic_load(&s.map_errs), errtxt(atomic_load(&s.map_err)));
}
