/* buildrace DIR TEMPLATE ITERATIONS - the build-tool race of golang/go#22315
 * against the running kernel's policy for DIR.
 *
 * WRITERS threads each write ITERATIONS fresh binaries into DIR (a copy of
 * TEMPLATE, padded so that the write takes a while), close them and
 * execute them with posix_spawn(), while FORKERS threads keep forking
 * children that linger a moment and exit.  A child forked while a writer
 * had its binary open for writing holds that descriptor until it exits
 * (O_CLOEXEC closes it only at exec), so the writer's exec finds the
 * binary still open for writing: under a classic "exec" rule it fails
 * with ETXTBSY, at random; under "exec,ignore-writers" it never does.
 *
 * Prints one line on stdout:
 *     execs N etxtbsy N other N
 * (execs that ran and exited 0, execs refused with ETXTBSY, anything else:
 * another error, or a binary that did not exit 0).  Exits 0 if it could
 * run the experiment, 1 if not (then "other" says nothing).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WRITERS 2
#define FORKERS 2
#define PAD (64 * 1024)     /* bytes written per binary, in CHUNK writes */
#define CHUNK 4096
#define LINGER_NS 2000000L  /* how long a forked child keeps its fds */

extern char **environ;

static const char *dir;
static char *image;          /* TEMPLATE padded with zeros to PAD bytes */
static size_t image_len;
static long iterations;
static atomic_int stop_forking;
static atomic_long n_ok, n_etxtbsy, n_other;

static int load_template(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0) {
		perror(path);
		return -1;
	}
	image_len = (size_t)st.st_size > PAD ? (size_t)st.st_size : PAD;
	image = calloc(1, image_len);
	if (!image || read(fd, image, st.st_size) != st.st_size) {
		perror(path);
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static int write_binary(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);

	if (fd < 0)
		return -1;
	for (size_t off = 0; off < image_len; off += CHUNK) {
		size_t n = image_len - off < CHUNK ? image_len - off : CHUNK;

		if (write(fd, image + off, n) != (ssize_t)n) {
			close(fd);
			return -1;
		}
	}
	return close(fd);
}

/* One round: write, close, exec, wait; counts the outcome. */
static void one_round(const char *path)
{
	char *argv[] = { (char *)path, NULL };
	pid_t pid;
	int status, err;

	if (write_binary(path) < 0) {
		atomic_fetch_add(&n_other, 1);
		return;
	}
	err = posix_spawn(&pid, path, NULL, NULL, argv, environ);
	if (err == ETXTBSY)
		atomic_fetch_add(&n_etxtbsy, 1);
	else if (err != 0 || waitpid(pid, &status, 0) != pid ||
		 !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		atomic_fetch_add(&n_other, 1);
	else
		atomic_fetch_add(&n_ok, 1);
	unlink(path);
}

static void *writer(void *arg)
{
	char path[4096];

	for (long i = 0; i < iterations; i++) {
		snprintf(path, sizeof(path), "%s/w%ld-%ld", dir, (long)(intptr_t)arg, i);
		one_round(path);
	}
	return NULL;
}

static void *forker(void *arg)
{
	const struct timespec linger = { 0, LINGER_NS };

	(void)arg;
	while (!atomic_load(&stop_forking)) {
		pid_t pid = fork();

		if (pid == 0) {
			nanosleep(&linger, NULL);
			_exit(0);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t w[WRITERS], f[FORKERS];

	if (argc != 4 || (iterations = atol(argv[3])) <= 0) {
		fprintf(stderr, "usage: buildrace DIR TEMPLATE ITERATIONS\n");
		return 2;
	}
	dir = argv[1];
	if (load_template(argv[2]) < 0)
		return 1;
	for (int i = 0; i < FORKERS; i++)
		if (pthread_create(&f[i], NULL, forker, NULL) != 0)
			return 1;
	for (long i = 0; i < WRITERS; i++)
		if (pthread_create(&w[i], NULL, writer, (void *)(intptr_t)i) != 0)
			return 1;
	for (int i = 0; i < WRITERS; i++)
		pthread_join(w[i], NULL);
	atomic_store(&stop_forking, 1);
	for (int i = 0; i < FORKERS; i++)
		pthread_join(f[i], NULL);
	printf("execs %ld etxtbsy %ld other %ld\n", atomic_load(&n_ok),
	       atomic_load(&n_etxtbsy), atomic_load(&n_other));
	return 0;
}
