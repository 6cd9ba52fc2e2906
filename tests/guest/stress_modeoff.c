/* stress_modeoff.c - mappings racing mode off leave no hold behind.
 *
 * Mode off drops every hold and mark, and switches file_release off, from
 * under the processes that hold them (mode.c, protect.c): the CPUs' lists
 * of held files are emptied while mappings are released and taken.
 * MAPPERS threads map a file PROT_EXEC, unmap it and close it,
 * again and again; the file sits at the bottom of a chain of DEPTH
 * directories under the directory of a "lib" rule, so that each mapping's
 * rule lookup is long and many are under way when the mode changes.  Each
 * round the mode goes off while they run; then they pause, the mode goes
 * back to enforce, and the file, which nothing maps or opens any more,
 * must be writable at once: a hold dropped twice would have made the count
 * go wrong, one recorded after the switch would keep it protected for good.
 * At the end protected must be back at its baseline; rounds counts the
 * rounds.  (The gate that keeps a protector from recording a hold after
 * the switch is tested by the KUnit suite denywrite_protect: the window is
 * too narrow to hit here.)
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
#include <sys/stat.h>
#include <unistd.h>

#define MAPPERS 2
#define DEPTH 1000
#define OFF_US 3000
#define ON_US 1000

struct modeoff {
	atomic_bool stop, pause;
	atomic_int idle;	/* mappers that saw the pause */
	int dirfd;		/* the bottom directory of the chain */
	atomic_long maps, map_errs;
	atomic_int map_err;
};

static void *mapper_main(void *arg)
{
	struct modeoff *m = arg;

	while (!atomic_load(&m->stop)) {
		if (atomic_load(&m->pause)) {
			atomic_fetch_add(&m->idle, 1);
			while (atomic_load(&m->pause) && !atomic_load(&m->stop))
				sleep_us(100);
			atomic_fetch_sub(&m->idle, 1);
			continue;
		}
		int fd = openat(m->dirfd, "lib.so", O_RDONLY | O_CLOEXEC);
		void *p = fd < 0 ? MAP_FAILED :
			mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);

		if (p == MAP_FAILED) {
			atomic_store(&m->map_err, errno);
			atomic_fetch_add(&m->map_errs, 1);
		} else {
			munmap(p, 4096);
			atomic_fetch_add(&m->maps, 1);
		}
		if (fd >= 0)
			close(fd);
	}
	return NULL;
}

/* The chain under dir, its bottom directory open in *dirfd, and the file
 * lib.so (one page) there; 0 or an errno. */
static int make_chain(const char *dir, int *dirfd)
{
	char page[4096];
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), next, err;

	for (int i = 0; fd >= 0 && i < DEPTH; i++) {
		if (mkdirat(fd, "d", 0755) && errno != EEXIST)
			break;
		next = openat(fd, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		close(fd);
		fd = next;
	}
	if (fd < 0)
		return errno;
	memset(page, 0xc3, sizeof(page));
	next = openat(fd, "lib.so", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (next < 0 || write(next, page, sizeof(page)) != (ssize_t)sizeof(page)) {
		err = errno;
		if (next >= 0)
			close(next);
		close(fd);
		return err;
	}
	close(next);
	*dirfd = fd;
	return 0;
}

/* One round: mode off while the mappers run, then enforce with them
 * paused; false if the case cannot go on. */
static bool round_off(struct modeoff *m, const char *path, struct tally *t)
{
	int err;

	atomic_store(&m->pause, false);
	sleep_us(ON_US);
	err = sfs_write("mode", "off");
	sleep_us(OFF_US);
	atomic_store(&m->pause, true);
	while (atomic_load(&m->idle) < MAPPERS)
		sleep_us(100);
	if (!err)
		err = sfs_write("mode", "enforce");
	if (err) {
		bad(t, CK_NO_UNEXPECTED, "switching the mode: %s", errtxt(err));
		return false;
	}
	st_add(t, ST_MODE_WRITES, 2);
	err = probe_open(path, O_WRONLY);
	if (err) {
		bad(t, CK_WRITABLE, "round %ld: a write open once its mappings went: %s",
		    t->st[ST_ROUNDS], errtxt(err));
		return false;
	}
	st_add(t, ST_ROUNDS, 1);
	return true;
}

void run_modeoff(const struct scase *c, struct tally *t)
{
	struct modeoff m = { .dirfd = -1 };
	char dir[256], rules[512], path[64];
	pthread_t th[MAPPERS];
	int started = 0, err;
	long long deadline;

	snprintf(dir, sizeof(dir), WORK "/%s", c->name);
	snprintf(rules, sizeof(rules), "exec /\nlib %s\n", dir);
	if (mkdir_p(dir, 0755) || (err = make_chain(dir, &m.dirfd))) {
		bad(t, CK_NO_UNEXPECTED, "a chain of %d directories: %s", DEPTH,
		    errtxt(errno));
		return;
	}
	if ((err = sfs_write("rules", rules))) {
		bad(t, CK_NO_UNEXPECTED, "setting the policy: %s", errtxt(err));
		close(m.dirfd);
		return;
	}
	for (int i = 0; i < MAPPERS; i++) {
		err = pthread_create(&th[i], NULL, mapper_main, &m);
		if (err) {
			bad(t, CK_NO_UNEXPECTED, "pthread_create: %s", errtxt(err));
			break;
		}
		started++;
	}
	/* The file through /proc: the chain is too deep for a path. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d/lib.so", m.dirfd);
	deadline = now_us() + c->budget_ms * 1000LL;
	while (started == MAPPERS && now_us() < deadline &&
	       round_off(&m, path, t))
		;
	atomic_store(&m.stop, true);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	st_add(t, ST_MAPPINGS, atomic_load(&m.maps));
	if (atomic_load(&m.map_errs))
		bad(t, CK_NO_UNEXPECTED, "%ld mappings failed: %s",
		    atomic_load(&m.map_errs), errtxt(atomic_load(&m.map_err)));
	if ((err = sfs_write("mode", "enforce")))
		bad(t, CK_NO_UNEXPECTED, "mode enforce: %s", errtxt(err));
	close(m.dirfd);
}
