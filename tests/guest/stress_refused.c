/* stress_refused.c - refused users never fail an open writer's writes.
 *
 * A writer holds the file open and writes to it (pwrite(), and now and
 * then ftruncate() to the same size) while other threads try, again and
 * again, to map it PROT_EXEC and to execute it (posix_spawn()).  The file
 * is open for writing, so every one of those must be refused with
 * ETXTBSY, and none of them may make a write through the writer's file
 * fail: a protector that finds the writer and backs off must leave no
 * trace on it.  Before the claims of protect.c, the refused protector's
 * brief hold made such writes fail with ETXTBSY now and then (seen in CI
 * as "write: Text file busy" in the race cases).
 */
#include "stress.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAPPERS 2

struct refused {
	const char *path;
	int wfd;
	off_t size;
	long long deadline;
	struct tally *t;
	pthread_mutex_t lock; /* t, the counters */
	long writes, write_errs, refused, used;
	int write_err, use_err;
	const char *use_how;
};

static void note_use(struct refused *r, int err, const char *how)
{
	pthread_mutex_lock(&r->lock);
	if (err == ETXTBSY) {
		r->refused++;
	} else if (!err) {
		r->used++;
	} else if (!r->use_how) {
		r->use_err = err;
		r->use_how = how;
	}
	pthread_mutex_unlock(&r->lock);
}

static void *mapper_main(void *arg)
{
	struct refused *r = arg;
	int fd = open(r->path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		note_use(r, errno, "open for mapping");
		return NULL;
	}
	while (now_us() < r->deadline) {
		void *p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);

		if (p != MAP_FAILED) {
			munmap(p, 4096);
			note_use(r, 0, "mmap PROT_EXEC");
		} else {
			note_use(r, errno, "mmap PROT_EXEC");
		}
	}
	close(fd);
	return NULL;
}

static void *spawner_main(void *arg)
{
	struct refused *r = arg;
	char *argv[] = { (char *)r->path, "--entries", NULL };

	while (now_us() < r->deadline) {
		pid_t pid;
		int err = posix_spawn(&pid, r->path, NULL, NULL, argv, NULL);

		if (!err)
			waitpid(pid, NULL, 0);
		note_use(r, err, "execve");
	}
	return NULL;
}

static void writer_loop(struct refused *r)
{
	static const char mark[MARK_LEN] = "refused-writer!!";
	long n = 0;

	while (now_us() < r->deadline) {
		int bad = ++n % 64 ? pwrite(r->wfd, mark, MARK_LEN, r->size - MARK_LEN) != MARK_LEN
				   : ftruncate(r->wfd, r->size) != 0;

		if (bad && !r->write_errs++)
			r->write_err = errno;
	}
	r->writes = n;
}

void run_refused(const struct scase *c, struct tally *t)
{
	struct refused r = { .t = t, .lock = PTHREAD_MUTEX_INITIALIZER };
	pthread_t th[MAPPERS + 1];
	char path[PATH_MAX];
	int started = 0, err;
	struct stat st;

	if (case_target(c, path, sizeof(path)) || stat(path, &st)) {
		bad(t, CK_NO_UNEXPECTED, "preparing the file: %s", errtxt(errno));
		return;
	}
	/* Mappings of it are covered too, not only its exec. */
	if ((err = sfs_write("rules", "exec /\nlib " WORK "\n"))) {
		bad(t, CK_NO_UNEXPECTED, "setting the policy: %s", errtxt(err));
		return;
	}
	r.path = path;
	r.size = st.st_size;
	r.wfd = open(path, O_WRONLY | O_CLOEXEC);
	if (r.wfd < 0) {
		bad(t, CK_NO_UNEXPECTED, "open for writing: %s", errtxt(errno));
		return;
	}
	r.deadline = now_us() + c->budget_ms * 1000LL;
	for (int i = 0; i <= MAPPERS; i++) {
		err = pthread_create(&th[i], NULL, i < MAPPERS ? mapper_main : spawner_main, &r);
		if (err) {
			bad(t, CK_NO_UNEXPECTED, "pthread_create: %s", errtxt(err));
			r.deadline = 0;
			break;
		}
		started++;
	}
	writer_loop(&r);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	close(r.wfd);

	st_add(t, ST_ROUNDS, r.refused + r.used);
	st_add(t, ST_EXEC_WON, r.used);
	st_add(t, ST_REFUSED, r.refused);
	st_add(t, ST_WRITES, r.writes);
	if (r.write_errs)
		bad(t, CK_NO_UNEXPECTED, "%ld of %ld writes through the open writer failed: %s",
		    r.write_errs, r.writes, errtxt(r.write_err));
	if (r.use_how)
		bad(t, CK_NO_UNEXPECTED, "%s: %s", r.use_how, errtxt(r.use_err));
	if (r.used)
		bad(t, CK_NEVER_BOTH, "%ld uses succeeded while the file was open for writing",
		    r.used);
	if (r.refused < c->min_close)
		bad(t, CK_REFUSED, "%ld refused uses, fewer than %d", r.refused, c->min_close);
	if (wait_writable(path, 2000) < 0)
		bad(t, CK_WRITABLE, "%s is not writable after the case", path);
}
